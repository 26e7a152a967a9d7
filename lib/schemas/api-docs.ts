import * as z from 'zod';

/** `/api-docs/v1/swagger.json`: an OpenAPI 3 document (described loosely: it describes itself). */
export const OpenApiDocumentJson = z
  .looseObject({
    openapi: z.string().meta({ example: '3.0.3' }),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'OpenApiDocument', description: 'This document.' });

/** `/api-docs/v1/swagger.yaml`: the same document as YAML text. */
export const OpenApiDocumentYaml = z.string().meta({ description: 'This document, as YAML.' });

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

/** `/api-docs`: the HTML page of the interactive reference. */
export const ApiReferencePage = z.string().meta({ description: 'An HTML page that renders this document with Swagger UI.' });

/** `/api-docs/assets/...`: a script or style sheet the reference page loads. */
export const ApiReferenceAsset = z.string().meta({ description: 'The file, as text.' });

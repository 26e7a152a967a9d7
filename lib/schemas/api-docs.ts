import * as z from 'zod/mini';
import { meta } from './zod.ts';

/** `/api-docs/v1/swagger.json`: an OpenAPI 3 document (described loosely: it describes itself). */
export const OpenApiDocumentJson = meta(
  z.looseObject({
    openapi: meta(z.string(), { example: '3.0.3' }),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.unknown()),
  }),
  { id: 'OpenApiDocument', description: 'This document.' },
);

/** `/api-docs/v1/swagger.yaml`: the same document as YAML text. */
export const OpenApiDocumentYaml = meta(z.string(), { description: 'This document, as YAML.' });

/** `/api-docs`: the HTML page of the interactive reference. */
export const ApiReferencePage = meta(z.string(), { description: 'An HTML page that renders this document with Swagger UI.' });

/** `/api-docs/assets/...`: a script or style sheet the reference page loads. */
export const ApiReferenceAsset = meta(z.string(), { description: 'The file, as text.' });

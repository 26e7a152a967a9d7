/**
 * `npm run openapi`: writes the OpenAPI document generated from `lib/routes.ts` to
 * `lib/openapi/openapi.v1.yaml` (committed, so reviews show every change of the contract), to
 * `lib/openapi/served.json` (what `functions/api-docs.ts` serves, so its bundle holds no generator)
 * and the query parameters each operation lists to `lib/openapi/query-parameters.json` (what
 * `lib/http/strict-query.ts` holds a request's query against), and the endpoint table of
 * docs/api-endpoints.md (tools/openapi/endpoints.ts).
 */
import { writeFileSync } from 'node:fs';
import { brotliCompressSync, constants } from 'node:zlib';
import { buildOpenApiDocument, renderOpenApi, type OpenApiDocument } from './document.ts';
import { apiDoc, writeEndpointsTable } from './endpoints.ts';

export const outputs = {
  yaml: new URL('../../lib/openapi/openapi.v1.yaml', import.meta.url),
  served: new URL('../../lib/openapi/served.json', import.meta.url),
  queryParameters: new URL('../../lib/openapi/query-parameters.json', import.meta.url),
};

/** A document's text, brotli-compressed at the highest quality (the same bytes for the same text), in base64. */
export const compressedText = (text: string) =>
  brotliCompressSync(Buffer.from(text, 'utf8'), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text) },
  }).toString('base64');

/**
 * The text of `served.json` for a rendered document: the YAML and the JSON compressed (the
 * `/api-docs` bundle carries a tenth of their size; lib/openapi/documents.ts opens them), and their ETags.
 */
export function servedFile(rendered: ReturnType<typeof renderOpenApi>): string {
  const compressed = { yaml: compressedText(rendered.yaml), json: compressedText(rendered.json) };
  return `${JSON.stringify({ compressed, etags: rendered.etags })}\n`;
}

/**
 * `METHOD /path` -> the names of the query parameters the document lists for that operation, in
 * the document's order; an operation that lists none is left out (it knows none).
 */
export function queryParametersOf(doc: OpenApiDocument): Record<string, string[]> {
  const byOperation: Record<string, string[]> = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { parameters?: { in?: string; name?: string }[] }>)) {
      const names = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name ?? '');
      if (names.length > 0) byOperation[`${method.toUpperCase()} ${path}`] = names;
    }
  }
  return byOperation;
}

/** The text of `query-parameters.json` for a document: an operation's query parameters on a line. */
export function queryParametersFile(doc: OpenApiDocument): string {
  const entries = Object.entries(queryParametersOf(doc)).map(
    ([op, names]) => `  ${JSON.stringify(op)}: ${JSON.stringify(names)}`,
  );
  return `{\n${entries.join(',\n')}\n}\n`;
}

if (import.meta.main) {
  const doc = buildOpenApiDocument();
  const rendered = renderOpenApi(doc);
  writeFileSync(outputs.yaml, rendered.yaml);
  writeFileSync(outputs.served, servedFile(rendered));
  writeFileSync(outputs.queryParameters, queryParametersFile(doc));
  await writeEndpointsTable();
  process.stdout.write(
    `wrote ${outputs.yaml.pathname} (${rendered.yaml.length} bytes), ${outputs.served.pathname}, ${outputs.queryParameters.pathname} and the endpoint table of ${apiDoc.pathname}\n`,
  );
}

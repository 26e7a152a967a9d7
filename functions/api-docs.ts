import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isNotModified } from '../lib/http/conditional.ts';
import { NOSNIFF } from '../lib/http/nosniff.ts';
import { unknownQueryAnswer } from '../lib/http/strict-query.ts';
import { etags, servedDocument } from '../lib/openapi/documents.ts';

const documents = {
  yaml: { format: 'yaml', etag: etags.yaml, contentType: 'application/yaml; charset=utf-8' },
  json: { format: 'json', etag: etags.json, contentType: 'application/json; charset=utf-8' },
} as const;

/**
 * `GET /api-docs/v1/swagger.yaml` and `.json`, without authentication: the OpenAPI document,
 * rendered at build time by `npm run openapi` (the generator is far too heavy for a Lambda) and
 * shipped brotli-compressed (lib/openapi/documents.ts), opened once per container and answered as
 * text. API Gateway compresses it on the wire for a client that asks (lib/http/gateway-compression.ts),
 * hence `Vary: Accept-Encoding`, which API Gateway does not add. Cacheable; a matching `If-None-Match` answers 304. Any query parameter is 422 (the document lists none).
 */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  // It lists no query parameter: any is 422, with the header that lets a web page read the answer.
  const refused = unknownQueryAnswer(event, { 'Access-Control-Allow-Origin': '*' });
  if (refused) return refused;
  const doc = event.resource.endsWith('.json') ? documents.json : documents.yaml;
  const headers = {
    'Content-Type': doc.contentType,
    'Cache-Control': 'public, max-age=300',
    ETag: doc.etag,
    Vary: 'Accept-Encoding',
    'Access-Control-Allow-Origin': '*',
    ...NOSNIFF,
  };
  if (isNotModified(event, doc.etag)) return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: servedDocument(doc.format) };
};

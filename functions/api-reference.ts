import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { referenceFile } from '../lib/api-reference/files.ts';
import { referencePagePolicy } from '../lib/api-reference/page.ts';
import { isNotModified } from '../lib/http/conditional.ts';
import { NOSNIFF } from '../lib/http/nosniff.ts';
import { unknownQueryAnswer } from '../lib/http/strict-query.ts';

/**
 * `GET /api-docs` and `GET /api-docs/assets/<file>`, without authentication: the interactive API
 * reference (Swagger UI rendering `/api-docs/v1/swagger.json`) and the files it loads, all served
 * by the service itself (lib/api-reference/). Cacheable; a matching `If-None-Match` answers 304.
 * API Gateway compresses them on the wire for a client that asks (lib/http/gateway-compression.ts),
 * hence `Vary: Accept-Encoding`, which it does not add itself.
 */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  // `/api-docs/`, as people type it (API Gateway hands it to the `/api-docs` resource): the page's
  // own address, so that its relative links resolve as written. The stage's prefix is kept.
  if (event.path.endsWith('/') && event.resource === '/api-docs') {
    const path = (event.requestContext?.path ?? event.path).replace(/\/+$/, '');
    return { statusCode: 301, headers: { Location: path, 'Cache-Control': 'public, max-age=300', ...NOSNIFF }, body: '' };
  }
  // The page and its files list no query parameter: any is 422 (lib/http/strict-query.ts).
  const refused = unknownQueryAnswer(event);
  if (refused) return refused;
  const file = referenceFile(event.resource);
  if (!file) throw new Error(`no API reference file for ${event.resource}`);
  const headers = {
    'Content-Type': file.contentType,
    'Cache-Control': 'public, max-age=300',
    ETag: file.etag,
    Vary: 'Accept-Encoding',
    ...NOSNIFF,
    ...(event.resource === '/api-docs' ? { 'Content-Security-Policy': referencePagePolicy } : {}),
  };
  if (isNotModified(event, file.etag)) return { statusCode: 304, headers, body: '' };
  return { statusCode: 200, headers, body: file.body };
};

import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isNotModified } from '../lib/http/conditional.ts';
import { preferredCoding } from '../lib/http/content-encoding.ts';
import { unknownQueryAnswer } from '../lib/http/strict-query.ts';
import { documentEtag, encodedDocument, servedDocument } from '../lib/openapi/documents.ts';

const documents = {
  yaml: { format: 'yaml', contentType: 'application/yaml; charset=utf-8' },
  json: { format: 'json', contentType: 'application/json; charset=utf-8' },
} as const;

/** A request header, matched case-insensitively (API Gateway passes names as the client sent them). */
const header = (event: APIGatewayProxyEvent, name: string) =>
  Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1] ?? undefined;

/**
 * `GET /api-docs/v1/swagger.yaml` and `.json`, without authentication: the OpenAPI document,
 * rendered at build time by `npm run openapi` (the generator is far too heavy for a Lambda) and
 * shipped compressed with brotli and gzip (lib/openapi/served.ts). A client whose `Accept-Encoding`
 * takes one gets those bytes as they are (`Content-Encoding: br` or `gzip`, brotli preferred;
 * base64 in the Lambda answer, `isBase64Encoded`, which API Gateway turns back into bytes: the REST
 * API treats every media type as binary, infra/constructs/service-api.ts); any other gets the text.
 * Every answer varies by `Accept-Encoding` and has the ETag of its coding.
 * Cacheable; a matching `If-None-Match` answers 304. Any query parameter is 422 (the document lists none).
 */
export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  // It lists no query parameter: any is 422, with the header that lets a web page read the answer.
  const refused = unknownQueryAnswer(event, { 'Access-Control-Allow-Origin': '*' });
  if (refused) return refused;
  const doc = event.resource.endsWith('.json') ? documents.json : documents.yaml;
  const coding = preferredCoding(header(event, 'accept-encoding'));
  const etag = documentEtag(doc.format, coding);
  const headers = {
    'Content-Type': doc.contentType,
    'Cache-Control': 'public, max-age=300',
    ETag: etag,
    Vary: 'Accept-Encoding',
    'Access-Control-Allow-Origin': '*',
  };
  if (isNotModified(event, etag)) return { statusCode: 304, headers, body: '' };
  if (coding === undefined) return { statusCode: 200, headers, body: servedDocument(doc.format) };
  return {
    statusCode: 200,
    headers: { ...headers, 'Content-Encoding': coding },
    body: encodedDocument(doc.format, coding),
    isBase64Encoded: true,
  };
};

import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * Whether the request's `If-None-Match` names `etag` (or is `*`), so that a cacheable response
 * can be a 304 with no body. Header names are matched case-insensitively, as API Gateway passes
 * them as the client sent them.
 */
export function isNotModified(event: Pick<APIGatewayProxyEvent, 'headers'>, etag: string): boolean {
  const ifNoneMatch = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'if-none-match')?.[1];
  return ifNoneMatch?.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*') ?? false;
}

import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import operationQueries from '../openapi/query-parameters.json' with { type: 'json' };
import { NOSNIFF } from './nosniff.ts';

/**
 * Strict query parameters: a name the route does not know is 422, so that a misspelt filter
 * (`?label=bug`, `?Status=done`) is refused instead of silently answering everything. The names a
 * route knows are exactly the query parameters its OpenAPI operation lists, in the document's
 * order (`lib/openapi/query-parameters.json`, generated with the document by `npm run openapi`; a
 * plain map, so that no bundle loads the route table or zod for it). Names are case-sensitive.
 * Unknown body keys are refused too, by the body's schema (lib/schemas/common.ts: `closed`).
 */

/** `Unknown query parameter 'label' (known: page, per_page, cursor, status)`; `(known: none)` if it knows none. */
export function unknownQueryParameterMessage(name: string, known: readonly string[]): string {
  return `Unknown query parameter '${name}' (known: ${known.length > 0 ? known.join(', ') : 'none'})`;
}

const queryParameters: Readonly<Record<string, readonly string[]>> = operationQueries;

/** The names a route (`GET /api/v1/projects`, as in the route table) knows; none for a route not in the table. */
export function knownQueryParameters(method: string, resource: string): readonly string[] {
  return queryParameters[`${method} ${resource}`] ?? [];
}

/**
 * One message per query parameter of `event` its route does not know, in the order the request
 * gives them; empty when it knows them all. A name given twice counts once (which of its values a
 * route reads is unchanged: the last, as API Gateway's `queryStringParameters` holds it).
 */
export function unknownQueryParameters(
  event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource' | 'queryStringParameters'>,
): string[] {
  const names = Object.keys(event.queryStringParameters ?? {});
  if (names.length === 0) return [];
  const known = knownQueryParameters(event.httpMethod, event.resource);
  return names.filter((name) => !known.includes(name)).map((name) => unknownQueryParameterMessage(name, known));
}

/**
 * The 422 `{"errors": [...]}` for a request with unknown query parameters, for the handlers outside
 * the shared stack (the public documentation routes); undefined when there are none.
 */
export function unknownQueryAnswer(
  event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource' | 'queryStringParameters'>,
  headers: Record<string, string> = {},
): APIGatewayProxyResult | undefined {
  const errors = unknownQueryParameters(event);
  if (errors.length === 0) return undefined;
  return {
    statusCode: 422,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF, ...headers },
    body: JSON.stringify({ errors }),
  };
}

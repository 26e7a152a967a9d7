import { describe, expect, it } from 'vitest';
import {
  knownQueryParameters,
  unknownQueryAnswer,
  unknownQueryParameterMessage,
  unknownQueryParameters,
} from '../../lib/http/strict-query.ts';
import queryParameters from '../../lib/openapi/query-parameters.json' with { type: 'json' };
import { routes } from '../../lib/routes.ts';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;
const event = (resource: string, query: Record<string, string> | null, httpMethod = 'GET') => ({
  httpMethod,
  resource,
  queryStringParameters: query,
});
const issues = '/api/v1/projects/{project_id}/issues';

describe('the unknown query parameter message', () => {
  it('names the parameter in quotes and lists the known ones in the order given, or says none', () => {
    expect(unknownQueryParameterMessage('label', ['page', 'per_page', 'cursor', 'status'])).toBe(
      "Unknown query parameter 'label' (known: page, per_page, cursor, status)",
    );
    expect(unknownQueryParameterMessage('bogus', [])).toBe("Unknown query parameter 'bogus' (known: none)");
  });

  it('quotes the name as given, empty or odd', () => {
    expect(unknownQueryParameterMessage('', ['sprints'])).toBe("Unknown query parameter '' (known: sprints)");
    expect(unknownQueryParameterMessage("a'b c", [])).toBe("Unknown query parameter 'a'b c' (known: none)");
  });
});

describe('the query parameters a route knows', () => {
  it('are exactly the query parameters its OpenAPI operation lists, in the same order, for every row', () => {
    for (const r of routes) {
      const listed = ((doc.paths[r.path][r.method.toLowerCase()].parameters ?? []) as Json[])
        .filter((p) => p.in === 'query')
        .map((p) => p.name);
      expect(knownQueryParameters(r.method, r.path), `${r.method} ${r.path}`).toEqual(listed);
    }
    // Every entry of the map names a row (a stale map would fail here or above).
    const rows = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const key of Object.keys(queryParameters)) expect(rows.has(key), key).toBe(true);
  });

  it("are a list's paging first, then its filters", () => {
    expect(knownQueryParameters('GET', issues)).toEqual([
      'page',
      'per_page',
      'cursor',
      'status',
      'assignee_id',
      'parent_id',
      'q',
      'updated_since',
      'priority',
      'type',
      'due_before',
      'due_after',
      'labels',
      'fields',
    ]);
    expect(knownQueryParameters('GET', '/api/v1/projects/{project_id}/velocity')).toEqual(['sprints']);
    expect(knownQueryParameters('GET', '/api/v1/projects/{project_id}')).toEqual([]);
    expect(knownQueryParameters('POST', '/mcp')).toEqual(['read_only', 'delete']);
  });
});

describe('checking a request', () => {
  it('passes a request without a query, or with known names only', () => {
    expect(unknownQueryParameters(event(issues, null))).toEqual([]);
    expect(unknownQueryParameters(event(issues, {}))).toEqual([]);
    expect(unknownQueryParameters(event(issues, { page: '2', per_page: '5', status: 'todo', q: 'x' }))).toEqual([]);
  });

  it('refuses each unknown name once, in request order, case-sensitively', () => {
    const known =
      'page, per_page, cursor, status, assignee_id, parent_id, q, updated_since, priority, type, due_before, due_after, labels, fields';
    expect(unknownQueryParameters(event(issues, { label: 'bug', page: '1', Status: 'todo' }))).toEqual([
      `Unknown query parameter 'label' (known: ${known})`,
      `Unknown query parameter 'Status' (known: ${known})`,
    ]);
  });

  it('knows no parameter on a route whose operation lists none, whatever the method', () => {
    expect(unknownQueryParameters(event('/api/v1/projects', { page: '1' }, 'POST'))).toEqual([
      "Unknown query parameter 'page' (known: none)",
    ]);
    expect(unknownQueryParameters(event('/api/v1/projects', { page: '1' }))).toEqual([]);
  });

  it('answers a 422 with the errors body (for the routes outside the shared stack), or nothing', () => {
    expect(unknownQueryAnswer(event('/api-docs', null))).toBeUndefined();
    const answer = unknownQueryAnswer(event('/api-docs', { _: '1' }), { 'X-Extra': 'yes' });
    expect(answer?.statusCode).toBe(422);
    expect(answer?.headers).toMatchObject({ 'Content-Type': 'application/json; charset=utf-8', 'X-Extra': 'yes' });
    expect(JSON.parse(answer!.body)).toEqual({ errors: ["Unknown query parameter '_' (known: none)"] });
  });
});

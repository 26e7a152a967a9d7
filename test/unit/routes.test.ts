import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { HONOURS_IDEMPOTENCY_KEY } from '../../lib/http/idempotent-handler.ts';
import { repoRoot } from '../../infra/paths.ts';
import { routes } from '../../lib/routes.ts';

describe('the route table', () => {
  it('names each path variable once per level, as API Gateway requires of sibling resources', () => {
    // API Gateway refuses `/projects/{id}` beside `/projects/{project_id}/sprints`: one resource
    // tree, one variable name per parent. The local gateway would not notice; a deploy would fail.
    const variableAt = new Map<string, string>();
    const clashes: string[] = [];
    for (const route of routes) {
      const segments = route.path.split('/').filter(Boolean);
      segments.forEach((segment, i) => {
        if (!segment.startsWith('{')) return;
        const parent = `/${segments.slice(0, i).join('/')}`;
        const seen = variableAt.get(parent);
        if (seen === undefined) variableAt.set(parent, segment);
        else if (seen !== segment) clashes.push(`${parent}: ${seen} vs ${segment} (${route.method} ${route.path})`);
      });
    }
    expect(clashes).toEqual([]);
  });

  it('marks `secret` exactly the rows whose answer carries a token or a secret (no-store)', () => {
    const carries = (schema: unknown) => {
      const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
      return shape !== undefined && ('token' in shape || 'secret' in shape);
    };
    const wrong = routes
      .filter((r) => carries(r.operation.success.schema) !== (r.operation.secret === true))
      .map((r) => `${r.method} ${r.path}`);
    expect(wrong).toEqual([]);
    expect(routes.filter((r) => r.operation.secret).length).toBe(6);
  });

  it('has one row per method and path, and a distinct operationId per row', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = routes.map((r) => r.operation.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives Idempotency-Key (idempotentHandler) exactly to the rows that declare it', async () => {
    // The OpenAPI document promises the header where a row says `idempotent`; the handler decides
    // whether it is honoured. Every other handler takes routeHandler and leaves the code out.
    const wrong: string[] = [];
    for (const r of routes) {
      const { handler } = (await import(pathToFileURL(resolve(repoRoot, r.handler)).href)) as { handler: object };
      const honours = HONOURS_IDEMPOTENCY_KEY in handler;
      if (honours !== (r.operation.idempotent === true)) wrong.push(`${r.method} ${r.path} (${r.handler})`);
    }
    expect(wrong).toEqual([]);
    expect(routes.some((r) => r.operation.idempotent)).toBe(true);
  });

  it('derives the statuses that follow from a row: 422 for an unknown query parameter on every row, 404 for ids, 400/413/415/422 for a body, 400/409 for Idempotency-Key, 304 for a GET, 412 for a conditional write', () => {
    const errorsOf = (method: string, path: string) =>
      routes.find((r) => r.method === method && r.path === path)?.operation.errors;
    expect(errorsOf('GET', '/api/v1/me')).toEqual([304, 422]);
    expect(errorsOf('GET', '/api/v1/projects')).toEqual([304, 422]);
    expect(errorsOf('GET', '/api/v1/projects/{project_id}')).toEqual([304, 404, 422]);
    expect(errorsOf('POST', '/api/v1/projects')).toEqual([400, 409, 413, 415, 422]);
    expect(errorsOf('PUT', '/api/v1/comments/{id}')).toEqual([400, 403, 404, 412, 413, 415, 422]);
    expect(errorsOf('DELETE', '/api/v1/projects/{project_id}')).toEqual([403, 404, 412, 422]);
    expect(errorsOf('POST', '/api/v1/projects/{project_id}/sprints/{sprint_id}/activation')).toEqual([400, 404, 409, 412, 422]);
    expect(errorsOf('POST', '/mcp')).toEqual([400, 403, 406, 413, 415, 422]);
    // GET and DELETE /mcp answer nothing but 405 (their "success"), or the errors every row has.
    expect(errorsOf('GET', '/mcp')).toEqual([403, 422]);
    expect(errorsOf('DELETE', '/mcp')).toEqual([403, 422]);
    expect(routes.filter((r) => r.path === '/mcp' && r.method !== 'POST').map((r) => r.operation.success.status)).toEqual([
      405, 405,
    ]);
    expect(errorsOf('DELETE', '/api/v1/me/token')).toEqual([422]);
    expect(errorsOf('GET', '/api-docs')).toEqual([304, 422]);
    // OAuth's authorization endpoint must ignore parameters it does not know (RFC 6749 §3.1).
    const strict = routes.filter((r) => !r.operation.lenientQuery);
    expect(strict.filter((r) => !r.operation.errors.includes(422))).toEqual([]);
    expect(routes.filter((r) => r.operation.lenientQuery).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /oauth/authorize',
      'POST /oauth/authorize',
    ]);
    // The authorization server's rows list their own errors (OAuth's shape, or the page).
    expect(errorsOf('POST', '/oauth/token')).toEqual([400, 422]);
    expect(errorsOf('GET', '/oauth/authorize')).toEqual([302, 400]);
  });

  it('makes the OAuth rows public, and gives table access only to the authorization server (not its metadata)', () => {
    const oauth = routes.filter((r) => r.operation.tag === 'OAuth');
    expect(oauth.map((r) => `${r.method} ${r.path} ${r.auth} ${r.authServer === true}`)).toEqual([
      'GET /.well-known/oauth-protected-resource false false',
      'GET /.well-known/oauth-protected-resource/mcp false false',
      'GET /.well-known/oauth-authorization-server false false',
      'POST /oauth/register false true',
      'GET /oauth/authorize false true',
      'POST /oauth/authorize false true',
      'POST /oauth/token false true',
      'POST /oauth/revoke false true',
    ]);
    expect(routes.filter((r) => r.authServer && r.operation.tag !== 'OAuth')).toEqual([]);
  });

  it('marks as conditional (If-Match) exactly PATCH, PUT and DELETE of a resource (the organisation among them), the sprint transitions and a revert', () => {
    const conditional = routes.filter((r) => r.operation.conditional).map((r) => `${r.method} ${r.path}`);
    const expected = routes
      .filter(
        (r) =>
          (['PATCH', 'PUT', 'DELETE'].includes(r.method) &&
            (r.path.includes('{') || r.path === '/api/v1/organisation') &&
            // No version: a connection, watching an issue, a followed query.
            !/\/(github|watch)$|^\/api\/v1\/me\//.test(r.path)) ||
          /\/sprints\/\{sprint_id\}\/(activate|activation|complete|completion)$/.test(r.path) ||
          r.path === '/api/v1/activity/{activity_id}/revert',
      )
      .map((r) => `${r.method} ${r.path}`);
    expect(conditional).toEqual(expected);
    // … and DELETE of a relation (If-Match names its issue), of an attachment, of a trashed item (its purge), and a revert (its issue's); the organisation's PATCH and PUT; an issue's PATCH, PUT and DELETE by key
    expect(conditional.length).toBe(2 * 8 + 8 + 4 + 3 + 1 + 1 + 1 + 1 + 2 + 3);
  });

  it('gives GETs read-only access and every other method write access, unless a row says otherwise', () => {
    // A search with its selection in the body reads only.
    const readOnlyPosts = ['/mcp', '/api/v1/issues/search'];
    expect(routes.find((r) => r.method === 'POST' && r.path === '/api/v1/issues/search')?.access).toBe('read');
    for (const r of routes.filter((r) => !readOnlyPosts.includes(r.path))) {
      expect(`${r.method} ${r.path}: ${r.access}`).toBe(`${r.method} ${r.path}: ${r.method === 'GET' ? 'read' : 'write'}`);
    }
    expect(routes.find((r) => r.method === 'DELETE' && r.path === '/mcp')?.access).toBe('read');
  });
});

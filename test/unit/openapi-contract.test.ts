import { describe, expect, it } from 'vitest';
import { contractFor, toJsonSchema, type ObservedResponse } from '../support/contract.ts';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';

const contract = contractFor(buildOpenApiDocument());

const rateHeaders = {
  'X-RateLimit-Limit': '600',
  'X-RateLimit-Remaining': '599',
  'X-RateLimit-Reset': '1790000000',
  ETag: '"1-KV5jxMFyi1K6p9sWwaFj3s"',
};
const pageHeaders = {
  Link: '<http://x/api/v1/projects?page=1&per_page=25>; rel="first"',
  'X-Total-Count': '1',
  'X-Page': '1',
  'X-Per-Page': '25',
};

function response(status: number, body: unknown, headers: Record<string, string> = rateHeaders): ObservedResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  return {
    status,
    text,
    headers: new Headers({ ...(text ? { 'Content-Type': 'application/json; charset=utf-8' } : {}), ...headers }),
  };
}

const project = {
  id: 7,
  name: 'Apollo',
  prefix: 'APL',
  description: null,
  documentation_url: 'https://docs.example.com',
  production_url: null,
  github_repo_owner: null,
  github_repo_name: null,
  sprints_count: 0,
  created_at: '2026-11-21T09:30:00.000Z',
  updated_at: '2026-11-21T09:30:00.000Z',
};

const problems = (method: string, path: string, res: ObservedResponse, undeclaredRoute = false) =>
  contract.problems(method, path, res, { undeclaredRoute });

describe('the contract check', () => {
  it("compiles every header's and body's schema the document declares (ajv, strict), though a test file compiles only those it meets", () => {
    const declared = contract.operations.flatMap((o) =>
      [...o.responses.values()].map((r) => r.headers.length + (r.content?.size ?? 0)),
    );
    // And the gateway's own 404 {error} on an undeclared route.
    expect(contract.compileAll()).toBe(declared.reduce((a, b) => a + b, 0) + 1);
  });

  it('accepts responses that match the document', () => {
    expect(problems('GET', '/api/v1/projects/7', response(200, project))).toEqual([]);
    expect(problems('GET', '/api/v1/projects?per_page=25', response(200, [project], { ...rateHeaders, ...pageHeaders }))).toEqual(
      [],
    );
    expect(problems('POST', '/api/v1/projects', response(422, { errors: ['name is required'] }))).toEqual([]);
    expect(problems('DELETE', '/api/v1/projects/7', response(204, undefined))).toEqual([]);
    // The gateway's own 401 comes before any rate-limit bookkeeping.
    expect(problems('GET', '/api/v1/projects/7', response(401, { error: 'Missing or invalid API token' }, {}))).toEqual([]);
  });

  it('refuses an extra field, a renamed field, a missing one, a wrong type and a null where none is allowed', () => {
    const { name, ...withoutName } = project;
    const cases: [string, unknown, RegExp][] = [
      ['extra', { ...project, secret: 'x' }, /must NOT have additional properties \(secret\)/],
      ['renamed', { ...withoutName, title: name }, /must have required property 'name'/],
      ['missing nullable', (({ description: _d, ...p }) => p)(project), /required property 'description'/],
      ['wrong type', { ...project, id: '7' }, /body\/id must be integer/],
      ['null', { ...project, sprints_count: null }, /body\/sprints_count must be integer/],
      ['bad date-time', { ...project, created_at: 'yesterday' }, /body\/created_at must match format "date-time"/],
      ['bad prefix', { ...project, prefix: 'apollo' }, /body\/prefix must match pattern/],
    ];
    for (const [what, body, message] of cases) {
      const found = problems('GET', '/api/v1/projects/7', response(200, body));
      expect(found.join('\n'), what).toMatch(message);
    }
  });

  it('refuses a list item that breaks the resource schema', () => {
    const found = problems(
      'GET',
      '/api/v1/projects',
      response(200, [project, { ...project, id: null }], { ...rateHeaders, ...pageHeaders }),
    );
    expect(found).toEqual(['listProjects 200: body/1/id must be integer']);
  });

  it('refuses a status the operation does not declare', () => {
    expect(problems('GET', '/api/v1/projects/7', response(409, { error: 'conflict' }))).toEqual([
      expect.stringMatching(
        /^getProject answered 409, which it does not declare \(declared: 200, 304, 401, 404, 422, 429, 500, 503\)$/,
      ),
    ]);
  });

  it('refuses the wrong error shape: {error} where {errors} is declared and the reverse', () => {
    expect(problems('POST', '/api/v1/projects', response(422, { error: 'bad' })).join('\n')).toMatch(
      /required property 'errors'/,
    );
    expect(problems('GET', '/api/v1/projects/7', response(404, { errors: ['nope'] })).join('\n')).toMatch(
      /required property 'error'/,
    );
  });

  it('refuses a response without its required headers, or with a malformed one', () => {
    expect(problems('GET', '/api/v1/projects/7', response(200, project, {}))).toEqual([
      'getProject 200: header X-RateLimit-Limit is missing',
      'getProject 200: header X-RateLimit-Remaining is missing',
      'getProject 200: header X-RateLimit-Reset is missing',
      'getProject 200: header ETag is missing',
    ]);
    expect(problems('GET', '/api/v1/projects', response(200, [], rateHeaders)).join('\n')).toMatch(
      /header X-Total-Count is missing/,
    );
    expect(problems('GET', '/api/v1/projects/7', response(429, { error: 'slow down' }, {})).join('\n')).toMatch(
      /header Retry-After is missing/,
    );
    const bad = problems(
      'GET',
      '/api/v1/projects/7',
      response(200, project, { ...rateHeaders, 'X-RateLimit-Remaining': 'lots' }),
    );
    expect(bad.join('\n')).toMatch(/header X-RateLimit-Remaining: "lots" .*must be integer/);
  });

  it('refuses an undeclared media type, a body that is not JSON, and a body where none is declared', () => {
    const text = response(200, project);
    text.headers.set('Content-Type', 'text/plain');
    expect(problems('GET', '/api/v1/projects/7', text).join('\n')).toMatch(/Content-Type "text\/plain" is not declared/);
    expect(problems('GET', '/api/v1/projects/7', { ...response(200, project), text: '{not json' }).join('\n')).toMatch(
      /not JSON/,
    );
    expect(problems('DELETE', '/api/v1/projects/7', response(204, { deleted: true })).join('\n')).toMatch(/declares no body/);
  });

  it('refuses a route the document does not have, unless the test expects unknown routes, and then only a 404 {error} or a 405 with the path’s Allow', () => {
    const notFound = response(404, { error: 'No such route' }, {});
    expect(problems('GET', '/api/v1/nothing', notFound)).toEqual(['GET /api/v1/nothing is not an operation of the document']);
    expect(problems('DELETE', '/api/v1/me', notFound)).toEqual(['DELETE /api/v1/me is not an operation of the document']);
    expect(problems('GET', '/api/v1/nothing', notFound, true)).toEqual([]);
    expect(problems('GET', '/api/v1/nothing', response(200, {}, {}), true)).toEqual([
      'an undeclared route answered 200, not 404 or 405',
    ]);
    const notAllowed = (allow: string) => {
      const res = response(405, { error: 'PATCH is not a method of this path; it allows GET' }, {});
      res.headers.set('Allow', allow);
      return res;
    };
    expect(problems('DELETE', '/api/v1/me', notAllowed('GET, PATCH'), true)).toEqual([]);
    expect(problems('DELETE', '/api/v1/me', notAllowed('GET, POST'), true)).toEqual([
      'a 405 with Allow GET, POST, not GET, PATCH',
    ]);
    expect(problems('PATCH', '/api/v1/nothing', notAllowed('GET'), true)).toEqual(['a 405 with Allow GET, not 404']);
  });

  it('finds operations by path template as the gateway does, literal segments first', () => {
    expect(contract.operationFor('GET', '/api/v1/projects/12?x=1')?.id).toBe('getProject');
    expect(contract.operationFor('PUT', '/api/v1/projects/12')?.id).toBe('replaceProject');
    expect(contract.operationFor('PATCH', '/api/v1/projects/12')?.id).toBe('updateProject');
    expect(contract.operationFor('GET', '/api/v1/projects/12/nothing')).toBeUndefined();
  });

  it('reads OpenAPI 3.0 nullable as JSON Schema null', () => {
    expect(toJsonSchema({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] });
    expect(toJsonSchema({ type: 'string', enum: ['a'], nullable: true })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(toJsonSchema({ allOf: [{ $ref: '#/components/schemas/X' }], nullable: true })).toEqual({
      anyOf: [{ allOf: [{ $ref: 'openapi.json#/definitions/X' }] }, { type: 'null' }],
    });
    expect(toJsonSchema({ nullable: true, example: 1 })).toEqual({});
  });
});

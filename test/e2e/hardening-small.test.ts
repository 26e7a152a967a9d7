/**
 * Small defects an attacker found on loopback, each answered as the service means to: a deeply
 * nested body, a token header sent twice, a forged `Host`, bytes that are not UTF-8, a query value
 * that names an inherited property, and the `nosniff` header on every kind of answer. Raw HTTP
 * (node:http) where fetch would not send the request as written (a repeated header, a `Host`).
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../lib/vocabulary/nesting.ts';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';

const gateway = useGateway();

/** A request sent exactly as written: `headers` as raw name/value pairs (a name may repeat), the body as bytes. */
function rawRequest(method: string, path: string, headers: [string, string][], body?: Buffer | string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
    (resolve, reject) => {
      // Raw headers get no default Host: the gateway's own, unless the test forges one.
      const host: [string, string][] = headers.some(([name]) => name.toLowerCase() === 'host')
        ? []
        : [['Host', new URL(gateway.baseUrl).host]];
      const req = httpRequest(`${gateway.baseUrl}${path}`, { method, headers: [...host, ...headers].flat() }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    },
  );
}

/** `{"and": [{"or": [{"and": [...]}, leaf]}, ...]}`: groups `levels` deep, about two levels of JSON each. */
function nestedSelection(levels: number): unknown {
  let c: unknown = { type: { in: ['bug'] } };
  for (let i = 0; i < levels; i++) c = { [i % 2 ? 'and' : 'or']: [c, { points: { gte: 1 } }] };
  return { and: [c] };
}

describe('a body nested deeper than the limit', () => {
  it(`is 422 naming the limit (${MAX_NESTING}) before any validation, for a search ~700 deep and one just over`, async () => {
    const { admin } = await orgWithClients(gateway);
    for (const levels of [700, MAX_NESTING / 2]) {
      const res = await admin.post('/api/v1/issues/search', nestedSelection(levels));
      expect(res.status, res.text).toBe(422);
      expect(res.body.errors).toEqual([
        `body nests objects and arrays more than ${MAX_NESTING} deep (at most ${MAX_NESTING} levels)`,
      ]);
    }
    // Brackets inside a string are text, not nesting; and every valid selection fits.
    const text = await admin.post('/api/v1/issues/search', { and: [{ title: { contains: '['.repeat(100) } }] });
    expect(text.status, text.text).toBe(200);
    const five = await admin.post('/api/v1/issues/search', nestedSelection(4));
    expect(five.status, five.text).toBe(200);
  });

  it('is 422 on any route with a body, and nothing is written', async () => {
    const { admin } = await orgWithClients(gateway);
    // Written out: JSON.stringify itself recurses once per level.
    const name = `${'['.repeat(5000)}"x"${']'.repeat(5000)}`;
    const raw = `{"project": {"name": ${name}, "prefix": "${randomPrefix()}"}}`;
    const res = await admin.post('/api/v1/projects', undefined, { raw, headers: { 'Content-Type': 'application/json' } });
    expect(res.status, res.text).toBe(422);
    expect((await admin.get('/api/v1/projects')).body).toEqual([]);
    // `/mcp` reads its JSON-RPC body the same way before the SDK parses it.
    const mcp = await admin.request('POST', '/mcp', {
      raw: `{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "search_issues", "arguments": {"q": ${name}}}}`,
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    });
    expect(mcp.status, mcp.text).toBe(422);
    expect(mcp.body.errors).toEqual([
      `body nests objects and arrays more than ${MAX_NESTING} deep (at most ${MAX_NESTING} levels)`,
    ]);
  });

  it('in a query (a webhook filter, the same grammar), parentheses past the limit are 422, never a 5xx', async () => {
    const { admin } = await orgWithClients(gateway);
    const deep = `${'('.repeat(MAX_NESTING + 1)}type:bug${')'.repeat(MAX_NESTING + 1)}`;
    const res = await admin.post('/api/v1/webhooks', {
      webhook: { url: 'http://127.0.0.1:65535/in', events: ['*'], filter: deep },
    });
    expect(res.status, res.text).toBe(422);
    expect(res.body.errors).toEqual([
      `filter: at ${MAX_NESTING + 1}: parentheses nested more than ${MAX_NESTING} deep (at most ${MAX_NESTING})`,
    ]);
    const search = await admin.get(`/api/v1/issues?q=${encodeURIComponent(deep)}`);
    expect(search.status).toBe(422);
  });
});

describe('a token header sent twice', () => {
  it('is 401, whichever header repeats and whatever the copies carry; one of each still passes', async () => {
    const { org } = await orgWithClients(gateway);
    const token = org.admin.token;
    const other = org.member.token;
    const twice: [string, string][][] = [
      [
        ['Authorization', `Bearer ${other}`],
        ['Authorization', `Bearer ${token}`],
      ],
      [
        ['Authorization', `Bearer ${token}`],
        ['Authorization', `Bearer ${token}`],
      ],
      [
        ['X-API-Token', other],
        ['X-API-Token', token],
        ['Authorization', `Bearer ${token}`],
      ],
      [
        ['Authorization', `Bearer ${token}`],
        ['authorization', `Bearer ${other}`],
      ],
    ];
    for (const headers of twice) {
      const res = await rawRequest('GET', '/api/v1/me', headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 401 });
    }
    const both = await rawRequest('GET', '/api/v1/me', [
      ['Authorization', `Bearer ${token}`],
      ['X-API-Token', token],
    ]);
    expect(both.status).toBe(200);
    expect(JSON.parse(both.text)).toMatchObject({ account: { id: org.admin.id } });
  });
});

describe('a forged Host', () => {
  it("never reaches a Link: pagination links are the configured base URL's", async () => {
    const { org, admin } = await orgWithClients(gateway);
    for (const name of ['One', 'Two']) await admin.post('/api/v1/projects', { project: { name, prefix: randomPrefix() } });
    const res = await rawRequest('GET', '/api/v1/projects?per_page=1', [
      ['Host', 'evil.example'],
      ['X-Forwarded-Proto', 'javascript'],
      ['Authorization', `Bearer ${org.admin.token}`],
    ]);
    expect(res.status, res.text).toBe(200);
    const link = String(res.headers.link);
    expect(link).not.toContain('evil.example');
    expect(link).not.toContain('javascript');
    expect(link).toContain(`<${gateway.baseUrl}/api/v1/projects?page=2&per_page=1&cursor=`);
  });
});

describe('a body that is not UTF-8', () => {
  it('is 400 with or without charset=utf-8, and nothing is written', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const prefix = randomPrefix();
    // "caf\xe9" in ISO-8859-1: the byte 0xE9 alone is no UTF-8.
    const body = Buffer.concat([
      Buffer.from(`{"project": {"name": "caf`),
      Buffer.from([0xe9]),
      Buffer.from(`", "prefix": "${prefix}"}}`),
    ]);
    for (const type of ['application/json', 'application/json; charset=utf-8']) {
      const res = await rawRequest(
        'POST',
        '/api/v1/projects',
        [
          ['Authorization', `Bearer ${org.admin.token}`],
          ['Content-Type', type],
        ],
        body,
      );
      expect(res.status, res.text).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        error: 'Request body is not valid UTF-8: send JSON in UTF-8, with charset=utf-8 or no charset',
      });
    }
    expect((await admin.get('/api/v1/projects')).body).toEqual([]);
    const mcp = await rawRequest(
      'POST',
      '/mcp',
      [
        ['Authorization', `Bearer ${org.admin.token}`],
        ['Content-Type', 'application/json'],
        ['Accept', 'application/json, text/event-stream'],
      ],
      Buffer.concat([
        Buffer.from('{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "x": "'),
        Buffer.from([0xff]),
        Buffer.from('"}'),
      ]),
    );
    expect(mcp.status, mcp.text).toBe(400);
    // The same name in UTF-8 is taken as written.
    const good = await admin.post('/api/v1/projects', { project: { name: 'café', prefix } });
    expect(good.status).toBe(201);
    expect(good.body.name).toBe('café');
  });
});

describe('a query value that names an inherited property', () => {
  it('is 422 like any unknown value', async () => {
    const { admin } = await orgWithClients(gateway);
    for (const value of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const res = await admin.get(`/api/v1/issues?q=${encodeURIComponent(`category:${value}`)}`);
      expect({ value, status: res.status }).toEqual({ value, status: 422 });
      expect(res.body.errors[0]).toContain(`unknown category '${value}'`);
    }
    // A query parameter (or header) named `__proto__` is a name like any other: here an unknown one.
    const named = await admin.get('/api/v1/projects?__proto__=1');
    expect(named.status, named.text).toBe(422);
    expect(named.body.errors).toEqual(["Unknown query parameter '__proto__' (known: page, per_page, cursor)"]);
  });
});

describe('X-Content-Type-Options: nosniff', () => {
  it('is on every kind of answer: the stack, its errors, the gateway, the documents, the reference page, OAuth and MCP', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const answers = {
      'a read': await admin.get('/api/v1/me'),
      'a list': await admin.get('/api/v1/projects'),
      'a 422': await admin.post('/api/v1/projects', { project: {} }),
      'a 404 of the stack': await admin.get('/api/v1/projects/999999'),
      "the gateway's 401": await admin.get('/api/v1/me', { token: null }),
      'the OpenAPI document': await admin.get('/api-docs/v1/swagger.json', { token: null }),
      'the reference page': await admin.get('/api-docs', { token: null }),
      'an unknown query on the documents': await admin.get('/api-docs/v1/swagger.yaml?x=1', { token: null }),
      'OAuth metadata': await admin.get('/.well-known/oauth-authorization-server', { token: null }),
      "OAuth's error": await admin.post('/oauth/token', undefined, { token: null, raw: 'grant_type=x' }),
      MCP: await admin.request('POST', '/mcp', {
        json: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        headers: { Accept: 'application/json, text/event-stream' },
        token: org.admin.token,
      }),
    };
    const missing = Object.entries(answers)
      .filter(([, res]) => res.headers.get('x-content-type-options') !== 'nosniff')
      .map(([what, res]) => `${what} (${res.status})`);
    expect(missing).toEqual([]);
    expect(answers['a read'].status).toBe(200);
    expect(answers["the gateway's 401"].status).toBe(401);
    // A path with no route: API Gateway's own 404 (no contract to hold it against).
    const noRoute = await rawRequest('GET', '/no/such/route', []);
    expect(noRoute.status).toBe(404);
    expect(noRoute.headers['x-content-type-options']).toBe('nosniff');
    // A method the path does not have: the gateway's 405 with Allow.
    const noMethod = await rawRequest('DELETE', '/api/v1/me/issues', []);
    expect(noMethod.status).toBe(405);
    expect(noMethod.headers['x-content-type-options']).toBe('nosniff');
    expect(answers.MCP.status).toBe(200);
  });
});

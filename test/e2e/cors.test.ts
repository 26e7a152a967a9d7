import { describe, expect, it, vi } from 'vitest';
import { EXPOSED_HEADERS } from '../../lib/http/cors.ts';
import { orgWithClients, useGateway } from '../support/api.ts';

// Before any module loads: the handlers read their allowed origins once, at load (as in Lambda).
vi.hoisted(() => {
  process.env.CORS_ORIGINS = 'https://app.example.com';
});

const gateway = useGateway();
const app = 'https://app.example.com';
const elsewhere = 'https://evil.example.com';

/**
 * A preflight as a browser sends it: straight to the gateway, not through the API client, whose
 * contract check knows only the operations of the OpenAPI document (a preflight is none).
 */
async function preflight(path: string, headers: Record<string, string>) {
  const res = await fetch(`${gateway.baseUrl}${path}`, { method: 'OPTIONS', headers });
  return { status: res.status, headers: res.headers, text: await res.text(), dbCalls: Number(res.headers.get('x-db-calls')) };
}

/** What a browser checks on an answer to a script of `app`. */
function expectReadableBy(res: { headers: Headers }, origin: string, label: string) {
  expect(res.headers.get('access-control-allow-origin'), label).toBe(origin);
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
  for (const name of [
    'Link',
    'X-Total-Count',
    'X-Page',
    'X-Per-Page',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    'Retry-After',
    'ETag',
  ]) {
    expect(exposed, `${label}: ${name}`).toContain(name);
  }
}

describe('CORS through the local gateway', () => {
  it('answers a preflight itself, without the authorizer: 204 with the methods and headers a client sends', async () => {
    const res = await preflight('/api/v1/projects/1/sprints/2/issues/3', {
      Origin: app,
      'Access-Control-Request-Method': 'PATCH',
      'Access-Control-Request-Headers': 'authorization, if-match',
    });
    expect(res.status).toBe(204);
    expect(res.dbCalls).toBe(0);
    expect(res.headers.get('access-control-allow-origin')).toBe(app);
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    for (const name of ['Authorization', 'X-API-Token', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-None-Match']) {
      expect(res.headers.get('access-control-allow-headers')).toContain(name);
    }
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('leaves the allow headers out of a preflight from another origin, and answers 404 for a path with no route, 405 for a method', async () => {
    const other = await preflight('/api/v1/projects', { Origin: elsewhere });
    expect(other.status).toBe(204);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const nowhere = await preflight('/api/v1/nowhere', { Origin: app });
    expect(nowhere.status).toBe(404);
    expectReadableBy(nowhere, app, 'no such route');
    // A method the path does not have: the gateway's 405, readable too (its Allow with it).
    const notAllowed = await fetch(`${gateway.baseUrl}/api/v1/me/issues`, { method: 'DELETE', headers: { Origin: app } });
    expect([notAllowed.status, notAllowed.headers.get('allow')]).toEqual([405, 'GET']);
    expectReadableBy(notAllowed, app, 'no such method');
  });

  it('lets an allowed origin read every answer and the headers it needs, errors included', async () => {
    const { admin } = await orgWithClients(gateway);
    const headers = { Origin: app };
    const list = await admin.get('/api/v1/projects', { headers });
    expect(list.status).toBe(200);
    expectReadableBy(list, app, 'a list');
    const missing = await admin.get('/api/v1/projects/999999999', { headers });
    expect(missing.status).toBe(404);
    expectReadableBy(missing, app, "the function's 404");
    const invalid = await admin.post('/api/v1/projects', { project: {} }, { headers });
    expect(invalid.status).toBe(422);
    expectReadableBy(invalid, app, "the function's 422");
    const anonymous = await admin.get('/api/v1/projects', { headers, token: null });
    expect(anonymous.status).toBe(401);
    expectReadableBy(anonymous, app, "the gateway's own 401");
    const notModified = await admin.get('/api/v1/projects', {
      headers: { ...headers, 'If-None-Match': list.headers.get('etag') ?? '' },
    });
    expect(notModified.status).toBe(304);
    expectReadableBy(notModified, app, 'a 304');
    expect(EXPOSED_HEADERS).toContain('ETag');
  });

  it('gives another origin no CORS headers, so that its scripts cannot read the answer', async () => {
    const { admin } = await orgWithClients(gateway);
    const res = await admin.get('/api/v1/projects', { headers: { Origin: elsewhere } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toContain('Origin');
  });
});

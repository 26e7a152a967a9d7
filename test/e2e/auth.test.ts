import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../lib/model/tokens.ts';
import { routes } from '../../lib/routes.ts';
import { apiClient, newOrganisation, responseObservers, startGateway } from '../support/api.ts';
import { allowUndeclaredRoutes } from '../support/contract.ts';
import { expectErrorShape } from '../support/error-bodies.ts';

let gateway: Awaited<ReturnType<typeof startGateway>>;
beforeAll(async () => {
  gateway = await startGateway();
  responseObservers.push(expectErrorShape);
});
afterAll(async () => {
  responseObservers.splice(responseObservers.indexOf(expectErrorShape), 1);
  await gateway.close();
});

/** A client that sends exactly the headers given, and no token of its own. */
const anonymous = () => apiClient(gateway.baseUrl);
const me = (headers: Record<string, string>) => anonymous().get('/api/v1/me', { headers });

describe('authentication', () => {
  it('accepts the token as Authorization: Bearer', async () => {
    const org = await newOrganisation();
    const res = await me({ Authorization: `Bearer ${org.admin.token}` });
    expect(res.status).toBe(200);
    expect(res.body.account.id).toBe(org.admin.id);
  });

  it('accepts the token as X-API-Token', async () => {
    const org = await newOrganisation();
    const res = await me({ 'X-API-Token': org.member.token });
    expect(res.status).toBe(200);
    expect(res.body.account.id).toBe(org.member.id);
  });

  it('accepts both headers when they carry the same token', async () => {
    const org = await newOrganisation();
    const res = await me({ Authorization: `Bearer ${org.admin.token}`, 'X-API-Token': org.admin.token });
    expect(res.status).toBe(200);
    expect(res.body.account.id).toBe(org.admin.id);
  });

  it('refuses both headers carrying different tokens, even when each is valid on its own', async () => {
    const org = await newOrganisation();
    for (const headers of [
      { Authorization: `Bearer ${org.admin.token}`, 'X-API-Token': org.member.token },
      { Authorization: `Bearer ${org.member.token}`, 'X-API-Token': org.admin.token },
      { Authorization: `Bearer ${org.admin.token}`, 'X-API-Token': generateToken() },
    ]) {
      const res = await me(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
  });

  it('answers 401 {error} without a token', async () => {
    const res = await anonymous().get('/api/v1/me');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers 401 for an unknown token, without a DynamoDB call for one that is not even shaped like a token', async () => {
    const unknown = await me({ Authorization: `Bearer ${generateToken()}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: expect.any(String) });
    for (const garbage of ['nope', 'stk_', `stk_${'a'.repeat(42)}`, `${generateToken()}x`]) {
      const res = await me({ Authorization: `Bearer ${garbage}` });
      expect(res.status, garbage).toBe(401);
      expect(res.dbCalls, garbage).toBe(0);
    }
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const org = await newOrganisation();
    for (const value of [
      org.admin.token,
      `Basic ${org.admin.token}`,
      `Token ${org.admin.token}`,
      'Bearer',
      `Bearer ${org.admin.token} x`,
    ]) {
      const res = await me({ Authorization: value });
      expect(res.status, value).toBe(401);
    }
    // A usable X-API-Token does not rescue a malformed Authorization header.
    expect((await me({ Authorization: `Basic ${org.admin.token}`, 'X-API-Token': org.admin.token })).status).toBe(401);
  });

  it('answers 401 for a revoked token', async () => {
    const org = await newOrganisation();
    const client = apiClient(gateway.baseUrl, org.member.token);
    expect((await client.delete('/api/v1/me/token')).status).toBe(204);
    for (const headers of [{ Authorization: `Bearer ${org.member.token}` }, { 'X-API-Token': org.member.token }] as Record<
      string,
      string
    >[]) {
      const res = await me(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await me({ Authorization: `Bearer ${org.admin.token}` })).status).toBe(200);
  });

  it('guards every authenticated route, before looking at the path or the body', async () => {
    const client = anonymous();
    const authenticated = routes.filter((r) => r.auth);
    expect(authenticated.length).toBeGreaterThan(0);
    for (const route of authenticated) {
      const path = route.path.replace(/\{\w+\+?\}/g, '1');
      const res = await client.request(route.method, path, {
        raw: route.method === 'GET' ? undefined : '{not json',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${generateToken()}` },
      });
      expect(res.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it('answers 404 {error} for a path it does not have, token or not', async () => {
    allowUndeclaredRoutes();
    const org = await newOrganisation();
    const client = apiClient(gateway.baseUrl, org.admin.token);
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/api/v1'],
      ['GET', '/api/v1/nothing-here'],
      ['GET', '/api/v2/projects'],
      ['GET', '/api/v1/projects/'],
      ['DELETE', '/api/v1/projects/1/nothing'],
      ['GET', '/api/v1/me/token/extra'],
    ] as const) {
      for (const token of [org.admin.token, null]) {
        const res = await client.request(method, path, { token });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body).toEqual({ error: 'No such route' });
        expect(res.headers.get('allow')).toBeNull();
      }
    }
  });

  it('answers 405 {error} with Allow for a method a path does not have, token or not, before the authorizer', async () => {
    allowUndeclaredRoutes();
    const org = await newOrganisation();
    const client = apiClient(gateway.baseUrl, org.admin.token);
    for (const [method, path, allow] of [
      ['DELETE', '/api/v1/me/issues', 'GET'],
      ['DELETE', '/api/v1/me', 'GET, PATCH'],
      ['DELETE', '/api/v1/accounts', 'GET, POST'],
      ['POST', '/api/v1/projects/12', 'GET, PUT, PATCH, DELETE'],
      ['GET', '/api/v1/projects/12/sprints/3/activate', 'POST'],
      ['PUT', '/api/v1/webhooks/9/deliveries', 'GET'],
      ['POST', '/api-docs', 'GET'],
    ] as const) {
      for (const token of [org.admin.token, null]) {
        const body = method === 'GET' ? {} : { raw: '{}', headers: { 'Content-Type': 'application/json' } };
        const res = await client.request(method, path, { token, ...body });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect(res.body).toEqual({ error: `${method} is not a method of this path; it allows ${allow}` });
        expect(Number(res.headers.get('x-db-calls')), 'the authorizer does not run').toBe(0);
      }
    }
  });
});

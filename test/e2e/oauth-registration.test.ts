import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { registerClient } from '../../lib/services/oauth-grants.ts';
import { UNUSED_CLIENT_SECONDS } from '../../lib/model/oauth.ts';
import { apiClient, newOrganisation, useGateway } from '../support/api.ts';
import { authorizeOverHttp, pkcePair, postForm } from '../support/oauth.ts';

/**
 * Dynamic registration is open to anyone: it is counted per source address (a limit an hour), and
 * a client nobody uses to get a token goes after a day (TTL). The limit is the test's own, set
 * before the handlers first read their configuration (the rest of the suite runs with a high one).
 */
const saved = process.env.OAUTH_REGISTRATION_LIMIT;
const LIMIT = 3;
process.env.OAUTH_REGISTRATION_LIMIT = String(LIMIT);
afterAll(() => {
  if (saved === undefined) delete process.env.OAUTH_REGISTRATION_LIMIT;
  else process.env.OAUTH_REGISTRATION_LIMIT = saved;
});

const gateway = useGateway();
const body = { client_name: 'Flood', redirect_uris: ['http://127.0.0.1:9/callback'] };
const clientItem = async (clientId: string) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.oauthClient(clientId), ConsistentRead: true }))).Item;

describe('client registration, per source address', () => {
  it('refuses registrations past the hourly limit of one address with 429, Retry-After and an OAuth error', async () => {
    // The suite's other files register from 127.0.0.1 too, in this hour: the limit is reached
    // within LIMIT + 1 registrations whatever they counted already.
    const answers = [];
    for (let i = 0; i <= LIMIT; i++) {
      const res = await apiClient(gateway.baseUrl).post('/oauth/register', body, { token: null });
      answers.push(res);
      if (res.status === 429) break;
    }
    const refused = answers.at(-1)!;
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: 'slow_down',
      error_description: expect.stringMatching(/^Too many client registrations from this address \(3 an hour\)/),
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    // Still refused: nothing was registered by the refused ones.
    expect((await apiClient(gateway.baseUrl).post('/oauth/register', body, { token: null })).status).toBe(429);
  });

  it('counts each address on its own, and each hour afresh', async () => {
    const address = `192.0.2.${Math.floor(Math.random() * 250) + 1}-${Date.now()}`;
    const now = Date.UTC(2026, 0, 1, 10, 30);
    for (let i = 0; i < 2; i++) await registerClient(body, address, 2, now);
    await expect(registerClient(body, address, 2, now)).rejects.toMatchObject({
      status: 429,
      error: 'slow_down',
      retryAfterSeconds: 1800,
    });
    await expect(registerClient(body, `${address}-other`, 2, now)).resolves.toMatchObject({ client_name: 'Flood' });
    await expect(registerClient(body, address, 2, now + 1800_000)).resolves.toMatchObject({ client_name: 'Flood' });
  });
});

describe('a registered client', () => {
  it('expires a day after its registration unless it is used to get a token, and is unknown once expired', async () => {
    const address = `198.51.100.1-${Date.now()}`;
    const now = Date.now();
    const unused = await registerClient(body, address, 10, now);
    expect((await clientItem(unused.client_id))?.expires_at).toBe(Math.floor(now / 1000) + UNUSED_CLIENT_SECONDS);

    const used = await registerClient(body, address, 10, now);
    const org = await newOrganisation();
    const client = { clientId: used.client_id, redirectUri: body.redirect_uris[0]! };
    const flow = await authorizeOverHttp(gateway.baseUrl, client, { token: org.admin.token });
    expect(flow.code).toBeTruthy();
    const tokens = await postForm(gateway.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: used.client_id,
      code: flow.code!,
      code_verifier: flow.verifier,
    });
    expect(tokens.status).toBe(200);
    expect((await clientItem(used.client_id))?.expires_at).toBeUndefined();

    // One whose day is over (before DynamoDB's TTL removes it) is unknown to the page.
    const old = await registerClient(body, address, 10, now - (UNUSED_CLIENT_SECONDS + 60) * 1000);
    const page = await fetch(
      `${gateway.baseUrl}/oauth/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: old.client_id,
        redirect_uri: body.redirect_uris[0]!,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      })}`,
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Unknown client');
  });
});

import { describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient, type ApiResponse } from '../support/api.ts';

/**
 * Answers that carry a token or a secret (shown once) must not be kept by a browser or a proxy:
 * `Cache-Control: no-store`. A token answer has no ETag (nothing to revalidate); a resource answered
 * with its secret (a webhook) has the ETag of the resource as a GET shows it, secret left out, so
 * that `If-Match` works at once and no header fingerprints the secret. Every row of the route table
 * marked `secret` is requested here, through the gateway.
 */

const gateway = useGateway();

/** One request per secret-bearing operation, made by an admin of a fresh organisation. */
const requests: Record<string, (admin: ApiClient) => Promise<ApiResponse>> = {
  createAccount: (admin) => admin.post('/api/v1/accounts', { account: { name: 'New', email: `n-${Date.now()}@example.com` } }),
  regenerateToken: (admin) => admin.post('/api/v1/me/token'),
  createWebhook: (admin) => admin.post('/api/v1/webhooks', { webhook: { url: 'http://127.0.0.1:9999/hook', events: ['*'] } }),
  rotateWebhookSecret: async (admin) => {
    const created = await admin.post('/api/v1/webhooks', { webhook: { url: 'http://127.0.0.1:9999/hook', events: ['*'] } });
    return admin.post(`/api/v1/webhooks/${created.body.id}/secret`);
  },
  connectGitHubRepository: async (admin) => {
    const project = await admin.post('/api/v1/projects', { project: { name: 'Hooked', prefix: randomPrefix() } });
    return admin.put(`/api/v1/projects/${project.body.id}/github`, { github: { repository: `secret-${randomPrefix()}/repo` } });
  },
  rotateGitHubSecret: async (admin) => {
    const project = await admin.post('/api/v1/projects', { project: { name: 'Hooked', prefix: randomPrefix() } });
    await admin.put(`/api/v1/projects/${project.body.id}/github`, { github: { repository: `secret-${randomPrefix()}/repo` } });
    return admin.post(`/api/v1/projects/${project.body.id}/github/secret`);
  },
};

describe('answers that carry a token or a secret', () => {
  it('are exactly the rows of the route table marked `secret`, each requested below', () => {
    const secretRows = routes.filter((r) => r.operation.secret).map((r) => r.operation.id);
    expect(secretRows.sort()).toEqual(Object.keys(requests).sort());
  });

  // Answers with no ETag: a token, and a GitHub connection (it has no version).
  const tokenAnswers = ['createAccount', 'regenerateToken', 'connectGitHubRepository', 'rotateGitHubSecret'];

  it.each(Object.keys(requests))(
    '%s answers no-store',
    async (id) => {
      // A fresh admin each time: regenerating the token retires the one the client holds.
      const { admin } = await orgWithClients(gateway);
      const res = await requests[id]!(admin);
      expect(res.status).toBeLessThan(300);
      expect(JSON.stringify(res.body)).toMatch(/"(token|secret)":"/);
      expect(res.headers.get('cache-control')).toBe('no-store');
      if (tokenAnswers.includes(id)) {
        expect(res.headers.get('etag')).toBeNull();
      } else {
        // The tag of the endpoint as a GET shows it (same version, secret left out).
        const read = await admin.get(`/api/v1/webhooks/${res.body.id}`);
        expect(res.headers.get('etag')).toBe(read.headers.get('etag'));
      }
      // The first request of the file also starts the gateway's handlers: room for a loaded machine.
    },
    90_000,
  );

  it('leave the other answers as they were: a webhook read without its secret has an ETag and no no-store', async () => {
    const { admin } = await orgWithClients(gateway);
    const created = await admin.post('/api/v1/webhooks', { webhook: { url: 'http://127.0.0.1:9999/hook', events: ['*'] } });
    const read = await admin.get(`/api/v1/webhooks/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(read.headers.get('etag')).toMatch(/^"/);
    expect(read.headers.get('cache-control')).toBeNull();
  });
});

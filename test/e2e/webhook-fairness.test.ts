import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * Fair delivery end to end (docs/change-feed.md, "Fair delivery"): one organisation's endpoints
 * that never answer cannot hold up another organisation's deliveries. The delivery queue of the
 * test run has the AWS setup's lanes (test/support/global-setup.ts): 50 attempts at once, an
 * organisation capped at a fifth of them, on a 2 s timeout.
 */

const gateway = useGateway();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

/** A receiver on loopback that accepts every connection and request and never answers. */
async function hangingReceiver(): Promise<{ url: string; requests: () => number }> {
  let requests = 0;
  const server: Server = createServer(() => {
    requests++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, requests: () => requests };
}

async function healthyReceiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

async function project(admin: ApiClient) {
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Fair', prefix: randomPrefix() } })).body;
  return `/api/v1/projects/${p.id}`;
}

/** From one issue create in a fresh organisation to its delivery at a healthy receiver, in ms. */
async function oneDelivery(): Promise<number> {
  const { admin } = await orgWithClients(gateway);
  const r = await healthyReceiver();
  const hook = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['issue.created'] } });
  r.secret = hook.body.secret;
  const path = await project(admin);
  const started = Date.now();
  const created = await admin.post(`${path}/issues`, { issue: { title: 'Quiet neighbour' } });
  expect(created.status).toBe(201);
  await waitFor(() => r.accepted().length >= 1, 60_000, 'the quiet organisation’s delivery');
  return (r.accepted()[0] as { at: number }).at - started;
}

describe('fair delivery', () => {
  it("delivers another organisation's event within 3 s while one organisation's 16 endpoints hang", async () => {
    const alone = await oneDelivery();

    const noisy = await orgWithClients(gateway);
    const hanging = await Promise.all(Array.from({ length: 16 }, () => hangingReceiver()));
    const hooks: number[] = [];
    for (const h of hanging) {
      const res = await noisy.admin.post('/api/v1/webhooks', { webhook: { url: h.url, events: ['issue.created'] } });
      expect(res.status).toBe(201);
      hooks.push(res.body.id);
    }
    // Endpoints gone: their deliveries still queued are cancelled instead of tried again.
    cleanups.push(async () => {
      await Promise.all(hooks.map((id) => noisy.admin.delete(`/api/v1/webhooks/${id}`)));
    });
    const path = await project(noisy.admin);
    for (let i = 0; i < 6; i++) await noisy.admin.post(`${path}/issues`, { issue: { title: `Noisy ${i}` } });
    const hangingRequests = () => hanging.reduce((n, h) => n + h.requests(), 0);
    await waitFor(() => hangingRequests() >= 3, 30_000, 'the noisy organisation’s first attempts');

    const besideNoisy = await oneDelivery();
    console.log(
      `fair delivery: alone ${alone} ms; beside 16 hanging endpoints (96 deliveries) ${besideNoisy} ms; ` +
        `${hangingRequests()} attempts reached the hanging endpoints meanwhile`,
    );
    expect(besideNoisy).toBeLessThan(3000);
  }, 120_000);
});

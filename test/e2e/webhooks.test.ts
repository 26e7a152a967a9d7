import { afterEach, describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * Webhooks end to end: the API registers endpoints; the change feed (fed by the stream poller of
 * the test run) queues deliveries; the delivery function POSTs them to real local receivers, which
 * verify every signature with the `standardwebhooks` package. The test run's delivery clock is
 * fast (test/support/global-setup.ts): retries after 100 ms doubling to 800 ms, for 6 s.
 */

const gateway = useGateway();
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function subscribe(admin: ApiClient, r: Receiver, events: string[] = ['*']) {
  const res = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events } });
  expect(res.status).toBe(201);
  r.secret = res.body.secret;
  return res.body;
}

async function project(admin: ApiClient) {
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Hooked', prefix: randomPrefix() } })).body;
  return { ...p, path: `/api/v1/projects/${p.id}` };
}

describe('webhook endpoints', () => {
  it('are for admins: a member gets 403, another organisation 404; the secret is shown at creation only', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const r = await receiver();
    const created = await subscribe(admin, r, ['issue.created']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(created).toMatchObject({ url: r.url, events: ['issue.created'], active: true, disabled_reason: null });
    const path = `/api/v1/webhooks/${created.id}`;

    expect((await member.get('/api/v1/webhooks')).status).toBe(403);
    expect((await member.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['*'] } })).status).toBe(403);
    expect((await member.get(path)).status).toBe(403);
    expect((await member.delete(path)).status).toBe(403);
    const other = await orgWithClients(gateway);
    expect((await other.admin.get(path)).status).toBe(404);
    expect((await other.admin.patch(path, { webhook: { active: false } })).status).toBe(404);
    expect((await other.admin.post(`${path}/secret`)).status).toBe(404);

    const got = await admin.get(path);
    expect(got.body).not.toHaveProperty('secret');
    const list = await admin.get('/api/v1/webhooks');
    expect(list.body.map((w: { id: number }) => w.id)).toEqual([created.id]);
    expect(list.headers.get('x-total-count')).toBe('1');

    const updated = await admin.patch(path, { webhook: { events: ['issue.updated', 'sprint.completed'] } });
    expect(updated.body.events).toEqual(['issue.updated', 'sprint.completed']);
    const rotated = await admin.post(`${path}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(created.secret);

    expect((await admin.delete(path)).status).toBe(204);
    expect((await admin.get(path)).status).toBe(404);
    expect((await admin.get('/api/v1/webhooks')).headers.get('x-total-count')).toBe('0');
  });

  it('refuses what is not an endpoint: a URL that is not http(s), unknown events, no events', async () => {
    const { admin } = await orgWithClients(gateway);
    const bad = await admin.post('/api/v1/webhooks', { webhook: { url: 'ftp://example.com', events: ['issue.made', '*'] } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.join(' ')).toMatch(/url/);
    expect(bad.body.errors.join(' ')).toMatch(/events/);
    expect((await admin.post('/api/v1/webhooks', { webhook: { url: 'https://example.com', events: [] } })).status).toBe(422);
    expect((await admin.get('/api/v1/webhooks')).body).toEqual([]);
  });
});

describe('webhook deliveries', () => {
  it('delivers each event type once per change, signed, with the resource, the actor and what changed', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const r = await receiver();
    await subscribe(admin, r);
    const p = await project(admin);
    const sprint = (await admin.post(`${p.path}/sprints`, { sprint: { name: 'S' } })).body;
    const sprintPath = `${p.path}/sprints/${sprint.id}`;
    const issue = (await member.post(`${sprintPath}/issues`, { issue: { title: 'Hook me' } })).body;
    const issuePath = `${sprintPath}/issues/${issue.id}`;
    await member.patch(issuePath, { issue: { status: 'in_progress' } });
    const comment = (await member.post(`${issuePath}/comments`, { comment: { body: 'hi' } })).body;
    await member.patch(`/api/v1/comments/${comment.id}`, { comment: { body: 'hello' } });
    await member.delete(`/api/v1/comments/${comment.id}`);
    await admin.post(`${sprintPath}/activate`);
    await admin.post(`${sprintPath}/complete`);
    const doomed = (await admin.post(`${p.path}/issues`, { issue: { title: 'Doomed' } })).body;
    await admin.delete(`${p.path}/issues/${doomed.id}`);
    await admin.delete(sprintPath);
    // A delete under a project deleted meanwhile is the project's (project.deleted covers it).
    await waitFor(() => r.accepted().some((q) => q.body.type === 'sprint.deleted'), 20_000, 'sprint.deleted');
    await admin.delete(p.path);

    const expected = [
      'issue.created',
      'issue.updated',
      'comment.created',
      'comment.updated',
      'comment.deleted',
      'sprint.activated',
      'sprint.completed',
      // The completion returned the unfinished issue to the backlog: a change of that issue.
      'issue.updated',
      'issue.created',
      'issue.deleted',
      'sprint.deleted',
      'project.deleted',
    ];
    await waitFor(() => r.accepted().length >= expected.length, 30_000, 'all events');
    // Nothing more comes: the children removed by the sprint's and the project's cascades are not events.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(r.requests.every((q) => q.verified)).toBe(true);
    const types = r.accepted().map((q) => q.body.type);
    expect([...types].sort()).toEqual([...expected].sort());
    expect(new Set(r.accepted().map((q) => q.id)).size).toBe(expected.length);

    const updatedEvent = r.accepted().find((q) => q.body.type === 'issue.updated')!.body;
    expect(updatedEvent.data).toMatchObject({
      organisation_id: org.orgId,
      project_id: p.id,
      actor_id: org.member.id,
      issue: { id: issue.id, status: 'in_progress', title: 'Hook me' },
      changes: [{ field: 'status', from: 'todo', to: 'in_progress' }],
    });
    expect(Date.parse(updatedEvent.timestamp)).not.toBeNaN();
    const completed = r.accepted().find((q) => q.body.type === 'sprint.completed')!.body;
    expect(completed.data.sprint).toMatchObject({ id: sprint.id, status: 'completed' });
    expect(completed.data.actor_id).toBe(org.admin.id);
    // Every delete names who made it (the delete's marker, lib/db/deletions.ts).
    const deleters = Object.fromEntries(
      r
        .accepted()
        .filter((q) => q.body.type.endsWith('.deleted'))
        .map((q) => [q.body.type, q.body.data.actor_id]),
    );
    expect(deleters).toEqual({
      'comment.deleted': org.member.id,
      'issue.deleted': org.admin.id,
      'sprint.deleted': org.admin.id,
      'project.deleted': org.admin.id,
    });
  });

  it('sends only the events an endpoint subscribes to, and nothing of another organisation', async () => {
    const { admin } = await orgWithClients(gateway);
    const mine = await receiver();
    await subscribe(admin, mine, ['issue.updated']);
    const other = await orgWithClients(gateway);
    const theirs = await receiver();
    await subscribe(other.admin, theirs);
    const p = await project(admin);
    const issue = (await admin.post(`${p.path}/issues`, { issue: { title: 'Quiet' } })).body;
    await admin.patch(`${p.path}/issues/${issue.id}`, { issue: { title: 'Loud' } });
    await waitFor(() => mine.accepted().length >= 1, 20_000, 'the update');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mine.accepted().map((q) => q.body.type)).toEqual(['issue.updated']);
    expect(theirs.requests).toEqual([]);
  });

  it('retries a receiver that is down (same webhook-id) until it is back, and it then has every event', async () => {
    const { admin } = await orgWithClients(gateway);
    const r = await receiver();
    const downUntil = Date.now() + 2000;
    r.respond = () => ({ status: Date.now() < downUntil ? 503 : 200 });
    const hook = await subscribe(admin, r, ['issue.created']);
    const p = await project(admin);
    const titles = ['a', 'b', 'c', 'd'];
    for (const title of titles) await admin.post(`${p.path}/issues`, { issue: { title } });

    await waitFor(() => r.accepted().length >= titles.length, 30_000, 'every event after the outage');
    expect(
      r
        .accepted()
        .map((q) => q.body.data.issue.title)
        .sort(),
    ).toEqual(titles);
    const failed = r.requests.filter((q) => q.status === 503);
    expect(failed.length).toBeGreaterThan(0);
    // A retry is the same message: each refused id comes again, and is accepted exactly once.
    const acceptedIds = r.accepted().map((q) => q.id);
    expect(new Set(acceptedIds).size).toBe(titles.length);
    for (const q of failed) expect(acceptedIds).toContain(q.id);

    // The receiver has answered 200; the delivery records the attempt once that answer is back.
    let deliveries: { status: string; attempts: number }[];
    const deadline = Date.now() + 10_000;
    do {
      deliveries = (await admin.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body;
      if (deliveries.every((d) => d.status === 'succeeded')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    } while (Date.now() < deadline);
    expect(deliveries).toHaveLength(titles.length);
    for (const d of deliveries) expect(d).toMatchObject({ status: 'succeeded', response_code: 200, event: 'issue.created' });
    expect(Math.max(...deliveries.map((d: { attempts: number }) => d.attempts))).toBeGreaterThan(1);
  });

  it('a slow receiver does not hold up another endpoint', async () => {
    const { admin } = await orgWithClients(gateway);
    const slow = await receiver();
    slow.respond = () => ({ status: 200, delayMs: 1500 });
    const fast = await receiver();
    await subscribe(admin, slow, ['issue.created']);
    await subscribe(admin, fast, ['issue.created']);
    const p = await project(admin);
    for (let i = 0; i < 4; i++) await admin.post(`${p.path}/issues`, { issue: { title: `n${i}` } });
    await waitFor(() => fast.accepted().length >= 4 && slow.accepted().length >= 4, 30_000, 'both receivers');
    const fastDone = Math.max(...fast.accepted().map((q) => q.at));
    const slowFirst = Math.min(...slow.accepted().map((q) => q.at));
    expect(fastDone).toBeLessThan(slowFirst);
  });

  it('gives up after the retry window, marks the delivery failed, disables a failing endpoint with a reason, and redelivers on request', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const r = await receiver();
    r.respond = () => ({ status: 500 });
    const hook = await subscribe(admin, r, ['issue.created']);
    const hookPath = `/api/v1/webhooks/${hook.id}`;
    const p = await project(admin);
    await admin.post(`${p.path}/issues`, { issue: { title: 'Lost?' } });
    const deliveries = async () => (await admin.get(`${hookPath}/deliveries`)).body as any[];
    const failed = await poll(deliveries, (d) => d[0]?.status === 'failed');
    expect(failed[0]).toMatchObject({ status: 'failed', response_code: 500, error: 'answered 500', next_attempt_at: null });
    const attempts = failed[0].attempts;
    expect(attempts).toBeGreaterThan(2);
    expect(r.requests).toHaveLength(attempts);
    expect(new Set(r.requests.map((q) => q.id))).toEqual(new Set([failed[0].id]));

    // Still failing 10 s after the first failure: the endpoint is disabled, with the reason.
    await admin.post(`${p.path}/issues`, { issue: { title: 'Lost too' } });
    const disabled = await poll(
      async () => (await admin.get(hookPath)).body,
      (w) => w.active === false,
    );
    expect(disabled.disabled_reason).toMatch(/failed/);

    // Back up and re-enabled: a redelivery sends the same message again.
    r.respond = () => ({ status: 200 });
    expect((await admin.patch(hookPath, { webhook: { active: true } })).body).toMatchObject({
      active: true,
      disabled_reason: null,
    });
    const redeliverPath = `${hookPath}/deliveries/${failed[0].id}/redeliver`;
    expect((await member.post(redeliverPath)).status).toBe(403);
    const again = await admin.post(redeliverPath);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('pending');
    expect((await admin.post(redeliverPath)).status).toBe(422);
    await waitFor(() => r.accepted().some((q) => q.id === failed[0].id), 20_000, 'the redelivery');
    const after = await poll(deliveries, (d) => d.find((x) => x.id === failed[0].id)?.status === 'succeeded');
    expect(after.find((x) => x.id === failed[0].id).attempts).toBe(attempts + 1);
    expect((await admin.post(`${hookPath}/deliveries/msg_nothing/redeliver`)).status).toBe(404);
  }, 60_000);

  it('never sends to private, link-local or metadata addresses, even locally', async () => {
    const { admin } = await orgWithClients(gateway);
    const urls = ['http://169.254.169.254/latest/meta-data/', 'http://10.20.30.40/hooks', 'http://[fd00:ec2::254]/'];
    const hooks = [];
    for (const url of urls) {
      const res = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['issue.created'] } });
      expect(res.status).toBe(201);
      hooks.push(res.body);
    }
    const p = await project(admin);
    await admin.post(`${p.path}/issues`, { issue: { title: 'Probe' } });
    for (const [i, hook] of hooks.entries()) {
      const [d] = await poll(
        async () => (await admin.get(`/api/v1/webhooks/${hook.id}/deliveries`)).body as any[],
        // An attempt is claimed (attempts + 1) before it is made, and its outcome recorded after.
        (list) => list[0]?.attempts > 0 && typeof list[0]?.error === 'string',
      );
      expect(d.error, urls[i]).toMatch(/^refused: .* is a (metadata|private) address$/);
      expect(d.response_code).toBeNull();
    }
  });
});

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out; last: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

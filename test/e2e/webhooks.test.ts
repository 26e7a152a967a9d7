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
/**
 * How long a test waits for events to reach a receiver. Alone, they arrive within a second or two;
 * in the whole suite, the cascades of other files' deletes share the one local stream poller with
 * the change feed, and its backlog can hold an event back for tens of seconds.
 */
const FEED_WAIT_MS = 90_000;
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

describe('webhook deliveries', { timeout: 150_000 }, () => {
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
    await waitFor(() => r.accepted().some((q) => q.body.type === 'sprint.deleted'), FEED_WAIT_MS, 'sprint.deleted');
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
    await waitFor(() => r.accepted().length >= expected.length, FEED_WAIT_MS, 'all events');
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
      // The states by name (as the issue answers `status`), by id (a new project's: backlog 1 … cancelled 5), and the category.
      changes: [
        { field: 'status', from: 'todo', to: 'in_progress' },
        { field: 'state_id', from: 2, to: 3 },
        { field: 'status_category', from: 'todo', to: 'in_progress' },
      ],
    });
    expect(Date.parse(updatedEvent.timestamp)).not.toBeNaN();
    const completed = r.accepted().find((q) => q.body.type === 'sprint.completed')!.body;
    expect(completed.data.sprint).toMatchObject({ id: sprint.id, status: 'completed' });
    expect(completed.data.actor_id).toBe(org.admin.id);
    // Every delete names who made it (the delete's marker, lib/db/core/deletions.ts).
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
    await waitFor(() => mine.accepted().length >= 1, FEED_WAIT_MS, 'the update');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(mine.accepted().map((q) => q.body.type)).toEqual(['issue.updated']);
    expect(theirs.requests).toEqual([]);
  });

  it('retries a receiver that is down (same webhook-id) until it is back, and it then has every event', async () => {
    const { admin } = await orgWithClients(gateway);
    const r = await receiver();
    // Down for its first three requests, however long the events take to come (a loaded machine).
    let down = 3;
    r.respond = () => ({ status: down-- > 0 ? 503 : 200 });
    const hook = await subscribe(admin, r, ['issue.created']);
    const p = await project(admin);
    const titles = ['a', 'b', 'c', 'd'];
    for (const title of titles) await admin.post(`${p.path}/issues`, { issue: { title } });

    await waitFor(() => r.accepted().length >= titles.length, FEED_WAIT_MS, 'every event after the outage');
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
    expect(failed[0]).toMatchObject({ status: 'failed', response_code: 500, error: 'HTTP status 500', next_attempt_at: null });
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

    // Back up and re-enabled: a redelivery sends the same message again. The receiver holds its
    // answer until the second request below has been refused, so that the delivery is still pending then.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    r.respond = () => ({ status: 200, until: held });
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
    release();
    await waitFor(() => r.accepted().some((q) => q.id === failed[0].id), 20_000, 'the redelivery');
    const after = await poll(deliveries, (d) => d.find((x) => x.id === failed[0].id)?.status === 'succeeded');
    expect(after.find((x) => x.id === failed[0].id).attempts).toBe(attempts + 1);
    expect((await admin.post(`${hookPath}/deliveries/msg_nothing/redeliver`)).status).toBe(404);
  }, 60_000);
});

/**
 * The guard at registration: a literal address of a refused kind, in any IPv6 form that carries an
 * IPv4 address, or a port outside 80, 443 and 1024-65535, is refused with 422 by POST and PATCH.
 * Nothing is delivered: no endpoint is stored, and no change is made in these organisations.
 */
describe('webhook endpoint addresses', () => {
  const hostile: [string, string][] = [
    ['http://169.254.169.254/latest/meta-data/', 'metadata'],
    ['http://[::ffff:169.254.169.254]/', 'metadata'],
    ['http://[::ffff:a9fe:a9fe]/', 'metadata'],
    ['http://[::169.254.169.254]/', 'metadata'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'metadata'],
    ['http://[2002:a9fe:a9fe::1]/', 'metadata'],
    ['http://[2001:0:808:808:8000:f227:5601:5601]/', 'metadata'],
    ['http://[2001:0:a9fe:a9fe:8000:f227:f7f7:f7f7]/', 'metadata'],
    ['http://[fd00:ec2::254]/', 'metadata'],
    ['http://10.20.30.40/hooks', 'private'],
    ['http://[::ffff:10.20.30.40]/', 'private'],
    ['http://[::ffff:a14:1e28]/', 'private'],
    ['http://[::10.20.30.40]/', 'private'],
    ['http://[64:ff9b::10.20.30.40]/', 'private'],
    ['http://[64:ff9b:1::8.8.8.8]/', 'private'],
    ['http://[2002:a14:1e28::1]/', 'private'],
    ['http://[2001:0:808:808:8000:f227:f5eb:e1d7]/', 'private'],
    ['http://[100::1]/', 'discard'],
    ['http://[2001:db8::1]/', 'documentation'],
    ['http://192.0.2.1/', 'documentation'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[fd12:3456::1]/', 'unique-local'],
    ['http://0.0.0.0/', 'reserved'],
  ];

  it.each(hostile)('refuses %s (a %s address) at creation and at update with 422 naming why', async (url, kind) => {
    const { admin } = await orgWithClients(gateway);
    const created = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['*'] } });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual([
      expect.stringMatching(new RegExp(`^url is refused: .+ is a ${kind} address( \\(.+\\))?$`)),
    ]);

    const r = await receiver();
    const hook = await subscribe(admin, r);
    const updated = await admin.patch(`/api/v1/webhooks/${hook.id}`, { webhook: { url } });
    expect(updated.status).toBe(422);
    expect(updated.body.errors).toEqual(created.body.errors);
    expect((await admin.get('/api/v1/webhooks')).body.map((w: { url: string }) => w.url)).toEqual([r.url]);
  });

  it('refuses ports other than 80, 443 and 1024-65535 at creation and at update', async () => {
    const { admin } = await orgWithClients(gateway);
    for (const port of [22, 25, 1023]) {
      const url = `http://127.0.0.1:${port}/hooks`;
      const created = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['*'] } });
      expect(created.status, url).toBe(422);
      expect(created.body.errors).toEqual([`url is refused: port ${port} is not allowed (only 80, 443 and 1024-65535)`]);
    }
    const r = await receiver();
    const hook = await subscribe(admin, r);
    const updated = await admin.patch(`/api/v1/webhooks/${hook.id}`, { webhook: { url: 'https://hooks.example.com:8/' } });
    expect(updated.status).toBe(422);
    expect(updated.body.errors).toEqual(['url is refused: port 8 is not allowed (only 80, 443 and 1024-65535)']);
    expect((await admin.get(`/api/v1/webhooks/${hook.id}`)).body.url).toBe(r.url);
  });

  it('accepts loopback addresses where loopback receivers are allowed (locally), and refuses those that only carry 127.0.0.1, as delivery does', async () => {
    const { admin } = await orgWithClients(gateway);
    const r = await receiver();
    const port = new URL(r.url).port;
    for (const host of ['[::1]', '127.0.0.1']) {
      const res = await admin.post('/api/v1/webhooks', { webhook: { url: `http://${host}:${port}/hooks`, events: ['*'] } });
      expect(res.status, host).toBe(201);
    }
    for (const host of ['[::ffff:127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]']) {
      const res = await admin.post('/api/v1/webhooks', { webhook: { url: `http://${host}:${port}/hooks`, events: ['*'] } });
      expect(res.status, host).toBe(422);
      expect(res.body.errors, host).toEqual([
        expect.stringMatching(/is a loopback address \((IPv4-mapped|NAT64|6to4) 127\.0\.0\.1\)$/),
      ]);
    }
    // Port 80 and 443 are allowed, with or without the scheme's default written out.
    const hook = await subscribe(admin, r);
    for (const url of ['http://127.0.0.1:80/', 'https://127.0.0.1/', 'http://127.0.0.1:443/']) {
      expect((await admin.patch(`/api/v1/webhooks/${hook.id}`, { webhook: { url } })).status, url).toBe(200);
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

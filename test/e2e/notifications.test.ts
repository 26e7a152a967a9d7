import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { eventually } from '../support/eventually.ts';
import { mcpClient } from '../support/mcp.ts';
import { startReceiver, waitFor } from '../support/receiver.ts';

/**
 * Notifications end to end (docs/notifications.md): each reason from a real write through the
 * local change feed to the inbox; never one's own, never across organisations, never from code;
 * exactly once per recipient and change, also under concurrent comments; read and unread counts
 * exact under concurrent marks; the trash hides and the restore shows.
 */

const gateway = useGateway();

interface Note {
  id: string;
  reason: string;
  issue: { key: string; title: string; project_id: number; issue_id: number };
  actor_id: number | null;
  activity_id: string;
  comment_id: number | null;
  read_at: string | null;
}

/** An organisation with three people who have handles, and a project. */
async function team() {
  const org = await newOrganisation();
  const client = (token: string) => apiClient(gateway.baseUrl, token);
  const third = await createAccountInOrg(org.orgId, {
    name: 'Tess Third',
    email: `third-${org.orgId}@example.com`,
    role: 'member',
  });
  const people = {
    ada: { id: org.admin.id, api: client(org.admin.token), token: org.admin.token },
    mo: { id: org.member.id, api: client(org.member.token), token: org.member.token },
    tess: { id: third.account.id, api: client(third.token), token: third.token },
  };
  for (const [handle, person] of Object.entries(people)) {
    const res = await person.api.patch('/api/v1/me', { account: { handle } });
    expect(res.status, res.text).toBe(200);
  }
  const project = (await people.ada.api.post('/api/v1/projects', { project: { name: 'Inbox', prefix: randomPrefix() } })).body;
  return { org, ...people, backlog: `/api/v1/projects/${project.id}/issues`, projectId: project.id as number };
}

const inbox = async (api: ApiClient, query = '') => (await api.get(`/api/v1/me/notifications${query}`)).body as Note[];
const unread = async (api: ApiClient) => (await api.get('/api/v1/me')).body.unread_notifications as number;

/** Waits until `api`'s inbox holds `n` notifications, and answers them. */
const inboxOf = (api: ApiClient, n: number, what: string) =>
  eventually(
    what,
    () => inbox(api, '?per_page=100'),
    (notes) => notes.length >= n,
  );

/**
 * Waits for a later change of the same project (an issue assigned to `target` by someone else) to
 * reach `target`'s inbox: the stream keeps a project's order, so everything before it is there too.
 */
async function settled(t: Awaited<ReturnType<typeof team>>, target: { id: number; api: ApiClient }) {
  const actor = target.id === t.ada.id ? t.tess : t.ada;
  const marker = (await actor.api.post(t.backlog, { issue: { title: 'Marker', assignee_id: target.id } })).body;
  await eventually(
    'the marker',
    () => inbox(target.api, '?per_page=100'),
    (notes) => notes.some((n) => n.issue.key === marker.issue_number),
  );
}

describe('notifications', () => {
  it('tells the assignee, never the one who made the change, and shows the unread count on /me', async () => {
    const t = await team();
    const issue = (await t.ada.api.post(t.backlog, { issue: { title: 'Fix login', assignee_id: t.mo.id } })).body;
    const [note] = await inboxOf(t.mo.api, 1, 'the assignment');
    expect(note).toMatchObject({
      reason: 'assigned',
      issue: { key: issue.issue_number, title: 'Fix login', project_id: t.projectId, issue_id: issue.id },
      actor_id: t.ada.id,
      comment_id: null,
      read_at: null,
    });
    expect(await unread(t.mo.api)).toBe(1);
    // Reassigned to Tess: she is told; Ada, who did it, is told nothing.
    await t.ada.api.patch(`/api/v1/issues/${issue.issue_number}`, { issue: { assignee_id: t.tess.id } });
    expect((await inboxOf(t.tess.api, 1, 'the reassignment'))[0]).toMatchObject({ reason: 'assigned' });
    expect(await inbox(t.ada.api)).toEqual([]);
    // The activity entry it names is the change's.
    const activity = (await t.ada.api.get(`/api/v1/issues/${issue.issue_number}/activity`)).body as { id: string }[];
    expect(activity.map((a) => a.id)).toContain(note!.activity_id);
  });

  it('tells who is mentioned in a description or a comment, only once per mention, never from code or another organisation', async () => {
    const t = await team();
    const other = await newOrganisation();
    const stranger = apiClient(gateway.baseUrl, other.member.token);
    expect((await stranger.patch('/api/v1/me', { account: { handle: 'outsider' } })).status).toBe(200);
    const issue = (
      await t.ada.api.post(t.backlog, { issue: { title: 'Mentions', description: 'cc @mo and @outsider, not `@tess`' } })
    ).body;
    const key = issue.issue_number as string;
    expect((await inboxOf(t.mo.api, 1, 'the mention in the description'))[0]).toMatchObject({ reason: 'mentioned' });
    // Editing keeps @mo (no new notification) and adds @tess outside code.
    await t.ada.api.patch(`/api/v1/issues/${key}`, { issue: { description: 'cc @mo, and now @tess too\n\n```\n@ada\n```' } });
    expect((await inboxOf(t.tess.api, 1, 'the new mention'))[0]).toMatchObject({ reason: 'mentioned' });
    // A comment by Tess mentions Mo; Mo is told once (mentioned wins over commented), Ada as a watcher.
    const comment = (await t.tess.api.post(`/api/v1/issues/${key}/comments`, { comment: { body: 'thoughts, @MO?' } })).body;
    const moNotes = await inboxOf(t.mo.api, 2, 'the mention in a comment');
    expect(moNotes[0]).toMatchObject({ reason: 'mentioned', comment_id: comment.id, actor_id: t.tess.id });
    expect((await inboxOf(t.ada.api, 1, 'the comment on her issue'))[0]).toMatchObject({
      reason: 'commented',
      comment_id: comment.id,
    });
    await settled(t, t.mo);
    expect((await inbox(t.mo.api)).filter((n) => n.issue.key === key)).toHaveLength(2);
    expect(await inbox(t.ada.api)).toHaveLength(1);
    expect(await inbox(stranger)).toEqual([]);
  });

  it('tells the watchers of a state change and of comments, and watching can be turned off and on', async () => {
    const t = await team();
    const issue = (await t.ada.api.post(t.backlog, { issue: { title: 'Watched' } })).body;
    const key = issue.issue_number as string;
    expect(issue.watchers).toEqual({ count: 1, account_ids: [t.ada.id] });
    const watched = await t.mo.api.put(`/api/v1/issues/${key}/watch`);
    expect(watched.status).toBe(200);
    expect(watched.body).toEqual({ count: 2, account_ids: [t.ada.id, t.mo.id].sort((a, b) => a - b) });
    expect((await t.mo.api.get(`/api/v1/issues/${key}`)).body.watchers.count).toBe(2);
    await t.tess.api.patch(`/api/v1/issues/${key}`, { issue: { status: 'in_progress' } });
    const states = await inboxOf(t.mo.api, 1, 'the state change');
    expect(states[0]).toMatchObject({ reason: 'state_changed', actor_id: t.tess.id });
    expect((await inboxOf(t.ada.api, 1, 'the state change for the reporter'))[0]).toMatchObject({ reason: 'state_changed' });
    // Mo stops watching: Tess's comment tells Ada only; Tess now watches (she commented).
    expect((await t.mo.api.delete(`/api/v1/issues/${key}/watch`)).body.account_ids).toEqual([t.ada.id]);
    await t.tess.api.post(`/api/v1/issues/${key}/comments`, { comment: { body: 'started' } });
    await inboxOf(t.ada.api, 2, 'the comment');
    expect((await t.ada.api.get(`/api/v1/issues/${key}`)).body.watchers.account_ids).toContain(t.tess.id);
    await settled(t, t.mo);
    expect((await inbox(t.mo.api)).filter((n) => n.issue.key === key)).toHaveLength(1);
    expect((await t.mo.api.put('/api/v1/issues/ZZZZ-999999/watch')).status).toBe(404);
  });

  it('tells each watcher exactly once per comment under 20 concurrent comments, and counts reads exactly under concurrent marks', async () => {
    const t = await team();
    const issue = (await t.ada.api.post(t.backlog, { issue: { title: 'Busy' } })).body;
    const key = issue.issue_number as string;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.mo.api.post(`/api/v1/issues/${key}/comments`, { comment: { body: `comment ${i}` } }),
      ),
    );
    const notes = await inboxOf(t.ada.api, 20, 'twenty comments');
    await settled(t, t.ada);
    const all = (await inbox(t.ada.api, '?per_page=100')).filter((n) => n.issue.key === key);
    expect(all).toHaveLength(20);
    expect(new Set(all.map((n) => n.comment_id)).size).toBe(20);
    // The twenty and the marker.
    expect(await unread(t.ada.api)).toBe(21);
    // Ten clients mark the same five at once: five are marked, once.
    const five = notes.slice(0, 5).map((n) => n.id);
    const marks = await Promise.all(
      Array.from({ length: 10 }, () => t.ada.api.post('/api/v1/me/notifications/read', { notifications: five })),
    );
    expect(marks.reduce((sum, m) => sum + (m.body.marked as number), 0)).toBe(5);
    expect(await unread(t.ada.api)).toBe(16);
    expect(await inbox(t.ada.api, '?unread=true&per_page=100')).toHaveLength(16);
    expect((await inbox(t.ada.api, '?reason=assigned')).map((n) => n.issue.title)).toEqual(['Marker']);
    // All, twice at once: sixteen more, and nothing twice.
    const alls = await Promise.all([0, 1].map(() => t.ada.api.post('/api/v1/me/notifications/read', { all: true })));
    expect(
      alls.map((m) => m.status),
      JSON.stringify(alls.map((m) => m.body)),
    ).toEqual([200, 200]);
    expect(alls.reduce((sum, m) => sum + (m.body.marked as number), 0)).toBe(16);
    expect(await unread(t.ada.api)).toBe(0);
    expect((await t.ada.api.post('/api/v1/me/notifications/read', { notifications: [] })).status).toBe(422);
    expect((await t.ada.api.get('/api/v1/me/notifications?reason=nope')).status).toBe(422);
  });

  it('tells who follows a query when an issue matches it after a change, once per change, and never for its own', async () => {
    const t = await team();
    const followed = await t.mo.api.post('/api/v1/me/subscriptions', { subscription: { query: 'priority:urgent is:open' } });
    expect(followed.status, followed.text).toBe(201);
    expect(followed.body).toMatchObject({ query: 'priority:urgent is:open' });
    const urgent = (await t.ada.api.post(t.backlog, { issue: { title: 'Outage', priority: 'urgent' } })).body;
    expect((await inboxOf(t.mo.api, 1, 'the new matching issue'))[0]).toMatchObject({
      reason: 'subscribed_query',
      issue: { key: urgent.issue_number, title: 'Outage' },
    });
    // A calm issue that becomes urgent starts matching; one assigned to Mo is told once, as assigned.
    const calm = (await t.ada.api.post(t.backlog, { issue: { title: 'Calm' } })).body;
    await t.ada.api.patch(`/api/v1/issues/${calm.issue_number}`, { issue: { priority: 'urgent' } });
    await t.ada.api.post(t.backlog, { issue: { title: 'Mine', priority: 'urgent', assignee_id: t.mo.id } });
    // Mo's own change, and a change after which the issue no longer matches, tell Mo nothing.
    await t.mo.api.patch(`/api/v1/issues/${urgent.issue_number}`, { issue: { title: 'Outage (Mo)' } });
    await t.ada.api.patch(`/api/v1/issues/${calm.issue_number}`, { issue: { priority: 'low' } });
    await settled(t, t.mo);
    const notes = await inbox(t.mo.api, '?per_page=100');
    expect(notes.map((n) => [n.issue.title, n.reason])).toEqual([
      ['Marker', 'assigned'],
      ['Mine', 'assigned'],
      ['Calm', 'subscribed_query'],
      ['Outage', 'subscribed_query'],
    ]);
    expect((await t.mo.api.get('/api/v1/me/subscriptions')).body).toEqual([followed.body]);
    const bad = await t.mo.api.post('/api/v1/me/subscriptions', { subscription: { query: 'status:' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatch(/^query: at \d+/);
    expect(
      (await t.mo.api.post('/api/v1/me/subscriptions', { subscription: { query: 'is:open sort:updated-desc' } })).status,
    ).toBe(422);
    expect((await t.mo.api.delete(`/api/v1/me/subscriptions/${followed.body.id}`)).status).toBe(204);
    expect((await t.mo.api.delete(`/api/v1/me/subscriptions/${followed.body.id}`)).status).toBe(404);
    expect((await t.mo.api.get('/api/v1/me/subscriptions')).body).toEqual([]);
    for (let i = 0; i < 20; i++) {
      expect((await t.tess.api.post('/api/v1/me/subscriptions', { subscription: { query: `label:l${i}` } })).status).toBe(201);
    }
    expect((await t.tess.api.post('/api/v1/me/subscriptions', { subscription: { query: 'label:one-more' } })).status).toBe(422);
  });

  it('hides the notifications of an issue in the trash, and its restore shows them again', async () => {
    const t = await team();
    const issue = (await t.ada.api.post(t.backlog, { issue: { title: 'Doomed', assignee_id: t.mo.id } })).body;
    await inboxOf(t.mo.api, 1, 'the assignment');
    expect(await unread(t.mo.api)).toBe(1);
    expect((await t.ada.api.delete(`/api/v1/issues/${issue.issue_number}`)).status).toBe(204);
    await eventually(
      'the notification hidden',
      () => inbox(t.mo.api),
      (notes) => notes.length === 0,
    );
    expect(await unread(t.mo.api)).toBe(0);
    expect((await t.ada.api.post(`/api/v1/trash/issue-${issue.id}/restore`)).status).toBe(200);
    await eventually(
      'the notification back',
      () => inbox(t.mo.api),
      (notes) => notes.length === 1,
    );
    expect(await unread(t.mo.api)).toBe(1);
  });

  it('sends notification.created to an endpoint that names it, with the account it is for, and never to one of `*`', async () => {
    const t = await team();
    const [named, every] = await Promise.all([startReceiver(), startReceiver()]);
    try {
      const hooks: number[] = [];
      for (const [r, events] of [
        [named, ['notification.created']],
        [every, ['*']],
      ] as const) {
        const hook = await t.ada.api.post('/api/v1/webhooks', { webhook: { url: r.url, events } });
        expect(hook.status, hook.text).toBe(201);
        r.secret = hook.body.secret;
        hooks.push(hook.body.id);
      }
      const issue = (await t.ada.api.post(t.backlog, { issue: { title: 'Routed', assignee_id: t.mo.id } })).body;
      await waitFor(() => named.accepted().length > 0, 60_000, 'the notification.created delivery');
      const { body } = named.accepted()[0]!;
      expect(body.type).toBe('notification.created');
      expect(body.data.notification).toMatchObject({
        account_id: t.mo.id,
        reason: 'assigned',
        issue: { key: issue.issue_number, title: 'Routed' },
        actor_id: t.ada.id,
        read_at: null,
      });
      await waitFor(() => every.accepted().some((q) => q.body.type === 'issue.created'), 60_000, 'the issue.created delivery');
      // One fan-out records an event's deliveries to every endpoint before it sends any: the
      // endpoint of `*` would hold one by now.
      const deliveries = (await t.ada.api.get(`/api/v1/webhooks/${hooks[1]}/deliveries`)).body as { event: string }[];
      expect(deliveries.map((d) => d.event)).toContain('issue.created');
      expect(deliveries.map((d) => d.event)).not.toContain('notification.created');
    } finally {
      await Promise.all([named.close(), every.close()]);
    }
  });

  it('lets an agent read its inbox and mark it read over MCP (get_inbox, mark_read)', async () => {
    const t = await team();
    await t.ada.api.post(t.backlog, { issue: { title: 'For the agent', assignee_id: t.mo.id } });
    await inboxOf(t.mo.api, 1, 'the assignment');
    const mcp = await mcpClient(gateway.baseUrl, t.mo.token);
    const inboxNow = await mcp.ok<{ notifications: Note[]; next_cursor: string | null }>('get_inbox', { unread: true });
    expect(inboxNow.notifications.map((n) => [n.reason, n.issue.title])).toEqual([['assigned', 'For the agent']]);
    expect(await mcp.ok('mark_read', { ids: inboxNow.notifications.map((n) => n.id) })).toEqual({ marked: 1, more: false });
    expect((await mcp.ok<{ notifications: Note[] }>('get_inbox', { unread: true })).notifications).toEqual([]);
    expect(await mcp.error('mark_read', {})).toMatch(/notifications|all/);
    await mcp.close();
  });
});

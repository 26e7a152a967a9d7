import { afterEach, describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/**
 * Webhook filters end to end (docs/change-feed.md#filters): endpoints with and without a filter
 * on real local receivers; the change feed of the test run decides which get each event.
 */

const gateway = useGateway();
/** As in webhooks.test.ts: alone, events arrive within a second or two; the whole suite's stream can lag far more. */
const FEED_WAIT_MS = 90_000;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

async function subscribe(admin: ApiClient, events: string[], filter?: string) {
  const r = await startReceiver();
  receivers.push(r);
  const res = await admin.post('/api/v1/webhooks', {
    webhook: { url: r.url, events, ...(filter === undefined ? {} : { filter }) },
  });
  expect(res.status).toBe(201);
  r.secret = res.body.secret;
  return { r, hook: res.body };
}

/** What a receiver got, as `<event> <issue title or sprint name>`, in any order. */
const seen = (r: Receiver) =>
  r
    .accepted()
    .map(({ body }) => {
      const d = body.data;
      const about = d.comment ? `on ${d.comment.issue_id}` : (d.issue?.title ?? d.sprint?.name);
      return `${body.type} ${about}`;
    })
    .sort();

const comments = (r: Receiver) => r.accepted().filter((q) => q.body.type === 'comment.created').length;

describe('webhook filters', () => {
  it('are stored in canonical form with @me as the writing admin, answered by every read, and replaced or removed by PATCH/PUT', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const { hook } = await subscribe(admin, ['issue.updated'], 'TYPE:Bug  priority:>=HIGH  assignee:@me');
    const filter = `type:bug priority:>=high assignee:${org.admin.id}`;
    expect(hook.filter).toBe(filter);
    const path = `/api/v1/webhooks/${hook.id}`;
    expect((await admin.get(path)).body.filter).toBe(filter);
    expect((await admin.get('/api/v1/webhooks')).body.map((w: { filter: string }) => w.filter)).toEqual([filter]);

    // A change of anything else keeps the filter.
    expect((await admin.patch(path, { webhook: { events: ['*'] } })).body.filter).toBe(filter);
    expect((await admin.put(path, { webhook: { filter: '-is:closed' } })).body.filter).toBe('-is:closed');
    expect((await admin.patch(path, { webhook: { filter: '   ' } })).body.filter).toBeNull();
    expect((await admin.patch(path, { webhook: { filter: 'label:"good first issue"' } })).body.filter).toBe(
      'label:"good first issue"',
    );
    // OR, NOT and parentheses, as in a search; @me inside a group too.
    expect((await admin.patch(path, { webhook: { filter: '(type:bug OR type:story) NOT label:wontfix' } })).body.filter).toBe(
      '(type:bug OR type:story) -label:wontfix',
    );
    expect((await admin.patch(path, { webhook: { filter: 'type:bug OR assignee:@me' } })).body.filter).toBe(
      `type:bug OR assignee:${org.admin.id}`,
    );
    expect((await admin.patch(path, { webhook: { filter: 'type:bug OR' } })).body.errors).toEqual([
      `filter: at 10: expected a term after 'OR' (to search for the word, quote it: "OR")`,
    ]);
    expect((await admin.patch(path, { webhook: { filter: null } })).body.filter).toBeNull();
    expect((await admin.get(path)).body.filter).toBeNull();
    // An endpoint created without one has none.
    expect((await subscribe(admin, ['*'])).hook.filter).toBeNull();
  });

  it('a filter that cannot be read is a 422 with its place and what was expected, and nothing is written', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const url = 'https://example.com/hooks';
    const created = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['*'], filter: 'is:open status:' } });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual(["filter: at 9: expected a value after 'status:'"]);
    const sorted = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['*'], filter: 'type:bug sort:updated' } });
    expect(sorted.status).toBe(422);
    expect(sorted.body.errors[0]).toMatch(/^filter: 'sort:updated-desc'/);
    const typed = await admin.post('/api/v1/webhooks', { webhook: { url, events: ['*'], filter: ['type:bug'] } });
    expect(typed.status).toBe(422);
    expect(typed.body.errors.join(' ')).toMatch(/filter/);
    const list = await admin.get('/api/v1/webhooks');
    expect(list.body).toEqual([]);
    expect(list.headers.get('x-total-count')).toBe('0');

    const { hook } = await subscribe(admin, ['*'], 'type:bug');
    const path = `/api/v1/webhooks/${hook.id}`;
    const bad = await admin.patch(path, { webhook: { filter: 'priority:>=hihg', url: 'https://example.org/other' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual(["filter: at 10: unknown priority 'hihg' (known: none, low, medium, high, urgent)"]);
    const kept = (await admin.get(path)).body;
    expect(kept).toMatchObject({ filter: 'type:bug', url: hook.url, updated_at: hook.updated_at });
    // Webhooks are the admins' whatever the filter.
    expect((await member.patch(path, { webhook: { filter: 'is:open status:' } })).status).toBe(403);
  });

  it(
    'an endpoint with a filter receives exactly the events of matching issues; one without receives every event',
    { timeout: 150_000 },
    async () => {
      const { org, admin } = await orgWithClients(gateway);
      const bugs = await subscribe(admin, ['*'], 'type:bug priority:>=high');
      const mine = await subscribe(
        admin,
        ['issue.created', 'issue.updated', 'comment.created'],
        'label:ui sprint:active assignee:@me',
      );
      const all = await subscribe(admin, ['*']);
      const project = (await admin.post('/api/v1/projects', { project: { name: 'Filtered', prefix: randomPrefix() } })).body;
      const p = `/api/v1/projects/${project.id}`;
      expect((await admin.post(`${p}/labels`, { label: { name: 'UI' } })).status).toBe(201);
      const sprint = (await admin.post(`${p}/sprints`, { sprint: { name: 'S' } })).body;
      const s = `${p}/sprints/${sprint.id}`;
      const create = async (path: string, issue: object) => {
        const res = await admin.post(`${path}/issues`, { issue });
        expect(res.status).toBe(201);
        return { ...res.body, path: `${path}/issues/${res.body.id}` };
      };
      const update = async (issue: { path: string }, fields: object) =>
        expect((await admin.patch(issue.path, { issue: fields })).status).toBe(200);

      const crash = await create(p, { title: 'crash', type: 'bug', priority: 'urgent' }); // matches
      const chore = await create(p, { title: 'chore', type: 'task', priority: 'high' }); // does not
      await update(chore, { type: 'bug' }); // starts matching: sent
      await update(crash, { priority: 'low' }); // stops matching: not sent (matched after the change)
      await update(crash, { title: 'crash again' }); // still not matching
      await update(chore, { story_points: 3 }); // still matching
      expect((await admin.post(`${chore.path}/comments`, { comment: { body: 'on a match' } })).status).toBe(201);
      expect((await admin.post(`${crash.path}/comments`, { comment: { body: 'on no match' } })).status).toBe(201);
      // A comment is matched against its issue as the feed finds it: let the feed handle these
      // before the issue changes again (see docs/change-feed.md#filters).
      await waitFor(() => comments(all.r) >= 2, FEED_WAIT_MS, 'the comments');

      // In the sprint, labelled UI and assigned to the admin who wrote `assignee:@me`.
      const ui = await create(s, { title: 'ui', labels: ['ui'], assignee_id: org.admin.id });
      const unlabelled = await create(s, { title: 'plain', assignee_id: org.admin.id });
      // The sprint is not active yet: not sent, however late the feed handles it (the activation's time decides).
      await update(ui, { title: 'ui planned' });
      expect((await admin.post(`${s}/activate`)).status).toBe(200);
      await update(ui, { title: 'ui active' }); // matches now
      await update(unlabelled, { title: 'plain active' }); // no label
      expect((await admin.post(`${ui.path}/comments`, { comment: { body: 'ui comment' } })).status).toBe(201);
      await waitFor(() => comments(all.r) >= 3, FEED_WAIT_MS, 'the comment');
      await update(ui, { assignee_id: org.member.id }); // someone else's now: not sent

      expect((await admin.delete(chore.path)).status).toBe(204); // matched as it was: sent

      const everything = [
        'issue.created crash',
        'issue.created chore',
        'issue.updated chore',
        'issue.updated crash',
        'issue.updated crash again',
        'issue.updated chore',
        `comment.created on ${chore.id}`,
        `comment.created on ${crash.id}`,
        'issue.created ui',
        'issue.created plain',
        'issue.updated ui planned',
        'sprint.activated S',
        'issue.updated ui active',
        'issue.updated plain active',
        `comment.created on ${ui.id}`,
        'issue.updated ui active',
        'issue.deleted chore',
      ].sort();
      await waitFor(() => all.r.accepted().length >= everything.length, FEED_WAIT_MS, 'every event');
      await waitFor(() => bugs.r.accepted().some((q) => q.body.type === 'issue.deleted'), FEED_WAIT_MS, 'the delete');
      // Deliveries of one event to several endpoints go side by side: a moment more for stragglers.
      await new Promise((resolve) => setTimeout(resolve, 1000));

      expect(seen(all.r)).toEqual(everything);
      expect(seen(bugs.r)).toEqual(
        [
          'issue.created crash',
          'issue.updated chore',
          'issue.updated chore',
          `comment.created on ${chore.id}`,
          // Sprint events are about no one issue: not filtered.
          'sprint.activated S',
          'issue.deleted chore',
        ].sort(),
      );
      expect(seen(mine.r)).toEqual(['issue.updated ui active', `comment.created on ${ui.id}`].sort());
      for (const { r } of [bugs, mine, all]) expect(r.requests.every((q) => q.verified)).toBe(true);
    },
  );

  it(
    'match a project’s own states by name and the categories, and deliver the states’ names and ids',
    { timeout: 150_000 },
    async () => {
      const { admin } = await orgWithClients(gateway);
      const review = await subscribe(admin, ['issue.updated'], 'status:"In review"');
      const started = await subscribe(admin, ['issue.updated'], 'category:started');
      const all = await subscribe(admin, ['issue.updated']);
      const project = (await admin.post('/api/v1/projects', { project: { name: 'Flow', prefix: randomPrefix() } })).body;
      const p = `/api/v1/projects/${project.id}`;
      const state = await admin.post(`${p}/states`, { state: { name: 'In review', category: 'in_progress' } });
      expect(state.status).toBe(201);
      const issue = (await admin.post(`${p}/issues`, { issue: { title: 'flow' } })).body;
      const move = async (status: string, title: string) =>
        expect((await admin.patch(`${p}/issues/${issue.id}`, { issue: { status, title } })).status).toBe(200);
      await move('in_progress', 'started'); // started: not in review
      await move('In review', 'reviewed'); // in review, still started
      await move('done', 'shipped'); // neither
      await waitFor(() => all.r.accepted().length >= 3, FEED_WAIT_MS, 'the three updates');
      await new Promise((resolve) => setTimeout(resolve, 1000));

      expect(seen(review.r)).toEqual(['issue.updated reviewed']);
      expect(seen(started.r)).toEqual(['issue.updated reviewed', 'issue.updated started']);
      const reviewed = all.r.accepted().find((q) => q.body.data.issue.title === 'reviewed')!.body.data;
      expect(reviewed.issue).toMatchObject({ status: 'in_review', state_id: state.body.id, status_category: 'in_progress' });
      expect(reviewed.changes).toEqual([
        { field: 'title', from: 'started', to: 'reviewed' },
        { field: 'status', from: 'in_progress', to: 'in_review' },
        { field: 'state_id', from: 3, to: state.body.id },
      ]);
      // The issue's history says the same.
      const activity = (await admin.get(`${p}/issues/${issue.id}/activity`)).body as { changes: unknown[] }[];
      expect(activity.map((a) => a.changes)).toContainEqual(reviewed.changes);
    },
  );
});

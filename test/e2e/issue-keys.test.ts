import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, useGateway, type ApiClient, type ApiResponse } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';
import { useReceivers, waitFor, type Receiver } from '../support/receiver.ts';
import { mcpClient } from '../support/mcp.ts';

/**
 * An issue by its key (docs/api.md: Issues by key): every write, comment and activity route of an
 * issue answers by its key as the path of the list it lives in answers (same bodies, ETags and
 * preconditions, strict bodies, idempotency, activity, webhooks), wherever it moved; and a nested
 * path that names an issue of another list answers 404 saying where it is now.
 */

const gateway = useGateway();
const receivers = useReceivers();

/** A project with a planning sprint holding two issues and a backlog holding two, as `admin` makes them. */
async function twinProject(admin: ApiClient, orgId: number) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Twin', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'One' } }));
  const s = `${p}/sprints/${sprint.id}`;
  const make = (list: string, title: string) => ok(admin.post(`${list}/issues`, { issue: { title, story_points: 2 } }));
  const inSprint = await make(s, 'In a sprint');
  await make(s, 'Second in the sprint');
  const inBacklog = await make(p, 'In the backlog');
  await make(p, 'Second in the backlog');
  return { orgId, project, p, sprint, s, inSprint, inBacklog };
}
type Twin = Awaited<ReturnType<typeof twinProject>>;

/** How a twin names its two issues: by the nested paths of their lists, or by their keys (the backlog one's once it moved into the sprint too). */
interface Paths {
  sprintIssue: string;
  backlogIssue: string;
  pulled: string;
}
const nested = (t: Twin): Paths => ({
  sprintIssue: `${t.s}/issues/${t.inSprint.id}`,
  backlogIssue: `${t.p}/issues/${t.inBacklog.id}`,
  pulled: `${t.s}/issues/${t.inBacklog.id}`,
});
const byKey = (t: Twin): Paths => ({
  sprintIssue: `/api/v1/issues/${t.inSprint.issue_number}`,
  backlogIssue: `/api/v1/issues/${t.inBacklog.issue_number}`,
  pulled: `/api/v1/issues/${t.inBacklog.issue_number}`,
});

/** What differs between twins (their ids, numbers, times) replaced by what they stand for. */
function normalised(t: Twin, value: unknown): unknown {
  const issues = new Map([
    [t.inSprint.id, 'I1'],
    [t.inBacklog.id, 'I2'],
  ]);
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  // An `id` is an issue's in an object that has an `issue_number` (a comment's, an entry's elsewhere).
  const idOf = (key: string, v: number, issue: boolean) =>
    key === 'project_id' && v === t.project.id
      ? 'P'
      : key === 'sprint_id' && v === t.sprint.id
        ? 'S'
        : key === 'issue_id' || (key === 'id' && issue)
          ? (issues.get(v) ?? 'ID')
          : 'ID';
  const walk = (v: unknown, key = '', issue = false): unknown => {
    if (typeof v === 'string') {
      if (time.test(v)) return 'T';
      if (/^\d+-\d+-\d+$/.test(v)) return 'ENTRY';
      // The one difference by design: a key's 404 names the key (its path names no project or list).
      return v
        .replace(new RegExp(`^Issue ${t.project.prefix}-\\d+ not found$`), 'Issue not found')
        .replaceAll(t.project.prefix, 'PFX');
    }
    if (typeof v === 'number' && /(^|_)id$/.test(key)) return idOf(key, v, issue);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') {
      // A change of an id field (`{field: 'sprint_id', from, to}`): its values are ids of that field.
      const field = (v as { field?: unknown }).field;
      const as = (k: string) => (typeof field === 'string' && (k === 'from' || k === 'to') ? field : k);
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, as(k), 'issue_number' in v)]));
    }
    return v;
  };
  return walk(value);
}

/** One answer as compared between twins: its status, its body, whether it has an ETag. */
const answer = (t: Twin, res: ApiResponse) => ({
  status: res.status,
  body: normalised(t, res.body),
  etag: res.headers.has('etag'),
});

/**
 * The same requests, by one spelling of the twin's issues: reads with ETags, a conditional write, a
 * stale precondition (412), strict bodies (422), a move and its refusal, a comment with an
 * Idempotency-Key replayed and misused, a sprint being completed (409), a delete.
 */
async function script(admin: ApiClient, t: Twin, at: Paths): Promise<unknown[]> {
  const out: unknown[] = [];
  const note = (res: ApiResponse) => {
    out.push(answer(t, res));
    return res;
  };
  const read = note(await admin.get(at.sprintIssue));
  const etag = read.headers.get('etag')!;
  note(await admin.patch(at.sprintIssue, { issue: { title: 'Renamed', story_points: 3 } }, { headers: { 'If-Match': etag } }));
  note(await admin.patch(at.sprintIssue, { issue: { title: 'Stale' } }, { headers: { 'If-Match': etag } }));
  note(await admin.patch(at.sprintIssue, { issue: { title: 'x', owner: 'me' } }));
  note(await admin.patch(at.sprintIssue, { issue: { status: 'nope' } }));
  note(await admin.put(at.sprintIssue, { issue: { description: 'Put', status: 'in_progress' } }));
  note(await admin.patch(at.sprintIssue, { issue: { position: 2 } }));
  note(await admin.patch(at.backlogIssue, { issue: { sprint_id: 999_999 } }));
  note(await admin.patch(at.backlogIssue, { issue: { sprint_id: t.sprint.id, position: 1 } }));
  note(await admin.get(at.pulled));
  const once = { headers: { 'Idempotency-Key': `key-${t.project.id}` } };
  const comment = note(await admin.post(`${at.sprintIssue}/comments`, { comment: { body: 'Looks good' } }, once));
  const replay = note(await admin.post(`${at.sprintIssue}/comments`, { comment: { body: 'Looks good' } }, once));
  expect(replay.body).toEqual(comment.body);
  note(await admin.post(`${at.sprintIssue}/comments`, { comment: { body: 'Another body' } }, once));
  note(await admin.post(`${at.sprintIssue}/comments`, { comment: { body: '' } }));
  note(await admin.get(`${at.sprintIssue}/comments`));
  // The comment is the last change: once its entry is there, the issue's activity is whole.
  await activityOf(admin, at.sprintIssue, 1, (e: { event: string }) => e.event.startsWith('comment.'));
  note(await admin.get(`${at.sprintIssue}/activity`));
  note(await admin.delete(at.pulled, { headers: { 'If-Match': etag } }));
  await completing(t, true);
  note(await admin.patch(at.sprintIssue, { issue: { title: 'While completing' } }));
  note(await admin.delete(at.pulled));
  await completing(t, false);
  note(await admin.delete(at.pulled));
  note(await admin.get(at.pulled));
  return out;
}

/** Marks the twin's sprint as being completed (as a completion too large for one transaction leaves it meanwhile), or not. */
async function completing(t: Twin, on: boolean) {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sprint(t.orgId, t.project.id, t.sprint.id),
      UpdateExpression: 'SET #status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': on ? 'completing' : 'planning' },
    }),
  );
}

/** What a receiver got for one twin's project, in order, normalised. */
const deliveredFor = (r: Receiver, t: Twin) =>
  r
    .accepted()
    .map((d) => d.body)
    .filter((b) => JSON.stringify(b).includes(`"project_id":${t.project.id}`))
    .map((b) => normalised(t, { type: b.type, data: b.data }));

describe('issues by key', () => {
  it('answers every write, comment and activity route as the nested path answers it: bodies, ETags, 412, 422, idempotency, 409, activity and webhooks', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const r = await receivers.start();
    r.secret = (
      await ok(
        admin.post('/api/v1/webhooks', {
          webhook: { url: r.url, events: ['issue.created', 'issue.updated', 'issue.deleted', 'comment.created'] },
        }),
      )
    ).secret;
    const one = await twinProject(admin, org.orgId);
    const other = await twinProject(admin, org.orgId);
    const viaPath = await script(admin, one, nested(one));
    const viaKey = await script(admin, other, byKey(other));
    expect(viaKey).toEqual(viaPath);
    // Every kind of answer was met: 200, 201, 204, 404, 409, 412, 422.
    const statuses = new Set(
      viaKey.flatMap((a) => ((a as { status?: number }).status === undefined ? [] : [(a as { status: number }).status])),
    );
    expect([...statuses].sort()).toEqual([200, 201, 204, 404, 409, 412, 422]);
    // The script's writes that a webhook hears: 10 on each path, every one delivered before comparing.
    await waitFor(() => deliveredFor(r, one).length >= 10 && deliveredFor(r, other).length >= 10);
    // Deliveries run side by side and may arrive in any order (docs/change-feed.md): the same ones, in any order.
    const inAnyOrder = (t: Twin) => deliveredFor(r, t).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(inAnyOrder(other)).toEqual(inAnyOrder(one));
  }, 120_000);
});

describe('an issue that moved by itself', () => {
  it('is written by its key after a completion carried it over and after a restore put it at the end of the backlog', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const t = await twinProject(admin, org.orgId);
    const key = `/api/v1/issues/${t.inSprint.issue_number}`;
    await ok(admin.post(`${t.s}/activate`, {}));
    await ok(admin.post(`${t.s}/complete`, {}));
    // Carried over to the backlog: its key still names it; its sprint's path says where it went.
    const carried = await admin.patch(key, { issue: { title: 'Carried over' } });
    expect(carried.status).toBe(200);
    expect(carried.body).toMatchObject({ id: t.inSprint.id, sprint_id: null, title: 'Carried over' });
    expect(carried.body).toEqual((await admin.get(`${t.p}/issues/${t.inSprint.id}`)).body);
    // The completion moved its pointer with it: read by key at a key's cost, no list followed.
    expect((await admin.get(key)).dbCalls).toBe(4);
    const old = await admin.patch(`${t.s}/issues/${t.inSprint.id}`, { issue: { title: 'Lost' } });
    expect(old.status).toBe(404);
    expect(old.body).toEqual({
      error: `Issue not found: it is ${t.inSprint.issue_number}, now in the backlog: ${key}`,
      issue_key: t.inSprint.issue_number,
      location: key,
    });
    expect((await admin.post(`${key}/comments`, { comment: { body: 'Still here' } })).status).toBe(201);
    expect((await admin.get(`${key}/comments`)).body.map((c: { body: string }) => c.body)).toEqual(['Still here']);

    // Deleted by its key from a sprint that is then deleted: its restore puts it at the end of the backlog.
    const sprint = await ok(admin.post(`${t.p}/sprints`, { sprint: { name: 'Two' } }));
    const doomed = await ok(admin.post(`${t.p}/sprints/${sprint.id}/issues`, { issue: { title: 'Restored' } }));
    const doomedKey = `/api/v1/issues/${doomed.issue_number}`;
    expect((await admin.delete(doomedKey)).status).toBe(204);
    expect((await admin.get(doomedKey)).status).toBe(404);
    expect((await admin.delete(`${t.p}/sprints/${sprint.id}`)).status).toBe(204);
    const restored = await admin.post(`/api/v1/trash/issue-${doomed.id}/restore`);
    expect(restored.body).toMatchObject({ placed: 'backlog_end', item: { sprint_id: null } });
    expect((await admin.get(doomedKey)).dbCalls).toBe(4);
    const written = await admin.patch(doomedKey, { issue: { story_points: 8, position: 1 } });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ id: doomed.id, sprint_id: null, story_points: 8, position: 1 });
    await activityOf(admin, doomedKey, 1, (e: { changes: { field: string }[] }) =>
      e.changes.some((c) => c.field === 'story_points'),
    );
  }, 120_000);

  it("follows its issue when its pointer's list is behind (moved between the two reads) or absent (written before pointers kept it)", async () => {
    const { admin, org } = await orgWithClients(gateway);
    const t = await twinProject(admin, org.orgId);
    const key = `/api/v1/issues/${t.inSprint.issue_number}`;
    const pointer = keys.issueKey(org.orgId, t.inSprint.issue_number);
    const expected = (await admin.get(`${t.s}/issues/${t.inSprint.id}`)).body;
    // A pointer that says the backlog: the issue's own read says the sprint, and is followed.
    const set = (expression: string, values?: Record<string, unknown>) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: pointer,
          UpdateExpression: expression,
          ExpressionAttributeValues: values,
        }),
      );
    await set('SET sprint_id = :none', { ':none': null });
    const behind = await admin.get(key);
    expect(behind.body).toEqual(expected);
    // The place's Query sent ahead in the pointer's list is spent; the issue's list is read again, then its place.
    expect(behind.dbCalls).toBe(6);
    // A pointer without its list: the issue is read first to find it.
    await set('REMOVE sprint_id');
    const written = await admin.patch(key, { issue: { title: 'Found' } });
    expect(written.status).toBe(200);
    expect(written.body).toMatchObject({ id: t.inSprint.id, sprint_id: t.sprint.id, title: 'Found' });
  }, 60_000);
});

describe('an issue that moved within its list', () => {
  /** The stored list keys of an issue and of its number's pointer (a hint). */
  const storedKeys = async (orgId: number, projectId: number, issue: { id: number; issue_number: string }) => {
    const get = async (key: { PK: string; SK: string }) =>
      Number((await db.send(new GetCommand({ TableName: tableName(), Key: key }))).Item?.position);
    return {
      issue: await get(keys.issue(orgId, projectId, issue.id)),
      pointer: await get(keys.issueKey(orgId, issue.issue_number)),
    };
  };

  it('is read by its key at its place, the place counted beside its read, after it moved and after a neighbour was renumbered', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Moves', prefix: randomPrefix() } }));
    const p = `/api/v1/projects/${project.id}`;
    const sprint = await ok(admin.post(`${p}/sprints`, { sprint: { name: 'One' } }));
    const s = `${p}/sprints/${sprint.id}`;
    const issues: { id: number; issue_number: string }[] = [];
    for (let i = 0; i < 14; i++) issues.push(await ok(admin.post(`${s}/issues`, { issue: { title: `I${i}` } })));
    const byKey = (issue: { issue_number: string }) => `/api/v1/issues/${issue.issue_number}`;
    /** Its answer by key is its answer by its list's path: the same place. */
    const readsAsNested = async (issue: { id: number; issue_number: string }) => {
      const got = await admin.get(byKey(issue));
      expect(got.body).toEqual((await admin.get(`${s}/issues/${issue.id}`)).body);
      return got;
    };

    // As created: the token, the pointer, then the issue with its ancestors beside its place's Query.
    const fresh = await readsAsNested(issues[3]!);
    expect([fresh.body.position, fresh.dbCalls, fresh.roundTrips]).toEqual([4, 4, 3]);

    // Moved within its list: its pointer is put with its new key, so the same cost.
    const moved = await admin.patch(byKey(issues[3]!), { issue: { position: 9 } });
    expect(moved.body.position).toBe(9);
    const rewritten = await storedKeys(org.orgId, project.id, issues[3]!);
    expect(rewritten.pointer).toBe(rewritten.issue);
    const after = await readsAsNested(issues[3]!);
    expect([after.body.position, after.dbCalls, after.roundTrips]).toEqual([9, 4, 3]);
    // Its neighbours' places moved, their keys (and pointers) did not.
    expect((await readsAsNested(issues[8]!)).body.position).toBe(8);

    // Moves into one place until no integer is left there: the move renumbers neighbours, whose
    // pointers keep the keys they had. Read by key, such an issue is counted again at its own key.
    const renumbered = async () => {
      for (const issue of issues) {
        const stored = await storedKeys(org.orgId, project.id, issue);
        if (stored.issue !== stored.pointer) return issue;
      }
      return undefined;
    };
    let stale: { id: number; issue_number: string } | undefined;
    for (let i = 0; i < 30 && !stale; i++) {
      const last = (await admin.get(`${s}/issues?per_page=100`)).body.at(-1);
      expect((await admin.patch(`${s}/issues/${last.id}`, { issue: { position: 2 } })).status).toBe(200);
      stale = await renumbered();
    }
    expect(stale).toBeDefined();
    const fallback = await readsAsNested(stale!);
    // The Query sent ahead for the pointer's key is spent: the issue's own key's Query follows the read.
    expect([fallback.dbCalls, fallback.roundTrips]).toEqual([5, 4]);
    const patched = await admin.patch(byKey(stale!), { issue: { title: 'Renumbered' } });
    expect(patched.body.position).toBe(fallback.body.position);
    expect(patched.body).toEqual((await admin.get(`${s}/issues/${stale!.id}`)).body);

    // A hint that names another issue's key in the same block is never taken for the issue's.
    const [a, b] = [issues[5]!, issues[6]!];
    const other = await storedKeys(org.orgId, project.id, b);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issueKey(org.orgId, a.issue_number),
        UpdateExpression: 'SET #position = :other',
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: { ':other': other.issue },
      }),
    );
    const wrongHint = await readsAsNested(a);
    expect(wrongHint.roundTrips).toBe(4);
  }, 120_000);
});

describe('a nested path that names an issue of another list', () => {
  it('answers 404 naming its key and its location, for every route of an issue, and writes nothing', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const t = await twinProject(admin, org.orgId);
    const other = await ok(admin.post(`${t.p}/sprints`, { sprint: { name: 'Other' } }));
    const hint = (issue: { issue_number: string }, where: string) => ({
      error: `Issue not found: it is ${issue.issue_number}, now ${where}: /api/v1/issues/${issue.issue_number}`,
      issue_key: issue.issue_number,
      location: `/api/v1/issues/${issue.issue_number}`,
    });
    const wrong = [
      [`${t.p}/issues/${t.inSprint.id}`, t.inSprint, `in sprint ${t.sprint.id}`],
      [`${t.p}/sprints/${other.id}/issues/${t.inSprint.id}`, t.inSprint, `in sprint ${t.sprint.id}`],
      [`${t.s}/issues/${t.inBacklog.id}`, t.inBacklog, 'in the backlog'],
    ] as const;
    for (const [path, issue, where] of wrong) {
      const answers = [
        await admin.get(path),
        await admin.patch(path, { issue: { title: 'Not here' } }),
        await admin.put(path, { issue: { title: 'Not here' } }),
        await admin.delete(path),
        await admin.get(`${path}/comments`),
        await admin.post(`${path}/comments`, { comment: { body: 'Not here' } }),
        await admin.get(`${path}/activity`),
      ];
      for (const res of answers)
        expect({ path, status: res.status, body: res.body }).toEqual({ path, status: 404, body: hint(issue, where) });
      // Its location answers it, untouched.
      const there = await admin.get(hint(issue, where).location);
      expect(there.body).toMatchObject({ id: issue.id, title: issue.title });
    }
    // The success path pays nothing for it; the 404 of a comment's write, one read.
    const read = await admin.get(`${t.s}/issues/${t.inSprint.id}`);
    expect([read.status, read.dbCalls]).toEqual([200, 3]);
    const refused = await admin.post(`${t.p}/issues/${t.inSprint.id}/comments`, { comment: { body: 'x' } });
    expect([refused.status, refused.dbCalls]).toEqual([404, 4]);
    // An id that names no issue: the plain 404.
    expect((await admin.get(`${t.p}/issues/999999`)).body).toEqual({ error: 'Issue not found' });
  }, 120_000);

  it("never hints at another organisation's issue: its key and its ids are unknown there", async () => {
    const mine = await orgWithClients(gateway);
    const theirs = await orgWithClients(gateway);
    const t = await twinProject(mine.admin, mine.org.orgId);
    const u = await twinProject(theirs.admin, theirs.org.orgId);
    // Their project and sprint have the same ids as mine (each organisation counts its own).
    expect([u.project.id, u.sprint.id]).toEqual([t.project.id, t.sprint.id]);
    const strange = await theirs.admin.get(`/api/v1/issues/${t.inSprint.issue_number}`);
    expect([strange.status, strange.body]).toEqual([404, { error: `Issue ${t.inSprint.issue_number} not found` }]);
    for (const path of [`${u.p}/issues/${t.inSprint.id + 1000}`, `${u.s}/issues/${t.inSprint.id + 1000}`]) {
      const res = await theirs.admin.patch(path, { issue: { title: 'x' } });
      expect([res.status, res.body]).toEqual([404, { error: 'Issue not found' }]);
    }
  }, 60_000);
});

describe('an agent', () => {
  it('reads, updates, moves, comments on, reads the activity of and deletes an issue by its number alone, as the routes by key do, at their cost', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const t = await twinProject(admin, org.orgId);
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    try {
      const issue_number = t.inSprint.issue_number as string;
      const key = `/api/v1/issues/${issue_number}`;
      const updated = await mcp.call('update_issue', { issue_number, title: 'By the agent' });
      expect(updated.result.structuredContent).toMatchObject({ issue: (await admin.get(key)).body });
      // As PATCH by key: the token, the key's pointer, the issue with its list, its place beside the write.
      expect(updated.dbCalls).toBeLessThanOrEqual(5);
      expect((await mcp.ok('move_issue', { issue_number, to_sprint_id: null })).issue).toMatchObject({ sprint_id: null });
      expect((await mcp.ok('add_comment', { issue_number, body: 'From the agent' })).comment).toMatchObject({
        body: 'From the agent',
      });
      expect((await mcp.ok('list_comments', { issue_number })).comments.map((c: { body: string }) => c.body)).toEqual([
        'From the agent',
      ]);
      await activityOf(admin, key, 1, (e: { event: string }) => e.event === 'comment.created');
      const history = await mcp.ok('get_issue_activity', { issue_number });
      expect(history.activity.map((e: { event: string }) => e.event)).toEqual(
        (await admin.get(`${key}/activity`)).body.map((e: { event: string }) => e.event),
      );
      await mcp.ok('delete_issue', { issue_number });
      expect((await admin.get(key)).status).toBe(404);
      expect(await mcp.error('get_issue', { issue_number })).toContain(`Issue ${issue_number} not found`);
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

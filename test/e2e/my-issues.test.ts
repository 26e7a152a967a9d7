import { describe, expect, it } from 'vitest';
import { assigneePk, orgPk } from '../../lib/db/core/keys.ts';
import { type ApiClient, followPages, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { itemsIn } from '../support/cascade.ts';
import { mcpClient } from '../support/mcp.ts';
import { heldInTrash } from '../support/trash.ts';
import { bounds, eventually } from '../support/eventually.ts';

/** "What is assigned to me": GET /api/v1/me/issues across the projects of an organisation. */

const gateway = useGateway();

async function project(admin: ApiClient) {
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const sprint = (await admin.post(`/api/v1/projects/${p.id}/sprints`, { sprint: { name: 'Sprint 1' } })).body;
  return {
    id: p.id as number,
    backlog: `/api/v1/projects/${p.id}/issues`,
    sprintIssues: `/api/v1/projects/${p.id}/sprints/${sprint.id}/issues`,
  };
}

const follow = (client: ApiClient, url: string) => followPages<{ id: number; position: number; status: string }>(client, url);

const ids = (items: { id: number }[]) => items.map((i) => i.id);

describe('my issues', () => {
  it("lists the caller's assigned issues across projects, newest update first, with their places and an exact total", async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const a = await project(admin);
    const b = await project(admin);
    const me = org.member.id;
    const first = (await admin.post(a.backlog, { issue: { title: 'A1', assignee_id: me } })).body;
    await admin.post(a.backlog, { issue: { title: 'A2 (admin)', assignee_id: org.admin.id } });
    const second = (await admin.post(b.sprintIssues, { issue: { title: 'B1', assignee_id: me } })).body;
    await admin.post(b.sprintIssues, { issue: { title: 'B2 (nobody)' } });
    const third = (await admin.post(b.sprintIssues, { issue: { title: 'B3', assignee_id: me } })).body;

    const res = await member.get('/api/v1/me/issues');
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual([third.id, second.id, first.id]);
    expect(res.headers.get('x-total-count')).toBe('3');
    // Each issue shows its place in its own list.
    expect(res.body.map((i: { position: number }) => i.position)).toEqual([3, 1, 1]);
    expect(res.body[0]).toMatchObject({ project_id: b.id, sprint_id: third.sprint_id, title: 'B3' });

    // Updating one puts it first; the admin's list holds only the admin's.
    await admin.patch(`${a.backlog}/${first.id}`, { issue: { status: 'in_progress' } });
    expect(ids((await member.get('/api/v1/me/issues')).body)).toEqual([first.id, third.id, second.id]);
    expect(ids((await admin.get('/api/v1/me/issues')).body)).toHaveLength(1);
  });

  it('follows reassignment, moves between lists and deletion, with the count kept exact', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const p = await project(admin);
    const me = org.member.id;
    const x = (await admin.post(p.sprintIssues, { issue: { title: 'x', assignee_id: me } })).body;
    const y = (await admin.post(p.sprintIssues, { issue: { title: 'y', assignee_id: me } })).body;
    const z = (await admin.post(p.backlog, { issue: { title: 'z' } })).body;

    // Reassigned away, and another assigned in.
    await admin.patch(`${p.sprintIssues}/${x.id}`, { issue: { assignee_id: org.admin.id } });
    await admin.patch(`${p.backlog}/${z.id}`, { issue: { assignee_id: me } });
    let mine = await member.get('/api/v1/me/issues');
    expect(ids(mine.body)).toEqual([z.id, y.id]);
    expect(mine.headers.get('x-total-count')).toBe('2');

    // Moved to the backlog: still mine, now with the backlog's sprint_id and place.
    await admin.patch(`${p.sprintIssues}/${y.id}`, { issue: { sprint_id: null, position: 1 } });
    mine = await member.get('/api/v1/me/issues');
    expect(mine.body[0]).toMatchObject({ id: y.id, sprint_id: null, position: 1 });
    expect(mine.body[1]).toMatchObject({ id: z.id, position: 2 });

    // Unassigned and deleted: gone from the list and from the count.
    await admin.patch(`${p.backlog}/${z.id}`, { issue: { assignee_id: null } });
    await admin.delete(`${p.backlog}/${y.id}`);
    mine = await member.get('/api/v1/me/issues');
    expect(mine.body).toEqual([]);
    expect(mine.headers.get('x-total-count')).toBe('0');
    expect(await itemsIn({ pk: assigneePk(org.orgId, me), skPrefix: 'ISSUE#' })).toEqual([]);
  });

  it('carries the open issues of a completed sprint along, updated now', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const p = await project(admin);
    const sprint = (await admin.get(p.sprintIssues.replace(/\/issues$/, ''))).body;
    const open = (await admin.post(p.sprintIssues, { issue: { title: 'open', assignee_id: org.member.id } })).body;
    const done = (await admin.post(p.sprintIssues, { issue: { title: 'done', status: 'done', assignee_id: org.member.id } }))
      .body;
    const later = (await admin.post(p.backlog, { issue: { title: 'later', assignee_id: org.member.id } })).body;
    const sprintPath = p.sprintIssues.replace(/\/issues$/, '');
    expect((await admin.post(`${sprintPath}/activate`, {})).status).toBe(200);
    expect((await admin.post(`${sprintPath}/complete`, {})).status).toBe(200);
    expect(sprint.id).toBeGreaterThan(0);

    const mine = (await member.get('/api/v1/me/issues')).body;
    // The carried-over issue was updated by the completion: newest first, now in the backlog, last.
    expect(ids(mine)).toEqual([open.id, later.id, done.id]);
    expect(mine[0]).toMatchObject({ sprint_id: null, position: 2 });
  });

  it('filters by status, pages by number and by cursor, and refuses bad values with 422', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const p = await project(admin);
    const made: number[] = [];
    for (let i = 0; i < 7; i++) {
      const status = i % 3 === 0 ? 'done' : 'todo';
      made.push((await admin.post(p.backlog, { issue: { title: `t${i}`, status, assignee_id: org.member.id } })).body.id);
    }
    const newest = [...made].reverse();

    const page2 = await member.get('/api/v1/me/issues?per_page=3&page=2');
    expect(ids(page2.body)).toEqual(newest.slice(3, 6));
    expect(page2.headers.get('x-total-count')).toBe('7');
    const all = await follow(member, '/api/v1/me/issues?per_page=2');
    expect(ids(all.items)).toEqual(newest);

    const done = await follow(member, '/api/v1/me/issues?status=done&per_page=2');
    expect(ids(done.items)).toEqual(newest.filter((_, i) => [0, 3, 6].includes(newest.length - 1 - i)));
    expect(done.total).toBe(3);
    const both = await follow(member, '/api/v1/me/issues?status=done,todo');
    expect(ids(both.items)).toEqual(newest);

    for (const bad of ['status=open', 'status=', 'status=done,,todo', 'per_page=0', 'cursor=forged', 'status=done&page=2']) {
      const res = await member.get(`/api/v1/me/issues?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.errors, bad).toBeInstanceOf(Array);
    }
  });

  it("reads a page in three round trips whatever the number of projects, and never shows another organisation's issues", async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const mine: number[] = [];
    for (let k = 0; k < 3; k++) {
      const p = await project(admin);
      mine.push((await admin.post(p.backlog, { issue: { title: `p${k}`, assignee_id: org.member.id } })).body.id);
    }
    const q = await project(other.admin);
    await other.admin.post(q.backlog, { issue: { title: 'theirs', assignee_id: other.org.member.id } });

    const res = await member.get('/api/v1/me/issues');
    expect(ids(res.body)).toEqual([...mine].reverse());
    // The authorizer, the index Query, one BatchGet, and one place Query per list (in parallel).
    expect(Number(res.headers.get('x-db-calls'))).toBe(3 + mine.length);
  });

  it('places the issues of one list with one Query across its blocks, each at the place its list shows', async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const p = await project(admin);
    // 70 issues: three blocks of the list's rank index; every seventh is the member's.
    for (let k = 0; k < 70; k++) {
      const assignee = k % 7 === 3 ? org.member.id : org.admin.id;
      await admin.post(p.sprintIssues, { issue: { title: `s${k}`, assignee_id: assignee } });
    }
    // Moves shuffle the places (and keys) across the blocks.
    const listed = (await admin.get(`${p.sprintIssues}?per_page=100`)).body as { id: number }[];
    await admin.patch(`${p.sprintIssues}/${listed[66]!.id}`, { issue: { position: 1 } });
    await admin.patch(`${p.sprintIssues}/${listed[3]!.id}`, { issue: { position: 50 } });

    const res = await member.get('/api/v1/me/issues');
    expect(res.body).toHaveLength(10);
    const places = new Map(
      ((await admin.get(`${p.sprintIssues}?per_page=100`)).body as { id: number }[]).map((issue, i) => [issue.id, i + 1]),
    );
    for (const issue of res.body as { id: number; position: number }[]) expect(issue.position).toBe(places.get(issue.id));
    expect(Number(res.headers.get('x-db-calls'))).toBe(4);
  });

  it("drops a deleted project's or sprint's issues at once, takes them out of the index and the count, and a restore puts them back", async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const keep = await project(admin);
    const gone = await project(admin);
    const kept = (await admin.post(keep.backlog, { issue: { title: 'kept', assignee_id: org.member.id } })).body;
    const numbers: string[] = [];
    for (let i = 0; i < 3; i++) {
      numbers.push(
        (await admin.post(gone.sprintIssues, { issue: { title: `g${i}`, assignee_id: org.member.id } })).body.issue_number,
      );
    }
    numbers.push((await admin.post(gone.backlog, { issue: { title: 'gb' } })).body.issue_number);
    const all = await member.get('/api/v1/me/issues');
    expect(all.headers.get('x-total-count')).toBe('4');

    expect((await admin.delete(`/api/v1/projects/${gone.id}`)).status).toBe(204);
    expect(ids((await member.get('/api/v1/me/issues')).body)).toEqual([kept.id]);
    // Into the trash: once its issues are taken out, their numbers' pointers are gone, assigned or not.
    await heldInTrash(admin, `project-${gone.id}`);
    for (const number of numbers) expect(await itemsIn({ pk: orgPk(org.orgId), skPrefix: `ISSUEKEY#${number}` })).toEqual([]);
    expect((await member.get(`/api/v1/issues/${numbers[0]}`)).status).toBe(404);
    let after = await member.get('/api/v1/me/issues');
    expect(ids(after.body)).toEqual([kept.id]);
    expect(after.headers.get('x-total-count')).toBe('1');
    expect(await itemsIn({ pk: assigneePk(org.orgId, org.member.id), skPrefix: 'ISSUE#' })).toHaveLength(1);

    // A deleted sprint's issues go the same way.
    const inSprint = (await admin.post(keep.sprintIssues, { issue: { title: 's', assignee_id: org.member.id } })).body;
    expect(ids((await member.get('/api/v1/me/issues')).body)).toEqual([inSprint.id, kept.id]);
    expect((await admin.delete(keep.sprintIssues.replace(/\/issues$/, ''))).status).toBe(204);
    expect(ids((await member.get('/api/v1/me/issues')).body)).toEqual([kept.id]);
    await heldInTrash(admin, `sprint-${inSprint.sprint_id}`);
    after = await member.get('/api/v1/me/issues');
    expect(after.headers.get('x-total-count')).toBe('1');
    expect(await itemsIn({ pk: assigneePk(org.orgId, org.member.id), skPrefix: 'ISSUE#' })).toHaveLength(1);

    // Restored, the project's issues are the member's again, as they were.
    expect((await admin.post(`/api/v1/trash/project-${gone.id}/restore`)).status).toBe(202);
    await eventually(
      'the project back',
      async () => (await admin.get(`/api/v1/trash/project-${gone.id}`)).status,
      (status) => status === 404,
      bounds.cascade(),
    );
    const back = await member.get('/api/v1/me/issues');
    expect(back.body).toEqual(all.body);
    expect(back.headers.get('x-total-count')).toBe('4');
  });

  it('answers my_issues over MCP through the same path, with the status filter', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const p = await project(admin);
    const a = (await admin.post(p.backlog, { issue: { title: 'a', assignee_id: org.member.id } })).body;
    const b = (await admin.post(p.backlog, { issue: { title: 'b', status: 'done', assignee_id: org.member.id } })).body;
    const mcp = await mcpClient(gateway.baseUrl, org.member.token);
    try {
      const all = await mcp.ok('my_issues', {});
      expect(ids(all.issues)).toEqual([b.id, a.id]);
      expect(all).toMatchObject({ total: 2, next_cursor: null });
      const first = await mcp.ok('my_issues', { limit: 1 });
      expect(ids(first.issues)).toEqual([b.id]);
      expect(ids((await mcp.ok('my_issues', { limit: 1, cursor: first.next_cursor })).issues)).toEqual([a.id]);
      const done = await mcp.ok('my_issues', { status: ['done'] });
      expect(ids(done.issues)).toEqual([b.id]);
    } finally {
      await mcp.close();
    }
  });
});

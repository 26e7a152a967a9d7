import { describe, expect, it } from 'vitest';
import { type ApiClient, followPages, nextLink, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';
import { seedProject } from '../support/seed.ts';

/** Issue lists people can find things in: filters, lookup by key, and what a read of a place costs. */

const gateway = useGateway();

async function project(admin: ApiClient, prefix = randomPrefix()) {
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix } })).body;
  const sprints = `/api/v1/projects/${p.id}/sprints`;
  const sprint = (await admin.post(sprints, { sprint: { name: 'Sprint 1' } })).body;
  return {
    project: p,
    prefix,
    sprints,
    sprint,
    issues: `${sprints}/${sprint.id}/issues`,
    backlog: `/api/v1/projects/${p.id}/issues`,
  };
}

const follow = (client: ApiClient, url: string) => followPages<{ id: number; position: number; title: string }>(client, url);

describe('issue list filters', () => {
  it('filters by status, assignee, title text and update time, alone and combined, with places in the whole list', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { backlog } = await project(admin);
    const spec = [
      { title: 'Login page broken', status: 'todo', assignee_id: org.admin.id },
      { title: 'Fix LOGIN timeout', status: 'in_progress', assignee_id: null },
      { title: 'Write docs', status: 'todo', assignee_id: org.member.id },
      { title: 'Release notes', status: 'done', assignee_id: org.admin.id },
      { title: 'login audit', status: 'cancelled', assignee_id: org.member.id },
    ];
    const made: { id: number; updated_at: string }[] = [];
    for (const issue of spec) made.push((await admin.post(backlog, { issue })).body);
    const ids = (res: { items: { id: number }[] }) => res.items.map((i) => i.id);
    const at = (...k: number[]) => k.map((i) => made[i]?.id);

    const todo = await follow(admin, `${backlog}?status=todo`);
    expect(ids(todo)).toEqual(at(0, 2));
    expect(todo.items.map((i) => i.position)).toEqual([1, 3]);
    expect(todo.total).toBe(2);
    expect(ids(await follow(admin, `${backlog}?status=done,cancelled`))).toEqual(at(3, 4));
    expect(ids(await follow(admin, `${backlog}?assignee_id=${org.member.id}`))).toEqual(at(2, 4));
    expect(ids(await follow(admin, `${backlog}?assignee_id=none`))).toEqual(at(1));
    expect(ids(await follow(admin, `${backlog}?q=login`))).toEqual(at(0, 1, 4));
    expect(ids(await follow(admin, `${backlog}?q=LOGIN&status=todo,in_progress`))).toEqual(at(0, 1));
    expect(ids(await follow(admin, `${backlog}?q=login&assignee_id=${org.admin.id}&status=todo`))).toEqual(at(0));

    // updated_since: only what changed at or after the instant.
    const since = new Date(Date.now() + 5).toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await admin.patch(`${backlog}/${made[3]?.id}`, { issue: { title: 'Release notes v2' } });
    expect(ids(await follow(admin, `${backlog}?updated_since=${encodeURIComponent(since)}`))).toEqual(at(3));
    const offset = since.replace('Z', '+00:00');
    expect(ids(await follow(admin, `${backlog}?updated_since=${encodeURIComponent(offset)}&status=done`))).toEqual(at(3));
    expect(ids(await follow(admin, `${backlog}?updated_since=${encodeURIComponent(offset)}&status=todo`))).toEqual([]);
  });

  it('answers 422 {errors} to hostile filter values, and to page=N without the cursor of a filtered list', async () => {
    const { admin } = await orgWithClients(gateway);
    const { backlog, issues } = await project(admin);
    await admin.post(backlog, { issue: { title: 'x' } });
    for (const query of [
      'status=',
      'status=open',
      'status=todo,,done',
      'status=todo;drop',
      'status=TODO',
      'assignee_id=0',
      'assignee_id=-3',
      'assignee_id=abc',
      'assignee_id=1e3',
      'assignee_id=99999999999999999999',
      'q=',
      `q=${'x'.repeat(256)}`,
      'updated_since=yesterday',
      'updated_since=2026-13-40T00:00:00Z',
      'updated_since=1700000000',
      'status=todo&page=2',
    ]) {
      for (const base of [backlog, issues]) {
        const res = await admin.get(`${base}?${query}`);
        expect(res.status, query).toBe(422);
        expect(res.body.errors, query).toEqual([expect.any(String)]);
      }
    }
    // Text that looks like an expression is only text.
    const odd = await admin.post(backlog, { issue: { title: "a' OR 1=1 -- %_*" } });
    const found = await follow(admin, `${backlog}?q=${encodeURIComponent("' OR 1=1 -- %_*")}`);
    expect(found.items.map((i) => i.id)).toEqual([odd.body.id]);
  });

  it('pages a filtered list by cursor, keeps the filter in the links, and totals the matches on its last page', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { backlog } = await project(admin);
    for (let i = 0; i < 30; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          admin.post(backlog, { issue: { title: `I${i + k}`, assignee_id: (i + k) % 3 === 0 ? org.member.id : null } }),
        ),
      );
    }
    const all = (await admin.get(`${backlog}?per_page=100`)).body as { id: number; assignee_id: number | null }[];
    const expected = all
      .map((i, k) => ({ id: i.id, position: k + 1, mine: i.assignee_id === org.member.id }))
      .filter((i) => i.mine);
    const first = await admin.get(`${backlog}?assignee_id=${org.member.id}&per_page=4`);
    expect(first.headers.get('link')).toContain(`assignee_id=${org.member.id}`);
    expect(first.headers.get('link')).not.toContain('rel="last"');
    const walked = await follow(admin, `${backlog}?assignee_id=${org.member.id}&per_page=4`);
    expect(walked.items.map((i) => [i.id, i.position])).toEqual(expected.map((i) => [i.id, i.position]));
    expect(walked.total).toBe(10);
    expect(walked.pages).toBe(3);
  });

  it('reads a filtered page within the budget of a list read (3 DynamoDB calls, auth included)', async () => {
    const { admin } = await orgWithClients(gateway);
    const { backlog } = await project(admin);
    await Promise.all(Array.from({ length: 12 }, (_, k) => admin.post(backlog, { issue: { title: `T${k}` } })));
    expect((await admin.get(`${backlog}?q=t1&status=backlog`)).dbCalls).toBeLessThanOrEqual(3);
  });
});

describe('issue lookup by key', () => {
  it('finds an issue by its key in any case, in a sprint or in the backlog, with project_id and sprint_id', async () => {
    const { admin } = await orgWithClients(gateway);
    const { project: p, prefix, sprint, issues, backlog } = await project(admin);
    const inSprint = (await admin.post(issues, { issue: { title: 'in sprint' } })).body;
    const inBacklog = (await admin.post(backlog, { issue: { title: 'in backlog' } })).body;
    const got = await admin.get(`/api/v1/issues/${inSprint.issue_number}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...inSprint, position: 1 });
    expect(got.body).toMatchObject({ project_id: p.id, sprint_id: sprint.id });
    // Auth, the pointer, the issue with its project, then its place (and, in a sprint, the sprint beside it).
    expect(got.dbCalls).toBeLessThanOrEqual(5);
    const lower = await admin.get(`/api/v1/issues/${inBacklog.issue_number.toLowerCase()}`);
    expect(lower.body).toMatchObject({ id: inBacklog.id, sprint_id: null, position: 1 });
    expect(lower.dbCalls).toBeLessThanOrEqual(4);
    // Moved to the backlog: found there.
    await admin.patch(`${issues}/${inSprint.id}`, { issue: { sprint_id: null, position: 1 } });
    expect((await admin.get(`/api/v1/issues/${inSprint.issue_number}`)).body).toMatchObject({ sprint_id: null, position: 1 });
    // Deleted: gone.
    await admin.delete(`${backlog}/${inBacklog.id}`);
    expect((await admin.get(`/api/v1/issues/${inBacklog.issue_number}`)).status).toBe(404);
    for (const bad of [`${prefix}-0`, `${prefix}-99999`, 'X-1', `${prefix}1`, '%20', `${prefix}-1-1`]) {
      expect((await admin.get(`/api/v1/issues/${bad}`)).status, bad).toBe(404);
    }
  });

  it("answers 404 for another organisation's key, even with the same prefix", async () => {
    const a = await orgWithClients(gateway);
    const b = await orgWithClients(gateway);
    const prefix = randomPrefix();
    const pa = await project(a.admin, prefix);
    const issue = (await a.admin.post(pa.backlog, { issue: { title: 'secret' } })).body;
    expect((await b.admin.get(`/api/v1/issues/${issue.issue_number}`)).status).toBe(404);
    await project(b.admin, prefix);
    expect((await b.admin.get(`/api/v1/issues/${issue.issue_number}`)).status).toBe(404);
    expect((await a.member.get(`/api/v1/issues/${issue.issue_number}`)).body.id).toBe(issue.id);
  });

  it('answers 404 once the sprint of the issue is deleted, and once its project is', async () => {
    const { admin } = await orgWithClients(gateway);
    const { project: p, sprints, sprint, issues } = await project(admin);
    const issue = (await admin.post(issues, { issue: { title: 'doomed' } })).body;
    expect((await admin.delete(`${sprints}/${sprint.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/issues/${issue.issue_number}`)).status).toBe(404);
    const other = await project(admin);
    const kept = (await admin.post(other.backlog, { issue: { title: 'kept' } })).body;
    expect((await admin.delete(`/api/v1/projects/${other.project.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/issues/${kept.issue_number}`)).status).toBe(404);
    expect(p.id).toBeGreaterThan(0);
  });
});

describe('what reading a place costs', () => {
  it("reads an issue's place with one keys-only Query: 3 calls deep in a big list as for the first issue of a small one", async () => {
    const { admin, org } = await orgWithClients(gateway);
    const small = await project(admin);
    const first = (await admin.post(small.backlog, { issue: { title: 'only' } })).body;
    const big = await project(admin);
    await seedProject(org.orgId, big.project.id, org.admin.id, {
      sprints: 0,
      issuesPerSprint: 0,
      backlog: 600,
      commentsPerIssue: 0,
    });
    const deep = (await admin.post(big.backlog, { issue: { title: 'last' } })).body;
    expect(deep.position).toBe(601);
    const shallow = await admin.get(`${small.backlog}/${first.id}`);
    const far = await admin.get(`${big.backlog}/${deep.id}`);
    expect(far.body.position).toBe(601);
    expect(shallow.dbCalls).toBe(3);
    expect(far.dbCalls).toBe(shallow.dbCalls);
    // page=N costs what the first page costs, whatever N.
    const page1 = await admin.get(`${big.backlog}?per_page=25`);
    const page20 = await admin.get(`${big.backlog}?per_page=25&page=20`);
    expect(page20.body.map((i: { position: number }) => i.position)).toEqual(Array.from({ length: 25 }, (_, k) => 476 + k));
    expect(page1.dbCalls).toBe(3);
    expect(page20.dbCalls).toBe(3);
    // And its next link goes on with the right places.
    const page21 = await admin.get(nextLink(page20) as string);
    expect(page21.body[0].position).toBe(501);
  }, 120_000);

  it('MCP get_issue by key costs the same DynamoDB calls in a project of 600 issues as in one of 1', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const small = await project(admin);
    const one = (await admin.post(small.backlog, { issue: { title: 'one' } })).body;
    const big = await project(admin);
    await seedProject(org.orgId, big.project.id, org.admin.id, {
      sprints: 1,
      issuesPerSprint: 300,
      backlog: 300,
      commentsPerIssue: 0,
    });
    const deep = (await admin.post(big.backlog, { issue: { title: 'deep' } })).body;
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    try {
      await mcp.call('get_issue', { issue_number: one.issue_number });
      const a = await mcp.call('get_issue', { issue_number: one.issue_number });
      const b = await mcp.call('get_issue', { issue_number: deep.issue_number });
      expect(a.result.isError).toBeFalsy();
      expect((b.result.structuredContent as { issue: { position: number } }).issue.position).toBe(301);
      expect(b.dbCalls).toBe(a.dbCalls);
      expect(a.dbCalls).toBeLessThanOrEqual(4);
    } finally {
      await mcp.close();
    }
  }, 120_000);
});

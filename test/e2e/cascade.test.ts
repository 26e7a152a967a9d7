import { describe, expect, it } from 'vitest';
import { collections, keys, projectPk } from '../../lib/db/core/keys.ts';
import { apiClient, newOrganisation, randomPrefix, type ApiClient, useGateway } from '../support/api.ts';
import { itemsIn, waitUntilEmpty } from '../support/cascade.ts';
import { purgeOnceHeld } from '../support/trash.ts';

/**
 * Deletes through the API answer 204 after one transaction, their children are 404 from that
 * moment, and the cascade consumer (fed by the stream poller of the test run, as DynamoDB Streams
 * feeds it in AWS) then leaves nothing of the deleted parent in the table.
 */

const gateway = useGateway();

interface Tree {
  orgId: number;
  projectId: number;
  projectPath: string;
  sprints: { id: number; path: string; issues: { id: number; path: string; comments: number[] }[] }[];
  backlog: { id: number; path: string; comments: number[] }[];
}

/** Through the API: a project with `sprints` sprints of `issues` issues, a backlog issue, 2 comments per sprint issue. */
async function tree(client: ApiClient, orgId: number, sprints = 2, issues = 2): Promise<Tree> {
  const project = (await client.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  const result: Tree = { orgId, projectId: project.id, projectPath, sprints: [], backlog: [] };
  for (let s = 0; s < sprints; s++) {
    const sprint = (await client.post(`${projectPath}/sprints`, { sprint: { name: `Sprint ${s}` } })).body;
    const sprintPath = `${projectPath}/sprints/${sprint.id}`;
    const entry = { id: sprint.id as number, path: sprintPath, issues: [] as Tree['sprints'][number]['issues'] };
    for (let i = 0; i < issues; i++) {
      const issue = (await client.post(`${sprintPath}/issues`, { issue: { title: `Issue ${s}.${i}` } })).body;
      const issuePath = `${sprintPath}/issues/${issue.id}`;
      const comments: number[] = [];
      for (let c = 0; c < 2; c++) {
        comments.push((await client.post(`${issuePath}/comments`, { comment: { body: `c${c}` } })).body.id);
      }
      entry.issues.push({ id: issue.id, path: issuePath, comments });
    }
    result.sprints.push(entry);
  }
  const parked = (await client.post(`${projectPath}/issues`, { issue: { title: 'Parked' } })).body;
  result.backlog.push({ id: parked.id, path: `${projectPath}/issues/${parked.id}`, comments: [] });
  return result;
}

async function orgWithAdmin() {
  const org = await newOrganisation();
  return { orgId: org.orgId, admin: apiClient(gateway.baseUrl, org.admin.token) };
}

/** Items stored under an issue: the issue and its comments share the SK prefix `ISSUE#<id>`. */
const issueRange = (t: Tree, issueId: number) => ({
  pk: projectPk(t.orgId, t.projectId),
  skPrefix: keys.issue(t.orgId, t.projectId, issueId).SK,
});

describe('cascading deletes', () => {
  it('deleting an issue: 204 at once, its comments 404 at once, then gone from the table once purged', async () => {
    const { orgId, admin } = await orgWithAdmin();
    const t = await tree(admin, orgId, 1, 2);
    const [doomed, kept] = t.sprints[0]!.issues as [
      Tree['sprints'][number]['issues'][number],
      Tree['sprints'][number]['issues'][number],
    ];

    const del = await admin.delete(doomed.path);

    expect(del.status).toBe(204);
    expect(del.dbCalls).toBeLessThanOrEqual(4);
    expect((await admin.get(doomed.path)).status).toBe(404);
    for (const c of doomed.comments) expect((await admin.get(`/api/v1/comments/${c}`)).status).toBe(404);
    expect((await admin.get(`${doomed.path}/comments`)).status).toBe(404);
    // Kept while the issue is in the trash (docs/trash.md); its purge runs the cascade.
    const comments = async () => (await itemsIn(issueRange(t, doomed.id))).filter((i) => i.type === 'comment');
    expect(await comments()).toHaveLength(doomed.comments.length);
    expect((await admin.delete(`/api/v1/trash/issue-${doomed.id}`)).status).toBe(204);
    await waitUntilEmpty(issueRange(t, doomed.id));
    expect(await itemsIn(issueRange(t, kept.id))).toHaveLength(3);
    for (const c of kept.comments) expect((await admin.get(`/api/v1/comments/${c}`)).status).toBe(200);
  });

  it('deleting a sprint: its issues and their comments 404 at once, then gone once purged; the rest stays', async () => {
    const { orgId, admin } = await orgWithAdmin();
    const t = await tree(admin, orgId, 2, 3);
    const [doomed, kept] = t.sprints as [Tree['sprints'][number], Tree['sprints'][number]];
    // An issue moved out of the sprint before its deletion is not the sprint's any more.
    const rescued = doomed.issues.pop()!;
    expect((await admin.patch(rescued.path, { issue: { sprint_id: kept.id } })).status).toBe(200);

    const del = await admin.delete(doomed.path);

    expect(del.status).toBe(204);
    expect(del.dbCalls).toBeLessThanOrEqual(4);
    expect((await admin.get(doomed.path)).status).toBe(404);
    for (const issue of doomed.issues) {
      expect((await admin.get(issue.path)).status).toBe(404);
      for (const c of issue.comments) expect((await admin.get(`/api/v1/comments/${c}`)).status).toBe(404);
    }
    // Kept while the sprint is in the trash (docs/trash.md); its purge runs the cascade.
    await purgeOnceHeld(admin, `sprint-${doomed.id}`);
    const pk = projectPk(t.orgId, t.projectId);
    await waitUntilEmpty({ pk, lskPrefix: collections.sprintIssues(t.orgId, t.projectId, doomed.id).prefix });
    for (const issue of doomed.issues) await waitUntilEmpty(issueRange(t, issue.id));
    expect(await itemsIn({ pk, lskPrefix: collections.sprintIssues(t.orgId, t.projectId, kept.id).prefix })).toHaveLength(4);
    expect(await itemsIn(issueRange(t, rescued.id))).toHaveLength(3);
    expect((await admin.get(`${kept.path}/issues/${rescued.id}/comments`)).body).toHaveLength(2);
    expect(await itemsIn(issueRange(t, t.backlog[0]!.id))).toHaveLength(1);
  });

  it('deleting a project: everything under it 404 at once, then its partition is empty once purged', async () => {
    const { orgId, admin } = await orgWithAdmin();
    const t = await tree(admin, orgId, 2, 2);
    const issue = t.sprints[1]!.issues[1]!;

    const del = await admin.delete(t.projectPath);

    expect(del.status).toBe(204);
    expect(del.dbCalls).toBeLessThanOrEqual(4);
    expect((await admin.get(t.sprints[0]!.path)).status).toBe(404);
    expect((await admin.get(issue.path)).status).toBe(404);
    expect((await admin.get(t.backlog[0]!.path)).status).toBe(404);
    expect((await admin.get(`/api/v1/comments/${issue.comments[0]}`)).status).toBe(404);
    expect((await admin.get(`${t.projectPath}/sprints`)).status).toBe(404);
    await purgeOnceHeld(admin, `project-${t.projectId}`);
    await waitUntilEmpty({ pk: projectPk(t.orgId, t.projectId) });
  });
});

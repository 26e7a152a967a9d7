import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { rebuildIssueIndexes } from '../../lib/jobs/reindex.ts';
import { getSprintItem } from '../../lib/db/projects/sprints.ts';
import { findIssueByNumber } from '../../lib/services/issue-lookup.ts';
import { createIssue, listIssues, updateIssue } from '../../lib/services/issues.ts';
import { listMyIssues } from '../../lib/services/my-issues.ts';
import { rankIndex } from '../../lib/db/issues/counters.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { createSprint } from '../../lib/services/sprints.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** issues:reindex rebuilds what issue writes keep beside the issues, from the issues as stored. */
describe('issues:reindex', () => {
  it('rebuilds rank counters, number pointers and the assigned-issue index of data written without them', async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Old', prefix: randomPrefix() });
    const sprint = await createSprint(caller, project.id, { name: 'S' });
    const backlog = { projectId: project.id, sprintId: null };
    const inSprint = { projectId: project.id, sprintId: sprint.id };
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await createIssue(caller, i % 2 ? inSprint : backlog, { title: `t${i}`, assignee_id: i < 3 ? org.member.id : null }),
      );
    }
    await updateIssue(caller, backlog, made[0]!.id, { position: 3 });
    const before = {
      backlog: (await listIssues(caller, backlog, { page: 1, perPage: 25 })).items.map((i) => [i.id, i.position]),
      project: rankIndex(await getProjectItem(org.orgId, project.id)),
      sprint: rankIndex(await getSprintItem(org.orgId, project.id, sprint.id)),
    };

    // As data written before the indexes existed: no counters, no pointers, no assignee entries.
    const wipe = (key: { PK: string; SK: string }, names: string[]) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: `REMOVE ${names.map((_, i) => `#n${i}`).join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#n${i}`, n])),
        }),
      );
    await wipe(
      keys.project(org.orgId, project.id),
      before.project.map(([b]) => `rk_${b}`),
    );
    await wipe(
      keys.sprint(org.orgId, project.id, sprint.id),
      before.sprint.map(([b]) => `rk_${b}`),
    );
    await wipe(keys.account(org.orgId, org.member.id), ['assigned_count']);
    for (const issue of made) {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issueKey(org.orgId, issue.issue_number) }));
      await db.send(
        new DeleteCommand({ TableName: tableName(), Key: keys.assignedIssue(org.orgId, org.member.id, project.id, issue.id) }),
      );
    }
    // And a stale pointer, and a stale rank counter, that no issue stands for.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(org.orgId, project.id),
        UpdateExpression: 'SET rk_1 = :seven',
        ExpressionAttributeValues: { ':seven': 7 },
      }),
    );
    const stale = keys.issueKey(org.orgId, `${made[0]!.issue_number}9`);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: stale,
        UpdateExpression: 'SET #t = :t, project_id = :p, issue_id = :i',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':t': 'issue_key', ':p': project.id, ':i': 999 },
      }),
    );
    await expect(findIssueByNumber(caller, made[1]!.issue_number)).rejects.toThrow();

    const result = await rebuildIssueIndexes(org.orgId);
    // 5 pointers written and the stale one removed, 3 assigned entries, the member's count, the two lists' rank counters.
    expect(result.checked).toMatchObject({ issues: 5, lists: 2 });
    expect(result.repaired).toMatchObject({ pointers: 6, assigned_entries: 3, account_counters: 1, list_counters: 2 });
    expect(result.differences).toEqual(expect.arrayContaining([expect.stringMatching(/rk_1 is 7, rebuild says/)]));
    expect(result.summary).toBe(
      'checked 5 issues, 2 lists, 2 accounts, 6 records, 7 attachment counters; ' +
        'repaired: 2 list counters, 1 account counters, 6 pointers, 3 assigned entries',
    );
    expect(rankIndex(await getProjectItem(org.orgId, project.id))).toEqual(before.project);
    expect(rankIndex(await getSprintItem(org.orgId, project.id, sprint.id))).toEqual(before.sprint);
    expect((await listIssues(caller, backlog, { page: 1, perPage: 25 })).items.map((i) => [i.id, i.position])).toEqual(
      before.backlog,
    );
    expect((await findIssueByNumber(caller, made[1]!.issue_number)).id).toBe(made[1]!.id);
    const member: Principal = { ...caller, accountId: org.member.id, role: 'member' };
    const mine = await listMyIssues(member, { page: 1, perPage: 25 });
    expect(mine.items.map((i) => i.id).sort()).toEqual(
      made
        .slice(0, 3)
        .map((i) => i.id)
        .sort(),
    );
    expect(mine.total).toBe(3);

    // Again on unchanged data: the same values.
    const again = await rebuildIssueIndexes(org.orgId);
    expect(again.checked).toMatchObject({ issues: 5, lists: 2, accounts: 2, records: 13 });
    expect(Object.values(again.repaired).every((n) => n === 0)).toBe(true);
    expect(again.differences).toEqual([]);
    expect(again.summary).toBe('checked 5 issues, 2 lists, 2 accounts, 13 records, 7 attachment counters; repaired: nothing');
    expect(rankIndex(await getProjectItem(org.orgId, project.id))).toEqual(before.project);
    expect((await listMyIssues(member, { page: 1, perPage: 25 })).total).toBe(3);
  });

  it("gives a pointer written before it kept its issue's list key the key, and takes another's stale key for the hint it is", async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Hints', prefix: randomPrefix() });
    const backlog = { projectId: project.id, sprintId: null };
    const [old, stale] = [
      await createIssue(caller, backlog, { title: 'old' }),
      await createIssue(caller, backlog, { title: 'stale' }),
    ];
    const pointer = async (number: string) =>
      (await db.send(new GetCommand({ TableName: tableName(), Key: keys.issueKey(org.orgId, number) }))).Item!;
    const keyOf = async (id: number) =>
      Number(
        (await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, id) }))).Item!.position,
      );
    expect(Number((await pointer(old.issue_number)).position)).toBe(await keyOf(old.id));
    const set = (number: string, expression: string, values?: Record<string, unknown>) =>
      db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.issueKey(org.orgId, number),
          UpdateExpression: expression,
          ExpressionAttributeNames: { '#position': 'position' },
          ...(values ? { ExpressionAttributeValues: values } : {}),
        }),
      );
    await set(old.issue_number, 'REMOVE #position');
    await set(stale.issue_number, 'SET #position = :p', { ':p': 12_345 });

    const result = await rebuildIssueIndexes(org.orgId);
    expect(result.repaired).toMatchObject({ pointers: 1 });
    expect(result.differences).toEqual([expect.stringContaining(`pointer:${org.orgId}:${old.issue_number}`)]);
    expect(Number((await pointer(old.issue_number)).position)).toBe(await keyOf(old.id));
    expect(Number((await pointer(stale.issue_number)).position)).toBe(12_345);
    expect((await rebuildIssueIndexes(org.orgId)).summary).toMatch(/repaired: nothing$/);
  });
});

import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { issueWrite, issueWriteItems } from '../../lib/db/issues/issue-write.ts';
import { keys, listKeys } from '../../lib/db/core/keys.ts';
import { readDerivedState, rebuildIssueIndexes } from '../../lib/jobs/reindex.ts';
import { derivations, differences, repositioned } from '../../lib/model/derivations.ts';
import { issueStateOf } from '../../lib/db/issues/issue-item.ts';
import { findIssueByNumber } from '../../lib/services/issue-lookup.ts';
import { createIssue, updateIssue } from '../../lib/services/issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** Sub-issues on the data layer: what no request can set up on its own. */

async function world() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
  const backlog = { projectId: project.id, sprintId: null };
  return { caller, project, backlog };
}

const stored = async (orgId: number, projectId: number, id: number) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(orgId, projectId, id), ConsistentRead: true })))
    .Item as Record<string, unknown>;

async function derivedDifferences(orgId: number, only?: string[]) {
  const { issues, observed } = await readDerivedState(orgId);
  return derivations.filter((d) => !only || only.includes(d.name)).flatMap((d) => differences(d, d.rebuild(issues), observed));
}

describe('sub-issues on the data layer', () => {
  it("folds a parent's counters into its own item when the transaction writes the parent too (DynamoDB refuses two operations on one item)", async () => {
    const { caller, project, backlog } = await world();
    const parent = await createIssue(caller, backlog, { title: 'parent' });
    const child = await createIssue(caller, backlog, { title: 'child', story_points: 4, parent_id: parent.id });
    const parentItem = await stored(caller.orgId, project.id, parent.id);
    const childItem = await stored(caller.orgId, project.id, child.id);
    const before = issueStateOf(caller.orgId, childItem);
    const after = { ...before, status: 'done' as const };
    // The child done, and its parent renumbered in the same transaction (as a move beside it would).
    const from = Number(parentItem.position);
    const to = from + 1;
    const renumber = {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(caller.orgId, project.id, parent.id),
          UpdateExpression: 'SET LSK = :lsk, #position = :to',
          ConditionExpression: 'LSK = :old',
          ExpressionAttributeNames: { '#position': 'position' },
          ExpressionAttributeValues: {
            ':lsk': listKeys.backlogIssue(to, parent.id),
            ':to': to,
            ':old': listKeys.backlogIssue(from, parent.id),
          },
        },
      },
      reason: 'stale' as const,
    };
    const childUpdate = {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(caller.orgId, project.id, child.id),
          UpdateExpression: 'SET #status = :done',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':done': 'done' },
        },
      },
    };
    const spec = {
      orgId: caller.orgId,
      projectId: project.id,
      issues: [childUpdate, renumber],
      changes: [
        { before, after },
        repositioned({ orgId: caller.orgId, projectId: project.id, sprintId: null }, { id: parent.id, from, to }),
      ],
    };
    const items = issueWriteItems(structuredClone(spec));
    // The parent's own item (its search record, in another partition, is another item).
    const parentKey = keys.issue(caller.orgId, project.id, parent.id);
    const keyOf = (g: (typeof items)[number]) => {
      const i = g.item as Record<string, { Key?: { PK: string; SK: string }; Item?: { PK: string; SK: string } } | undefined>;
      const op = i.Update ?? i.Put ?? i.Delete ?? i.ConditionCheck;
      return op?.Key ?? op?.Item;
    };
    const onParent = items.filter((g) => keyOf(g)?.PK === parentKey.PK && keyOf(g)?.SK === parentKey.SK);
    expect(onParent).toHaveLength(1);
    expect(onParent[0]?.item.Update?.UpdateExpression).toMatch(/^SET LSK = :lsk, #position = :to ADD .*sub_issues_done/);

    await issueWrite(spec);
    const summary = (await findIssueByNumber(caller, parent.issue_number)).sub_issues_summary;
    expect(summary).toEqual({ total: 1, done: 1, story_points: 4, completed_story_points: 4 });
    expect(await derivedDifferences(caller.orgId)).toEqual([]);
  });

  it('lets a child be written while its parent is deleted under it: the parent counts as gone, nothing is refused', async () => {
    const { caller, project, backlog } = await world();
    const parent = await createIssue(caller, backlog, { title: 'parent' });
    const child = await createIssue(caller, backlog, { title: 'child', story_points: 2, parent_id: parent.id });
    // The parent gone, its cascade not run yet (as between a delete and its stream record).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issue(caller.orgId, project.id, parent.id),
        UpdateExpression: 'REMOVE sub_issues_total',
      }),
    );
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issue(caller.orgId, project.id, parent.id) }));
    const updated = await updateIssue(caller, backlog, child.id, { status: 'done', story_points: 5 });
    expect(updated).toMatchObject({ status: 'done', story_points: 5, parent_id: parent.id });
    // Clearing the parent of a gone parent writes nothing on it either.
    const cleared = await updateIssue(caller, backlog, child.id, { parent_id: null });
    expect(cleared.parent_id).toBeNull();
    // (The raw delete above left the list's counters and the pointer: only the sub-issue state is compared.)
    expect(await derivedDifferences(caller.orgId, ['parent-summary', 'sub-issue-index'])).toEqual([]);
    expect((await stored(caller.orgId, project.id, child.id)).parent_number).toBeNull();
  });

  it('rebuilds a lost summary and children index (issues:reindex)', async () => {
    const { caller, project, backlog } = await world();
    const parent = await createIssue(caller, backlog, { title: 'parent' });
    const a = await createIssue(caller, backlog, { title: 'a', story_points: 1, status: 'done', parent_id: parent.id });
    await createIssue(caller, backlog, { title: 'b', story_points: 2, parent_id: parent.id });
    // Lost: the summary counters and one child's record.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issue(caller.orgId, project.id, parent.id),
        UpdateExpression: 'REMOVE sub_issues_total, sub_issues_done_points',
      }),
    );
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.subIssue(caller.orgId, parent.issue_number, a.id) }));
    expect(await derivedDifferences(caller.orgId)).not.toEqual([]);
    const result = await rebuildIssueIndexes(caller.orgId);
    // The summary's counters on the parent, and the one lost child record: nothing else.
    expect(result.repaired).toMatchObject({ issue_counters: 1, sub_issue_records: 1, list_counters: 0, pointers: 0 });
    expect(await derivedDifferences(caller.orgId)).toEqual([]);
    expect((await findIssueByNumber(caller, parent.issue_number)).sub_issues_summary).toEqual({
      total: 2,
      done: 1,
      story_points: 3,
      completed_story_points: 1,
    });
  });
});

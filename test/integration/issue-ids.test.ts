import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { ISSUE_ID_BLOCK } from '../../lib/db/core/sequences.ts';
import { createIssue } from '../../lib/services/issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * Issue ids come from the project's block of ids (lib/db/core/sequences.ts, lib/db/issues/issues.ts
 * `allocateIssueSlot`): one UpdateItem gives an issue its id, number and position, and a used-up
 * block is refilled from the organisation's sequence. Ids stay unique in the organisation.
 */

async function newCaller(): Promise<Principal> {
  const org = await newOrganisation();
  return { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
}

const backlog = (projectId: number) => ({ projectId, sprintId: null });

describe('issue ids', () => {
  it('are unique in the organisation when creates in two projects cross several blocks at once', async () => {
    const caller = await newCaller();
    const a = await createProject(caller, { name: 'A', prefix: randomPrefix() });
    const b = await createProject(caller, { name: 'B', prefix: randomPrefix() });
    const perProject = ISSUE_ID_BLOCK * 2 + 8;
    const created = await Promise.all(
      [a, b].flatMap((project) =>
        Array.from({ length: perProject }, (_, i) => createIssue(caller, backlog(project.id), { title: `t${i}` })),
      ),
    );
    const ids = created.map((issue) => issue.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const project of [a, b]) {
      const numbers = created.filter((issue) => issue.project_id === project.id).map((issue) => issue.issue_number);
      expect(new Set(numbers).size).toBe(perProject);
    }
  });

  it('cost the create one UpdateItem, and the create that finds its block used up two more', async () => {
    const caller = await newCaller();
    const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
    const calls: number[] = [];
    for (let i = 0; i < ISSUE_ID_BLOCK + 1; i++) {
      const { log } = await withDbCallLog(() => createIssue(caller, backlog(project.id), { title: `t${i}` }));
      calls.push(log.calls.length);
    }
    // The project's first block came with its id: the first ISSUE_ID_BLOCK creates take from it.
    expect(calls.slice(0, ISSUE_ID_BLOCK)).toEqual(Array(ISSUE_ID_BLOCK).fill(2));
    expect(calls[ISSUE_ID_BLOCK]).toBe(4);
  });

  it('come to a project created before blocks existed from a block it reserves then', async () => {
    const caller = await newCaller();
    const project = await createProject(caller, { name: 'Old', prefix: randomPrefix() });
    const before = await createIssue(caller, backlog(project.id), { title: 'before' });
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(caller.orgId, project.id),
        UpdateExpression: 'REMOVE issue_id_next, issue_id_end',
      }),
    );
    const after = await Promise.all(
      Array.from({ length: 5 }, (_, i) => createIssue(caller, backlog(project.id), { title: `after ${i}` })),
    );
    const ids = [before, ...after].map((issue) => issue.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set([before, ...after].map((issue) => issue.issue_number)).size).toBe(6);
  });

  it('are not taken for a project that is gone', async () => {
    const caller = await newCaller();
    await expect(createIssue(caller, backlog(999_999), { title: 'nowhere' })).rejects.toMatchObject({ status: 404 });
  });
});

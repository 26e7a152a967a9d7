import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findIssueByNumber } from '../../lib/services/issue-lookup.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { listMyIssues } from '../../lib/services/my-issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { createSprint, sprintSummary } from '../../lib/services/sprints.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { meterReads } from '../support/read-meter.ts';
import { seedProject } from '../support/seed.ts';

/**
 * Reads that must not grow with the project: the DynamoDB read units they consume (as DynamoDB
 * reports them, ReturnConsumedCapacity) in a project of 600 issues, against one of 2. A read that
 * queried the project's partition, or the whole list, would consume more in the big one.
 */

let reads: ReturnType<typeof meterReads>;
beforeAll(() => {
  reads = meterReads();
});
afterAll(() => reads.stop());
const measure = <T>(step: () => Promise<T>) => reads.measure(step);

async function setup(seed = true) {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const small = await createProject(caller, { name: 'Small', prefix: randomPrefix() });
  const smallSprint = await createSprint(caller, small.id, { name: 'S' });
  const shallow = await createIssue(
    caller,
    { projectId: small.id, sprintId: smallSprint.id },
    { title: 'one', assignee_id: org.admin.id },
  );
  await createIssue(caller, { projectId: small.id, sprintId: null }, { title: 'two' });

  const big = await createProject(caller, { name: 'Big', prefix: randomPrefix() });
  const seeded = seed
    ? await seedProject(caller.orgId, big.id, org.admin.id, {
        sprints: 1,
        issuesPerSprint: 300,
        backlog: 300,
        commentsPerIssue: 0,
      })
    : { sprintIds: [(await createSprint(caller, big.id, { name: 'B' })).id] };
  const bigSprintId = seeded.sprintIds[0] as number;
  const deep = await createIssue(
    caller,
    { projectId: big.id, sprintId: bigSprintId },
    { title: 'deep', assignee_id: org.admin.id },
  );
  return { caller, smallSprint, shallow, big, bigSprintId, deep };
}

describe('reads at scale', () => {
  it('finds an issue by its key with the same reads in a project of 600 issues as in one of 2', async () => {
    const { caller, shallow, deep } = await setup();
    await findIssueByNumber(caller, shallow.issue_number);
    const a = await measure(() => findIssueByNumber(caller, shallow.issue_number));
    const b = await measure(() => findIssueByNumber(caller, deep.issue_number));
    expect(b.value.position).toBe(301);
    expect(a.value.position).toBe(1);
    expect(b.calls).toBe(a.calls);
    expect(b.units).toBe(a.units);
    expect(b.units).toBeLessThanOrEqual(5);
  }, 120_000);

  it('summarises a sprint of 301 issues with the reads of a sprint of 1', async () => {
    const { caller, smallSprint, big, bigSprintId } = await setup();
    const a = await measure(() => sprintSummary(caller, smallSprint.project_id, smallSprint.id));
    const b = await measure(() => sprintSummary(caller, big.id, bigSprintId));
    expect(b.value.issues_count).toBe(301);
    expect(a.value.issues_count).toBe(1);
    expect(b.calls).toBe(a.calls);
    expect(b.units).toBe(a.units);
  }, 120_000);

  it('reads my issues with the same read units whatever the size of the lists they sit in', async () => {
    const bigLists = await setup();
    const smallLists = await setup(false);
    const read = (caller: Principal) => measure(() => listMyIssues(caller, { page: 1, perPage: 25 }));
    const a = await read(smallLists.caller);
    const b = await read(bigLists.caller);
    expect(b.value.items.map((i) => i.id)).toEqual([bigLists.deep.id, bigLists.shallow.id]);
    expect(b.value.items.map((i) => i.position)).toEqual([301, 1]);
    expect(a.value.items.map((i) => i.position)).toEqual([1, 1]);
    // The index Query, one BatchGet, one count per issue: the 600 issues around them are not read.
    expect(b.calls).toBe(4);
    expect(b.calls).toBe(a.calls);
    expect(b.units).toBe(a.units);
  }, 120_000);
});

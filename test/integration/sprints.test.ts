import { afterEach, describe, expect, it, vi } from 'vitest';
import { db } from '../../lib/db/client.ts';
import { isRetryableDbError } from '../../lib/db/errors.ts';
import { withDbCallLog } from '../../lib/db/metrics.ts';
import { getProjectItem } from '../../lib/db/projects.ts';
import { completionStep, getSprintItem } from '../../lib/db/sprints.ts';
import { getIssueFamily } from '../../lib/db/issues.ts';
import { createIssue, getIssue, listIssues } from '../../lib/domain/issues.ts';
import type { Principal } from '../../lib/domain/principal.ts';
import { createProject } from '../../lib/domain/projects.ts';
import { appendToEnd } from '../../lib/domain/positions.ts';
import { activateSprint, completeSprint, createSprint, getSprint } from '../../lib/domain/sprints.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** Domain and data layer of sprints on DynamoDB Local: costs, interrupted and racing completions, faults. */

afterEach(() => {
  vi.restoreAllMocks();
});

async function activeSprintWith(openIssues: number, doneIssues = 0) {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
  const sprint = await createSprint(caller, project.id, { name: 'S' });
  const at = { projectId: project.id, sprintId: sprint.id };
  for (let i = 0; i < openIssues + doneIssues; i += 25) {
    await Promise.all(
      Array.from({ length: Math.min(25, openIssues + doneIssues - i) }, (_, k) =>
        createIssue(caller, at, { title: `I${i + k}`, story_points: 1, status: i + k < openIssues ? 'todo' : 'done' }),
      ),
    );
  }
  await activateSprint(caller, project.id, sprint.id);
  return { caller, project, sprint, at, backlog: { projectId: project.id, sprintId: null } };
}

const all = { page: 1, perPage: 100 };

/** Sprint counters recomputed from its issues: they must equal the stored ones. */
async function expectExactCounters(caller: Principal, projectId: number, sprintId: number) {
  const stored = await getSprintItem(caller.orgId, projectId, sprintId);
  const { items } = await listIssues(caller, { projectId, sprintId }, all);
  const points = (s: { story_points: number | null }) => s.story_points ?? 0;
  expect({
    issues_count: stored?.issues_count,
    total_story_points: stored?.total_story_points,
    completed_story_points: stored?.completed_story_points,
    open_issues_count: stored?.open_issues_count,
  }).toEqual({
    issues_count: items.length,
    total_story_points: items.reduce((a, i) => a + points(i), 0),
    completed_story_points: items.filter((i) => i.status === 'done').reduce((a, i) => a + points(i), 0),
    open_issues_count: items.filter((i) => !['done', 'cancelled'].includes(i.status)).length,
  });
}

describe('sprint completion', () => {
  it('costs a BatchGet, a Query and one transaction per 96 open issues', async () => {
    const cases: [number, string[]][] = [
      [0, ['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']],
      [96, ['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']],
      [97, ['BatchGetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']],
    ];
    for (const [open, calls] of cases) {
      const { caller, project, sprint } = await activeSprintWith(open, 2);
      const { result, log } = await withDbCallLog(() => completeSprint(caller, project.id, sprint.id));
      expect(result).toMatchObject({ status: 'completed', issues_count: 2, total_story_points: 2, completed_story_points: 2 });
      expect([...log.calls].sort()).toEqual([...calls].sort());
      await expectExactCounters(caller, project.id, sprint.id);
      expect(Number((await getProjectItem(caller.orgId, project.id))?.backlog_count)).toBe(open);
    }
  }, 120_000);

  it('leaves exact counters after each step, and the next call finishes an interrupted completion', async () => {
    const { caller, project, sprint, at, backlog } = await activeSprintWith(5, 1);
    const items = (await listIssues(caller, at, all)).items.filter((i) => i.status !== 'done');
    const projectItem = await getProjectItem(caller.orgId, project.id);
    const seq = Number(projectItem?.position_seq);
    // The first of two steps, as a completion that stopped half-way would have left it.
    const first = items.slice(0, 2);
    const stored = await Promise.all(first.map(async (i) => (await getIssueFamily(caller.orgId, project.id, [], i.id)).issue));
    const appended = appendToEnd(
      stored.map((i) => ({ id: Number(i?.id), position: Number(i?.position) })),
      seq + 1,
    );
    await completionStep(caller.orgId, project.id, sprint.id, {
      moves: first.map((i, k) => ({ id: i.id, rev: 0, position: appended.moves[k]?.to as number })),
      sprintRank: appended.leaving,
      backlogRank: appended.joining,
      sprintDelta: { issues_count: -2, total_story_points: -2, completed_story_points: 0, open_issues_count: -2 },
      now: new Date().toISOString(),
      reserve: { from: seq, to: seq + 2 },
    });
    await expectExactCounters(caller, project.id, sprint.id);
    expect((await getSprint(caller, project.id, sprint.id)).status).toBe('active');
    expect((await listIssues(caller, backlog, all)).total).toBe(2);

    const done = await completeSprint(caller, project.id, sprint.id);
    expect(done).toMatchObject({ status: 'completed', issues_count: 1 });
    await expectExactCounters(caller, project.id, sprint.id);
    const back = await listIssues(caller, backlog, all);
    expect(back.items.map((i) => i.id)).toEqual(items.map((i) => i.id));
    expect(back.total).toBe(5);
  });

  it('does not complete past an open issue added while it runs: it retries and takes it along', async () => {
    const { caller, project, sprint, at, backlog } = await activeSprintWith(3);
    const send = db.send.bind(db);
    let raced = false;
    let latecomer: number | undefined;
    vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      if (!raced && command.constructor.name === 'TransactWriteCommand') {
        raced = true;
        latecomer = (await createIssue(caller, at, { title: 'late', status: 'in_progress' })).id;
      }
      return send(command as never);
    }) as typeof db.send);
    const done = await completeSprint(caller, project.id, sprint.id);
    vi.restoreAllMocks();
    expect(raced).toBe(true);
    expect(done).toMatchObject({ status: 'completed', issues_count: 0 });
    const back = await listIssues(caller, backlog, all);
    expect(back.items.map((i) => i.id)).toContain(latecomer);
    expect(back.total).toBe(4);
    expect((await getIssue(caller, backlog, latecomer as number)).status).toBe('in_progress');
    await expectExactCounters(caller, project.id, sprint.id);
  });
});

describe('transactions under contention', () => {
  const conflict = () =>
    Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }],
    });

  it('retries a transaction that met a conflict, which had applied nothing', async () => {
    const { caller, project } = await activeSprintWith(0);
    const send = db.send.bind(db);
    let failures = 0;
    const spy = vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'TransactWriteCommand' && failures < 2) {
        failures++;
        throw conflict();
      }
      return send(command as never);
    }) as typeof db.send);
    const sprint = await createSprint(caller, project.id, { name: 'Retried' });
    const transactions = spy.mock.calls.filter(([c]) => (c as object).constructor.name === 'TransactWriteCommand');
    vi.restoreAllMocks();
    expect(transactions).toHaveLength(3);
    expect((await getSprint(caller, project.id, sprint.id)).name).toBe('Retried');
    expect((await getProjectItem(caller.orgId, project.id))?.sprints_count).toBe(2);
  });

  it('gives up after a few conflicts with an error the mapper answers as 503, having changed nothing', async () => {
    const { caller, project } = await activeSprintWith(0);
    const send = db.send.bind(db);
    vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'TransactWriteCommand') throw conflict();
      return send(command as never);
    }) as typeof db.send);
    const err = await createSprint(caller, project.id, { name: 'Never' }).catch((e: unknown) => e);
    vi.restoreAllMocks();
    expect(isRetryableDbError(err)).toBe(true);
    expect((await getProjectItem(caller.orgId, project.id))?.sprints_count).toBe(1);
  });
});

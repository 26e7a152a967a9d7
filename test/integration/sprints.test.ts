import { afterEach, describe, expect, it, vi } from 'vitest';
import { db } from '../../lib/db/core/client.ts';
import { isRetryableDbError } from '../../lib/db/core/errors.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { getSprintItem } from '../../lib/db/projects/sprints.ts';
import { SprintBusyError } from '../../lib/vocabulary/errors.ts';
import { createIssue, deleteIssue, listIssues, updateIssue } from '../../lib/services/issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { activateSprint, completeSprint, createSprint, getSprint } from '../../lib/services/sprints.ts';
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

/** Every issue of a list, page after page. */
async function listAll(caller: Principal, at: { projectId: number; sprintId: number | null }) {
  const items: Awaited<ReturnType<typeof listIssues>>['items'] = [];
  let cursor: string | undefined;
  do {
    const { page, items: more } = await listIssues(caller, at, { page: 1, perPage: 100, cursor });
    items.push(...more);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/** Sprint counters recomputed from its issues: they must equal the stored ones. */
async function expectExactCounters(caller: Principal, projectId: number, sprintId: number) {
  const stored = await getSprintItem(caller.orgId, projectId, sprintId);
  const items = await listAll(caller, { projectId, sprintId });
  const points = (s: { story_points: number | null }) => s.story_points ?? 0;
  const open = items.filter((i) => !['done', 'cancelled'].includes(i.status));
  const done = items.filter((i) => i.status === 'done');
  expect({
    issues_count: stored?.issues_count,
    total_story_points: stored?.total_story_points,
    completed_story_points: stored?.completed_story_points,
    open_issues_count: stored?.open_issues_count,
    open_story_points: stored?.open_story_points,
    done_issues_count: stored?.done_issues_count,
  }).toEqual({
    issues_count: items.length,
    total_story_points: items.reduce((a, i) => a + points(i), 0),
    completed_story_points: done.reduce((a, i) => a + points(i), 0),
    open_issues_count: open.length,
    open_story_points: open.reduce((a, i) => a + points(i), 0),
    done_issues_count: done.length,
  });
}

/** The `n`th transaction written from now fails with "crash", as a process stopped there would leave it (undone by `vi.restoreAllMocks()`). */
function crashAtTransaction(n: number): void {
  const send = db.send.bind(db);
  let transactions = 0;
  vi.spyOn(db, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
    if (command.constructor.name === 'TransactWriteCommand' && ++transactions === n) throw new Error('crash');
    return send(command as never);
  }) as typeof db.send);
}

describe('sprint completion', () => {
  it("is one transaction up to 32 open issues (96 items: each with its search record and its number's pointer); past that, begin, the finisher's reads, one allocation of places for all the moves and a transaction per 32, the last one finishing", async () => {
    const read = ['BatchGetItemCommand', 'QueryCommand'];
    const TX = 'TransactWriteItemsCommand';
    const ALLOCATE = 'UpdateItemCommand';
    // Begin, then the finisher's read of the sprint and its open issues, one allocation for all of
    // them, and a transaction per batch of 32, the last of which completes the sprint.
    const finisher = (batches: number) => [TX, 'GetItemCommand', 'QueryCommand', ALLOCATE, ...Array<string>(batches).fill(TX)];
    const cases: [number, string[]][] = [
      [0, [...read, TX]],
      [32, [...read, ALLOCATE, TX]],
      [33, [...read, ...finisher(2)]],
      [145, [...read, ...finisher(5)]],
    ];
    for (const [open, calls] of cases) {
      const { caller, project, sprint } = await activeSprintWith(open, 2);
      const seq = async () => Number((await getProjectItem(caller.orgId, project.id))?.position_seq ?? 0);
      const before = await seq();
      const { result, log } = await withDbCallLog(() => completeSprint(caller, project.id, sprint.id));
      expect(result).toMatchObject({ status: 'completed', issues_count: 2, total_story_points: 2, completed_story_points: 2 });
      expect([...log.calls].sort(), `${open} open issues`).toEqual([...calls].sort());
      await expectExactCounters(caller, project.id, sprint.id);
      expect(Number((await getProjectItem(caller.orgId, project.id))?.backlog_count)).toBe(open);
      // One place reserved per moved issue, none wasted.
      expect((await seq()) - before).toBe(open);
    }
  }, 120_000);

  it('reserves the places of a large completion once: a finisher run again after a crash takes the rest from the recorded block', async () => {
    const { caller, project, sprint, at, backlog } = await activeSprintWith(100, 1);
    const open = (await listAll(caller, at)).filter((i) => i.status !== 'done');
    const seq = async () => Number((await getProjectItem(caller.orgId, project.id))?.position_seq ?? 0);
    const before = await seq();
    // A crash after the begin and the first batch (32 issues), in the second batch's transaction.
    crashAtTransaction(3);
    await expect(completeSprint(caller, project.id, sprint.id)).rejects.toThrow('crash');
    vi.restoreAllMocks();
    expect((await getSprintItem(caller.orgId, project.id, sprint.id))?.completion?.places).toEqual({
      first: before + 1,
      count: 100,
    });

    const { result, log } = await withDbCallLog(() => completeSprint(caller, project.id, sprint.id));
    expect(result).toMatchObject({ status: 'completed', issues_count: 1, report: { carried_over: { issues: 100 } } });
    // The sprint is completing: the reads, the finisher's reads, the three batches left (the last one
    // finishing), and no allocation.
    expect([...log.calls].sort()).toEqual(
      [
        'BatchGetItemCommand',
        'QueryCommand',
        'GetItemCommand',
        'QueryCommand',
        'TransactWriteItemsCommand',
        'TransactWriteItemsCommand',
        'TransactWriteItemsCommand',
      ].sort(),
    );
    expect((await seq()) - before).toBe(100);
    await expectExactCounters(caller, project.id, sprint.id);
    const back = await listAll(caller, backlog);
    expect(back.map((i) => i.id)).toEqual(open.map((i) => i.id));
    expect((await getSprintItem(caller.orgId, project.id, sprint.id))?.completion).toBeUndefined();
  });

  it('refuses issue writes while the sprint is completing, and the next completion request finishes it', async () => {
    const { caller, project, sprint, at, backlog } = await activeSprintWith(100, 1);
    const open = (await listAll(caller, at)).filter((i) => i.status !== 'done');
    // A completion that stopped right after it began, as a crash would have left it.
    crashAtTransaction(2);
    await expect(completeSprint(caller, project.id, sprint.id)).rejects.toThrow('crash');
    vi.restoreAllMocks();
    expect((await getSprint(caller, project.id, sprint.id)).status).toBe('completing');

    const first = open[0] as { id: number };
    await expect(createIssue(caller, at, { title: 'late' })).rejects.toBeInstanceOf(SprintBusyError);
    await expect(updateIssue(caller, at, first.id, { status: 'done' })).rejects.toBeInstanceOf(SprintBusyError);
    await expect(updateIssue(caller, at, first.id, { title: 'renamed' })).rejects.toBeInstanceOf(SprintBusyError);
    await expect(deleteIssue(caller, at, first.id)).rejects.toBeInstanceOf(SprintBusyError);
    await expectExactCounters(caller, project.id, sprint.id);

    const done = await completeSprint(caller, project.id, sprint.id);
    expect(done).toMatchObject({
      status: 'completed',
      issues_count: 1,
      report: { carried_over: { issues: 100, story_points: 100 } },
    });
    await expectExactCounters(caller, project.id, sprint.id);
    const back = await listAll(caller, backlog);
    expect(back.map((i) => i.id)).toEqual(open.map((i) => i.id));
    expect(Number((await getProjectItem(caller.orgId, project.id))?.backlog_count)).toBe(100);
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

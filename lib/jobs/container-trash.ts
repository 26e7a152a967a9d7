import { setNotificationsHiddenOf } from './notification-trips.ts';
import { asActor } from '../context/actor.ts';
import {
  CascadeInterrupted,
  PARALLELISM,
  withoutAfterRefusal,
  type CascadeOptions,
  type Container,
  type PagePosition,
} from '../model/cascades.ts';
import type { IssueState } from '../model/derivations.ts';
import { forEachLimited } from '../model/limited.ts';
import type { ContainerState } from '../vocabulary/trash.ts';
import { Refused } from '../db/core/transactions.ts';
import type { TrashFields } from '../db/core/trash.ts';
import { unlinkRemovedIssues } from '../db/issues/relations.ts';
import { forEachPage, issuesAmong, removedIssues, sprintIssuesQuery, unindexIssues } from '../db/cascades/cascade-steps.ts';
import {
  countReturned,
  listIssuesQuery,
  projectIssuesQuery,
  putBackWrite,
  putContainerBack,
  relinkIssue,
  returnsOf,
  settle,
  sprintIdsOf,
  standing,
} from '../db/cascades/container-steps.ts';

export type { Container } from '../model/cascades.ts';
export { keepDeletedImage } from '../db/cascades/container-steps.ts';

/**
 * A sprint or a project in the organisation's trash (docs/trash.md). Its delete (lib/db/projects/sprints.ts,
 * lib/db/projects/projects.ts) is one transaction that removes the sprint or project item and puts it, whole,
 * into the trash; its issues, and everything under them, stay where they are, unreachable at once
 * (every read checks the sprint and the project). What is kept of its issues outside it is taken
 * out and put back here, by the cascade consumer, a page at a time, bounded and resumable like any
 * cascade (lib/jobs/cascade.ts):
 *
 * - `withdrawing` (its delete's stream record): each issue's number pointer, assignee entry and
 *   count, search record, children-index record (and, for a sprint, its part of a parent's summary
 *   outside it), and its relations' sides on issues outside it (with their counts of open
 *   blockers) are taken out; then it is `held`.
 * - `held`: nothing to do; a restore may begin (`beginRestore`), a purge removes everything.
 * - `restoring` (a restore began: its pending cascade's write): the same are put back, each page
 *   counted on the trash item (`returned`: the restore's progress), and then one transaction puts the
 *   sprint or project back with the trash item's removal. Should that be refused (its project gone,
 *   its prefix taken meanwhile), its issues are taken out again and it is `held`, with the reason.
 * - gone from the trash (a purge, or its expiry by TTL): the cascade of old empties it for good.
 *
 * Its issues cannot change meanwhile: every write checks their sprint and project, which are not
 * there until the very end of a restore.
 */

/** The phases of a trashed sprint's or project's cascade; an interrupted one continues only in the same phase. */
type Phase = ContainerState | 'purge';

/**
 * The cascade of a sprint or a project whose item is gone (its delete's stream record, its trash
 * item's removal, or a pending continuation), decided by where it stands now (see the top of this
 * file); `purge` empties it for good. Returns the items deleted or issues moved.
 */
export async function containerCascade(
  c: Container,
  options: CascadeOptions,
  purge: (options: CascadeOptions) => Promise<number>,
): Promise<number> {
  const { there, trashed } = await standing(c);
  if (there) return 0;
  const phase: Phase = trashed ? trashed.state : 'purge';
  if (phase === 'held') return 0;
  const resumed = options.after?.phase === phase ? (options.after.at as PagePosition | undefined) : undefined;
  const inPhase: CascadeOptions = { deadline: options.deadline, after: resumed };
  try {
    if (phase === 'purge') return await purge(inPhase);
    if (phase === 'withdrawing') {
      const moved = await withdraw(c, inPhase);
      await settle(c, 'withdrawing', 'held');
      return moved;
    }
    const back = await returnIssues(c, inPhase);
    const restorer = trashed?.restoredBy;
    await (restorer
      ? asActor(restorer, () => finishRestore(c, trashed as TrashFields))
      : finishRestore(c, trashed as TrashFields));
    return back;
  } catch (err) {
    if (err instanceof CascadeInterrupted) throw new CascadeInterrupted({ phase, at: err.after });
    throw err;
  }
}

/**
 * The restore's last write, once every issue is back (lib/db/cascades/container-steps.ts:
 * `putContainerBack`). Refused because its project went or another project took its prefix
 * meanwhile: its issues are taken out again and it is `held`, with the reason (`restore_error`).
 */
async function finishRestore(c: Container, trashed: TrashFields): Promise<void> {
  try {
    await putContainerBack(c, trashed);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    const why = restoreRefusal(err.reason, String(trashed.stored.prefix));
    if (why === undefined) return; // back already (a run again), or purged meanwhile: nothing left to do
    await withdraw(c, {});
    await settle(c, 'restoring', 'held', why);
  }
}

/** Why a restore's last write was refused, as its trash item tells it; undefined when nothing is left to do. */
const restoreRefusal = (reason: string, prefix: string): string | undefined =>
  reason === 'project'
    ? 'its project was deleted while it was being restored'
    : reason === 'prefix_taken'
      ? `another project took the prefix ${prefix} while it was being restored`
      : undefined;

// ---------------------------------------------------------------------------------------------
// Taking out

/** The issues among stored items (`issuesAmong`'s), as their notifications name them. */
const refsOf = (projectId: number, items: Record<string, unknown>[]) =>
  removedIssues(projectId, items).map((r) => ({ projectId, issueId: r.issueId }));

/** Takes the issues of `c` out of what is kept of them outside it (their notifications hidden). Returns the issues seen. */
export async function withdraw(c: Container, options: CascadeOptions): Promise<number> {
  if (c.kind === 'sprint') {
    return forEachPage(sprintIssuesQuery(c.orgId, c.projectId, c.sprintId), options, async (_keys, items) => {
      // A parent outside it loses the issue from its summary; what its issues hold of each other stays.
      await unindexIssues(c.orgId, c.projectId, items, 'outlive');
      await unlinkRemovedIssues(c.orgId, removedIssues(c.projectId, items), undefined, c.sprintId);
      await setNotificationsHiddenOf(c.orgId, refsOf(c.projectId, items), true);
    });
  }
  return forEachPage(projectIssuesQuery(c.orgId, c.projectId), options, async (_keys, items) => {
    const issues = issuesAmong(items);
    // Parents are all in it: their summaries stay. An issue of a sprint already in the trash was
    // taken out with it: what is gone already is refused by its condition and left alone.
    await unindexIssues(c.orgId, c.projectId, issues, 'go');
    await unlinkRemovedIssues(c.orgId, removedIssues(c.projectId, issues), c.projectId);
    await setNotificationsHiddenOf(c.orgId, refsOf(c.projectId, issues), true);
  });
}

// ---------------------------------------------------------------------------------------------
// Putting back

/** Issues one return transaction puts back (at most 4 records each, with their counts: under 100 items). */
const RETURN_CHUNK = 15;

/** Derivations kept outside a sprint or a project (lib/model/derivations.ts). */
const OUTSIDE = {
  sprint: ['number-pointer', 'assignee-index', 'search-index', 'sub-issue-index', 'parent-summary'],
  project: ['number-pointer', 'assignee-index', 'search-index', 'sub-issue-index'],
} as const;

/**
 * Puts back what is kept outside `c` of its issues (see the top of this file), one list at a time
 * (a sprint's; a project's backlog, then each of its sprints that is there, not those in the trash
 * on their own), counting each page on the trash item. Returns the issues put back by this run.
 */
export async function returnIssues(c: Container, options: CascadeOptions): Promise<number> {
  const lists = c.kind === 'sprint' ? [c.sprintId] : [null, ...(await sprintIdsOf(c.orgId, c.projectId))];
  const after = options.after as { list?: number; at?: PagePosition } | undefined;
  let returned = 0;
  for (let n = after?.list ?? 0; n < lists.length; n++) {
    const sprintId = lists[n] as number | null;
    try {
      await forEachPage(
        listIssuesQuery(c.orgId, c.projectId, sprintId),
        { deadline: options.deadline, after: n === after?.list ? after.at : undefined },
        async (_keys, items) => {
          const issues = issuesAmong(items);
          await putBack(c, sprintId, issues);
          await setNotificationsHiddenOf(c.orgId, refsOf(c.projectId, issues), false);
          await countReturned(c, issues.length);
          returned += issues.length;
        },
      );
    } catch (err) {
      if (err instanceof CascadeInterrupted) throw new CascadeInterrupted({ list: n, at: err.after });
      throw err;
    }
  }
  return returned;
}

/**
 * Puts back what is kept outside `c` of a page of its issues (whole items, of list `sprintId`):
 * their records and counts in transactions of RETURN_CHUNK issues (one issue at a time when one is
 * refused: a page read again finds some there already), then their relations' sides on issues
 * outside it.
 */
async function putBack(c: Container, sprintId: number | null, items: Record<string, unknown>[]): Promise<void> {
  const returns = await returnsOf(c.orgId, items);
  const chunks: IssueState[][] = [];
  for (let i = 0; i < returns.states.length; i += RETURN_CHUNK) chunks.push(returns.states.slice(i, i + RETURN_CHUNK));
  const outside = OUTSIDE[c.kind];
  await forEachLimited(chunks, PARALLELISM, async (chunk) => {
    try {
      await putBackWrite(c, returns, chunk, outside);
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      for (const state of chunk) await putBackOne(state, (only) => putBackWrite(c, returns, [state], only), outside);
    }
  });
  await forEachLimited(items, PARALLELISM, (item) => relinkIssue(c, sprintId, item));
}

/**
 * One issue's records put back, leaving out what a refusal shows there already (`entry_there`,
 * `child_there`: its counts with them), or not its to take (`number_taken`: the number went to an
 * issue of another project; `issue`: its parent is gone, and keeps no summary).
 */
async function putBackOne(state: IssueState, write: (only: readonly string[]) => Promise<void>, all: readonly string[]) {
  let only: readonly string[] = all;
  for (let attempt = 0; attempt < all.length + 1 && only.length > 0; attempt++) {
    try {
      await write(only);
      return;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      const left = withoutAfterRefusal(only, err.reason);
      if (left === undefined) throw err;
      only = left;
    }
  }
  if (only.length > 0) throw new Error(`issue ${state.id} could not be put back: its records kept changing`);
}

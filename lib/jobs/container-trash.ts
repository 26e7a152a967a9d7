import { asActor } from '../context/actor.ts';
import { CascadeInterrupted, type CascadeOptions, type Container, type PagePosition } from '../model/cascades.ts';
import type { ContainerState } from '../vocabulary/trash.ts';
import { Refused } from '../db/core/transactions.ts';
import type { TrashFields } from '../db/core/trash.ts';
import { putContainerBack, returnIssues, settle, standing, withdraw } from '../db/cascades/container-steps.ts';

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

/**
 * The steps of the migrations of lib/migrations/index.ts: each calls the code of its admin command
 * (tools/cli/admin.ts) on a bounded part of the table and says where the next part starts.
 */
import { writeMissingTokenNames } from '../jobs/token-names.ts';
import { getOrganisation } from '../db/organisation/organisation.ts';
import { writeMissingCommentPointers } from '../jobs/comment-pointers.ts';
import { lastOrganisationId } from '../db/core/migrations.ts';
import { attachmentCounterDifferences } from '../jobs/attachment-counters.ts';
import { readDerivedState, rebuildIssueIndexes, derivedDifferences } from '../jobs/reindex.ts';
import { giveMissingWorkflows } from '../db/projects/states.ts';
import type { Cursor, StepResult } from '../model/migrations.ts';

/** Items a Scan step reads (one page): a step stays well within a Lambda's minutes. Tests make them small. */
export const scanStepItems = { tokens: 500, comments: 200 };

/** `tokens:names` on one page of the Scan of token items. */
export async function tokenNamesStep(cursor: Cursor | undefined): Promise<StepResult> {
  const r = await writeMissingTokenNames(undefined, { start: cursor, pages: 1, limit: scanStepItems.tokens });
  return { cursor: r.next, counts: { tokens: r.tokens, named: r.written } };
}

/** `comments:pointers` on one page of the Scan of comments. */
export async function commentPointersStep(cursor: Cursor | undefined): Promise<StepResult> {
  const r = await writeMissingCommentPointers(undefined, { start: cursor, pages: 1, limit: scanStepItems.comments });
  return { cursor: r.next, counts: { comments: r.comments, written: r.written, completed: r.completed } };
}

/** Rebuilds of one organisation's derived state before the migration gives up (writes never settle). */
export const MAX_REBUILDS = 5;

/**
 * `issues:reindex` of one organisation, kept safe while the API writes: its derived state is
 * compared with the rebuild from its issues (every derivation of lib/model/derivations.ts), and
 * rebuilt only where they differ. A rebuild sets counts from a read of its items, so a write
 * landing meanwhile may be counted wrongly; the comparison after it sees that and rebuilds again,
 * until a comparison finds nothing to do (at most MAX_REBUILDS times, else the step fails and a
 * later run retries).
 */
export async function reindexOrganisation(orgId: number): Promise<Record<string, number>> {
  const counts = { organisations: 1, rebuilds: 0, issues: 0, differences: 0 };
  for (let rebuilds = 0; ; rebuilds++) {
    const state = await readDerivedState(orgId);
    const { issues } = state;
    const found = [...derivedDifferences(state), ...(await attachmentCounterDifferences(orgId))];
    counts.issues = issues.length;
    if (found.length === 0) return counts;
    if (rebuilds === MAX_REBUILDS) {
      throw new Error(
        `organisation ${orgId}: derived state still differs from its rebuild after ${MAX_REBUILDS} rebuilds (${found[0]})`,
      );
    }
    if (rebuilds === 0) counts.differences = found.length;
    await rebuildIssueIndexes(orgId);
    counts.rebuilds++;
  }
}

/**
 * `issues:reindex` of the next organisation after the cursor's (organisations are numbered from
 * 1; an id whose organisation is gone is skipped). Done after the last id handed out when the
 * migration started its step: organisations created since were written whole by this release.
 */
export async function issueIndexesStep(cursor: Cursor | undefined): Promise<StepResult> {
  const last = await lastOrganisationId();
  let orgId = Number(cursor?.org ?? 0) + 1;
  while (orgId <= last && !(await getOrganisation(orgId))) orgId++;
  if (orgId > last) return { cursor: undefined, counts: {} };
  const counts = await reindexOrganisation(orgId);
  return { cursor: orgId < last ? { org: orgId } : undefined, counts };
}

/**
 * `0004-workflow-states` on the next organisation after the cursor's: each of its projects made
 * before workflows existed gets one state per category, named after it (each its category's home:
 * its issues, which store no state, are in it; none is rewritten), then its derived state is
 * rebuilt where it differs (the board's column counters: `state-columns`). Safe while the API
 * writes: a project that got its workflow meanwhile is left as it is.
 */
export async function workflowStatesStep(cursor: Cursor | undefined): Promise<StepResult> {
  const last = await lastOrganisationId();
  let orgId = Number(cursor?.org ?? 0) + 1;
  while (orgId <= last && !(await getOrganisation(orgId))) orgId++;
  if (orgId > last) return { cursor: undefined, counts: {} };
  const given = await giveMissingWorkflows(orgId);
  const counts = await reindexOrganisation(orgId);
  return { cursor: orgId < last ? { org: orgId } : undefined, counts: { ...counts, workflows: given } };
}

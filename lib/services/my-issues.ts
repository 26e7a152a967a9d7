import { accountItem } from '../db/organisation/accounts.ts';

import { listAssigned, readAssignedItems, scanAssigned, type AssignedEntry, type AssignedFilter } from '../db/issues/assigned.ts';

import { ranksFrom, type IssueItem } from '../db/issues/issues.ts';

import { carriesAll, labelFilterIds } from '../db/issues/labels.ts';

import type { PageRequest } from '../db/core/list.ts';
import type { Issue, IssueListFilters } from '../schemas/issues.ts';
import { classificationFilter } from '../model/classification.ts';

import { blockOf, countBefore, type RankIndex } from '../model/positions.ts';

import { rankIndex } from '../db/issues/counters.ts';

import type { Principal } from '../model/principal.ts';
import { rulesOf, toIssue } from '../../lib/resources/issues.ts';

/**
 * The caller's assigned issues across the projects of the organisation, newest update first
 * (`GET /me/issues`), each with its place in its list. Cost, the authorizer aside: one Query of the
 * caller's index (lib/db/issues/assigned.ts), one BatchGet of the issues with their projects, sprints and
 * the caller's account (whose count of assigned issues is the total), then for their places one keys-only
 * Query per list, or per run of a long list (`placeRuns`; lib/model/positions.ts), all in
 * parallel: three round trips. An entry whose issue or ancestor is gone (a project or sprint
 * deleted, its cascade still running) is left out.
 */
export async function listMyIssues(caller: Principal, page: PageRequest, filters?: MyIssuesFilters) {
  const entryFilter = filters && assignedFilter(filters);
  if (filters?.labels) return listMyLabelledIssues(caller, page, entryFilter, filters.labels);
  const { orgId } = caller;
  const result = await listAssigned(orgId, caller.accountId, page, entryFilter);
  const { account, live } = await readAssigned(caller, result.entries);
  const items = await placedIssues(orgId, live);
  return {
    // A page cut by the byte budget goes on after its last item shown, found among the entries read.
    page: { items, nextCursor: result.nextCursor, cursorAfter: (i: number) => result.cursorAfter(live[i]?.index ?? 0) },
    items,
    total: result.matches ? result.matches.count : account ? accountItem.field(account, 'assignedCount') : 0,
  };
}

/** Assigned entries a page filtered by labels looks through at most: their issues are read with the page's one BatchGet. */
export const LABEL_FILTER_SCAN = 100;

/**
 * A page of the caller's issues carrying every label of `labels` (names, looked up in each issue's
 * own project catalogue, read in the same BatchGet): the index entries do not hold labels, so the
 * page looks through at most LABEL_FILTER_SCAN entries (passing the other filters, if any), reads
 * their issues, and keeps the matches; it is followed by its `next` link, and `X-Total-Count`
 * counts the matches up to where it stopped looking, as the other filtered pages do. The same
 * three round trips as an unfiltered page.
 */
async function listMyLabelledIssues(caller: Principal, page: PageRequest, filter: AssignedFilter | undefined, labels: string[]) {
  const scan = await scanAssigned(caller.orgId, caller.accountId, page, LABEL_FILTER_SCAN, filter);
  const { live } = await readAssigned(
    caller,
    scan.entries.map((e) => e.entry),
  );
  const matching = live.filter((row) => carriesAll(row.issue, labelFilterIds(row.project, labels)));
  const taken = matching.slice(0, page.perPage);
  const full = taken.length === page.perPage;
  const itemOf = (row: (typeof live)[number]) => (scan.entries[row.index] as (typeof scan.entries)[number]).item;
  const lastTaken = taken.at(-1);
  const resume = full && lastTaken ? itemOf(lastTaken) : scan.lastRead;
  const more = scan.more || (full && resume !== scan.lastRead);
  const items = await placedIssues(caller.orgId, taken);
  return {
    page: {
      items,
      nextCursor: more && resume ? scan.cursorOf(resume, scan.before + taken.length) : undefined,
      cursorAfter: (i: number) => scan.cursorOf(itemOf(taken[i] as (typeof live)[number]), scan.before + i + 1),
    },
    items,
    total: scan.before + matching.length,
  };
}

/**
 * The issues of index entries with their ancestors, in one BatchGet (it reads a key asked for twice
 * once): the account first, then each entry's issue, project and sprint, found by their place in
 * `wanted`. Entries whose issue or ancestor is gone are left out; `index` is the entry's place.
 */
async function readAssigned(caller: Principal, entries: AssignedEntry[]) {
  const { account, rows } = await readAssignedItems(caller.orgId, caller.accountId, entries);
  const live = rows.flatMap((row, index) => {
    const { issue, project, owner } = row;
    // The index is written with the issue, so a mismatch is a gone ancestor whose cascade runs.
    if (!issue || !project || !owner || issue.assignee_id !== caller.accountId) return [];
    if ((issue.sprint_id ?? null) !== entries[index]?.sprintId) return [];
    return [{ issue, owner, project, index }];
  });
  return { account, live };
}

/** The issues of `live` with their places in their lists, in the order of `live`. */
async function placedIssues(
  orgId: number,
  live: { issue: IssueItem; owner: Record<string, unknown>; project: Record<string, unknown> }[],
): Promise<Issue[]> {
  // Places: the issues of one list close enough together share one keys-only Query (PLACE_RUN).
  const lists = new Map<string, typeof live>();
  for (const row of live) {
    const id = `${row.issue.project_id}/${row.issue.sprint_id ?? ''}`;
    const list = lists.get(id);
    if (list) list.push(row);
    else lists.set(id, [row]);
  }
  const places = new Map<IssueItem, number>();
  const runs = [...lists.values()].flatMap((rows) => placeRuns(rows));
  await Promise.all(
    runs.map(async ({ rows, fromBlock, before }) => {
      const { issue } = rows[0] as (typeof live)[number];
      const ranks = await ranksFrom(
        orgId,
        issue.project_id,
        issue.sprint_id ?? null,
        fromBlock,
        rows.map((r) => r.issue),
      );
      rows.forEach((r, i) => places.set(r.issue, before + (ranks[i] as number)));
    }),
  );
  return live.map(({ issue, project }) => toIssue(issue, places.get(issue) as number, rulesOf(project)));
}

/** The filters of `GET /me/issues` (AND): what the index entries carry. */
export type MyIssuesFilters = Pick<
  IssueListFilters,
  'status' | 'priority' | 'type' | 'dueBefore' | 'dueAfter' | 'parentId' | 'labels'
>;

/**
 * The entries that pass every filter given: the index entry carries the status, priority, type,
 * due date and parent of its issue (the `assignee-index` derivation), so a filtered page is still one Query
 * of the index before the BatchGet of its issues.
 */
function assignedFilter(filters: MyIssuesFilters): AssignedFilter {
  const classified = classificationFilter(filters);
  return (entry) =>
    (filters.status === undefined || filters.status.includes(entry.status)) &&
    (filters.parentId === undefined || entry.parentId === filters.parentId) &&
    classified(entry);
}

/** Issues one place Query may read past its first block's start: issues of a list this close share it. */
export const PLACE_RUN = 128;

/**
 * The issues of one list (rows with the list's owner) cut into runs, in list order: a run starts at
 * an issue's block and takes the next issues while the list holds at most PLACE_RUN issues from its
 * start through the end of their block (the rank index says how many), so that each run is one
 * Query of at most that many keys.
 */
export function placeRuns<R extends { issue: IssueItem; owner: Record<string, unknown> }>(rows: R[]) {
  const sorted = [...rows].sort((a, b) => a.issue.position - b.issue.position);
  const index: RankIndex = rankIndex((sorted[0] as R).owner);
  const runs: { rows: R[]; fromBlock: number; before: number }[] = [];
  for (const row of sorted) {
    const block = blockOf(row.issue.position);
    const run = runs.at(-1);
    if (run && countBefore(index, block + 1) - run.before <= PLACE_RUN) run.rows.push(row);
    else runs.push({ rows: [row], fromBlock: block, before: countBefore(index, block) });
  }
  return runs;
}

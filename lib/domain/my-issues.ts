import { listAssigned } from '../db/assigned.ts';
import { ranksInBlock, toIssue, type IssueItem } from '../db/issues.ts';
import { keys, type Key } from '../db/keys.ts';
import type { PageRequest } from '../db/list.ts';
import { batchGet } from '../db/transactions.ts';
import type { Issue, IssueStatus } from '../schemas/issues.ts';
import { blockOf, countBefore, rankIndexOf } from './positions.ts';
import type { Principal } from './principal.ts';

/**
 * The caller's assigned issues across the projects of the organisation, newest update first
 * (`GET /me/issues`), each with its place in its list. Cost, the authorizer aside: one Query of the
 * caller's index (lib/db/assigned.ts), one BatchGet of the issues with their projects, sprints and
 * the caller's account (whose `assigned_count` is the total), then for their places one keys-only
 * Query per rank-index block that holds issues of the page (lib/domain/positions.ts), all in
 * parallel: three round trips. An entry whose issue
 * or ancestor is gone (a project or sprint deleted, its cascade still running) is left out.
 */
export async function listMyIssues(caller: Principal, page: PageRequest, statuses?: IssueStatus[]) {
  const { orgId } = caller;
  const result = await listAssigned(orgId, caller.accountId, page, statuses);
  const wanted = new Map<string, Key>();
  const want = (key: Key) => {
    const id = `${key.PK}\u0000${key.SK}`;
    if (!wanted.has(id)) wanted.set(id, key);
    return id;
  };
  const accountId = want(keys.account(orgId, caller.accountId));
  const rows = result.entries.map((e) => ({
    issue: want(keys.issue(orgId, e.projectId, e.issueId)),
    project: want(keys.project(orgId, e.projectId)),
    sprint: e.sprintId === null ? undefined : want(keys.sprint(orgId, e.projectId, e.sprintId)),
    entry: e,
  }));
  const ids = [...wanted.keys()];
  const found = await batchGet([...wanted.values()]);
  const byId = new Map(ids.map((id, i) => [id, found[i]]));

  const live = rows.flatMap((row, index) => {
    const issue = byId.get(row.issue) as IssueItem | undefined;
    const project = byId.get(row.project);
    const owner = row.sprint === undefined ? project : byId.get(row.sprint);
    // The index is written with the issue, so a mismatch is a gone ancestor whose cascade runs.
    if (!issue || !project || !owner || issue.assignee_id !== caller.accountId) return [];
    if ((issue.sprint_id ?? null) !== row.entry.sprintId) return [];
    return [{ issue, owner, index }];
  });
  // Places: one keys-only Query per block of a list that holds issues of the page, in parallel.
  const blocks = new Map<string, typeof live>();
  for (const row of live) {
    const { issue } = row;
    const id = `${issue.project_id}/${issue.sprint_id ?? ''}/${blockOf(issue.position)}`;
    blocks.set(id, [...(blocks.get(id) ?? []), row]);
  }
  const places = new Map<IssueItem, number>();
  await Promise.all(
    [...blocks.values()].map(async (rows) => {
      const { issue: first, owner } = rows[0] as (typeof live)[number];
      const before = countBefore(rankIndexOf(owner), blockOf(first.position));
      const ranks = await ranksInBlock(
        orgId,
        first.project_id,
        first.sprint_id ?? null,
        rows.map((r) => r.issue),
      );
      rows.forEach((r, i) => places.set(r.issue, before + (ranks[i] as number)));
    }),
  );
  const items: Issue[] = live.map(({ issue }) => toIssue(issue, places.get(issue) as number));
  const account = byId.get(accountId);
  return {
    // A page cut by the byte budget goes on after its last item shown, found among the entries read.
    page: { items, nextCursor: result.nextCursor, cursorAfter: (i: number) => result.cursorAfter(live[i]?.index ?? 0) },
    items,
    total: result.matches ? result.matches.count : Number(account?.assigned_count ?? 0),
  };
}

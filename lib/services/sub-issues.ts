import { issueKeyPattern } from '../vocabulary/ids.ts';
import { childrenOf, issuesById, pointerWithChildren, type SubIssueRecord } from '../db/issues/sub-issues.ts';
import type { IssueItem } from '../db/issues/issues.ts';
import type { ParentGuard } from '../db/issues/issue-write.ts';
import type { PageRequest } from '../db/core/list.ts';
import type { SubIssue } from '../schemas/issues.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import { readIssueItem } from '../db/issues/issue-refs.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { openCursor, sealCursor } from '../db/core/cursors.ts';

/**
 * Sub-issues: an issue's `parent_id` names another issue of its project (any list), or null. The
 * rules (no cycle, at most `subIssueLimits.depth` levels counting the whole chain and the moved
 * issue's own sub-issues, at most `subIssueLimits.children` children per parent) are decided here
 * on a read; the write then checks, on the new parent, that its own parent and its number of
 * children are still as read (lib/db/issues/issue-write.ts: `ParentGuard`), so two writes that would
 * together break a rule cannot both commit. A parent's `sub_issues_summary` and its children index
 * are derivations (lib/model/derivations.ts: `parent-summary`, `sub-issue-index`).
 */

/**
 * How far sub-issues go: levels of a chain (the top issue is level 1), and children per parent.
 * Here, not beside the schemas: the issue handlers load zod on their first request, not at init.
 */
export const subIssueLimits = { depth: 5, children: 100 } as const;

export const parentMessages = {
  notFound: 'parent_id must be an issue of this project',
  self: 'parent_id must not be the issue itself',
  cycle: 'parent_id must not be one of the sub-issues of this issue (that would make a cycle)',
  depth: `parent_id would make sub-issues more than ${subIssueLimits.depth} levels deep`,
  children: `parent_id names an issue that already has ${subIssueLimits.children} sub-issues, the most an issue may have`,
} as const;

const childCount = (item: IssueItem) => issueItem.field(item, 'subIssuesTotal');

/** How many more sub-issues an issue may be given (lib/vocabulary: the limit). */
export const childrenRoom = (item: IssueItem): number => Math.max(0, subIssueLimits.children - childCount(item));

/** What a write stores of a parent decided on: the parent's id and number (the children index lives under it). */
export interface ParentDecision {
  parentId: number | null;
  parentNumber: string | null;
  guard?: ParentGuard | undefined;
}

/**
 * Decides a new parent for `child` (undefined: an issue being created), `parent` being the issue
 * `parentId` names as read beside it. Cost: for each ancestor above the parent one GetItem (at
 * most depth - 2, one after the other), and, when the child has sub-issues, per level of them one
 * Query per issue that has children and one BatchGet of those children, one level after the other.
 */
export async function decideParent(
  orgId: number,
  projectId: number,
  child: IssueItem | undefined,
  parentId: number | null,
  parent: IssueItem | undefined,
): Promise<ParentDecision> {
  if (parentId === null) return { parentId: null, parentNumber: null };
  if (child && child.id === parentId) throw new ValidationError([parentMessages.self]);
  if (!parent) throw new ValidationError([parentMessages.notFound]);
  if (childCount(parent) >= subIssueLimits.children) throw new ValidationError([parentMessages.children]);

  // The parent's level: 1 + its ancestors (a chain is never longer than the limit, nor a cycle).
  let level = 1;
  let at: IssueItem = parent;
  const chain: { issueId: number; parentId: number | null }[] = [];
  while (at.parent_id !== null && at.parent_id !== undefined) {
    if (child && at.parent_id === child.id) throw new ValidationError([parentMessages.cycle]);
    if (level >= subIssueLimits.depth) throw new ValidationError([parentMessages.depth]);
    const next = await readIssueItem(orgId, projectId, at.parent_id);
    // An ancestor deleted (its cascade clears the parent_id of its children): the chain ends here.
    if (!next) break;
    at = next;
    chain.push({ issueId: next.id, parentId: next.parent_id ?? null });
    level += 1;
  }
  if (level >= subIssueLimits.depth) throw new ValidationError([parentMessages.depth]);
  if (child && !(await heightWithin(orgId, projectId, child, subIssueLimits.depth - level))) {
    throw new ValidationError([parentMessages.depth]);
  }
  return {
    parentId,
    parentNumber: parent.issue_number,
    guard: { issueId: parentId, parentId: parent.parent_id ?? null, maxChildren: subIssueLimits.children, chain },
  };
}

/** Whether the issue with its sub-issues spans at most `limit` levels (itself alone: 1). */
async function heightWithin(orgId: number, projectId: number, root: IssueItem, limit: number): Promise<boolean> {
  let frontier = [root];
  for (let height = 1; ; height++) {
    const parents = frontier.filter((item) => childCount(item) > 0);
    if (parents.length === 0) return height <= limit;
    if (height + 1 > limit) return false;
    const children = (
      await Promise.all(parents.map((p) => childrenOf(orgId, { projectId, issueId: p.id, number: p.issue_number })))
    ).flat();
    if (children.length === 0) return height <= limit;
    frontier = await issuesById(
      orgId,
      projectId,
      children.map((c) => c.issueId),
    );
  }
}

const subIssueOf = (r: SubIssueRecord): SubIssue => ({
  id: r.issueId,
  project_id: r.projectId,
  sprint_id: r.sprintId,
  parent_id: r.parentId,
  issue_number: r.issueNumber,
  title: r.title,
  status: r.status,
  story_points: r.storyPoints,
  assignee_id: r.assigneeId,
});

/** What an issue's number looks like (`APL-12`): anything else is no issue (404, never a table read). */
export { issueKeyPattern };

/** Cursor of the sub-issues list: the last child shown and its place. */
const encode = (issueId: number, n: number) => sealCursor({ i: issueId, n });
function decode(cursor: string): { i: number; n: number } {
  const body = (openCursor(cursor) ?? {}) as { i?: unknown; n?: unknown };
  if (Number.isSafeInteger(body.i) && Number.isSafeInteger(body.n) && (body.n as number) >= 0) {
    return { i: body.i as number, n: body.n as number };
  }
  throw new ValidationError(['cursor is not valid for this list']);
}

/**
 * The sub-issues (direct children) of the issue numbered `number`, in the order of their ids
 * (creation order): one Query of the number's pointer and its children index, whatever the page
 * (a parent has at most 100 children). 404 for an unknown number.
 */
export async function listSubIssues(caller: Principal, number: string, page: PageRequest) {
  const key = number.toUpperCase();
  if (!issueKeyPattern.test(key)) throw new NotFoundError(`Issue ${number.slice(0, 40)}`);
  const { pointer, children } = await pointerWithChildren(caller.orgId, key);
  if (!pointer) throw new NotFoundError(`Issue ${key}`);
  let start = (page.page - 1) * page.perPage;
  if (page.cursor) {
    const { i } = decode(page.cursor);
    start = children.findIndex((c) => c.issueId > i);
    if (start < 0) start = children.length;
  }
  const shown = children.slice(start, start + page.perPage);
  const items = shown.map(subIssueOf);
  const cursorAfter = (index: number) => encode(shown[index]?.issueId ?? 0, start + index + 1);
  const more = start + shown.length < children.length;
  return {
    page: { items, nextCursor: more && shown.length > 0 ? cursorAfter(shown.length - 1) : undefined, cursorAfter },
    items,
    total: children.length,
  };
}

/**
 * Whether a comment's ancestors stand, judged from the items read (lib/db/comments/comments.ts reads them in
 * one BatchGet): which one is missing, where the issue is now, and whether that sprint was checked.
 */

/** What the ancestor check of a comment found. */
export interface Ancestry {
  /** The first ancestor found missing (or, for a path, an issue that is not under it). */
  missing?: 'Project' | 'Sprint' | 'Issue' | undefined;
  /** The issue's current sprint (null in the backlog). */
  issueSprintId: number | null;
  /** The issue's comments counter. */
  commentsCount: number;
  /** The issue has moved to a sprint that was not read: that sprint's existence is unchecked. */
  sprintUnchecked: boolean;
}

/** What was found of a comment's ancestors (lib/db/comments/comments.ts decodes it from the items read; absent, or not read: false, undefined). */
export interface AncestorItems {
  project: boolean;
  sprint: boolean;
  /** The issue's list (null: the backlog) and its count of comments. */
  issue: { sprintId: number | null; commentsCount: number } | undefined;
}

const sprintOf = (issue: AncestorItems['issue']) => issue?.sprintId ?? null;

/** The ancestry of a comment found by id: its issue's current sprint is the one that counts (`sprintRead`: the one read). */
export function ancestryOf(found: AncestorItems, sprintRead: number | null): Ancestry {
  const current = sprintOf(found.issue);
  const result = { issueSprintId: current, commentsCount: found.issue?.commentsCount ?? 0, sprintUnchecked: false };
  if (!found.project) return { ...result, missing: 'Project' };
  if (!found.issue) return { ...result, missing: 'Issue' };
  if (current === null) return result;
  if (current !== sprintRead) return { ...result, sprintUnchecked: true };
  return found.sprint ? result : { ...result, missing: 'Sprint' };
}

/** The ancestry of a comment path: the issue must be in that sprint (`pathSprint`), or in the backlog, now. */
export function pathAncestryOf(found: AncestorItems, pathSprint: number | null): Ancestry {
  const a: Ancestry = {
    issueSprintId: sprintOf(found.issue),
    commentsCount: found.issue?.commentsCount ?? 0,
    sprintUnchecked: false,
  };
  if (!found.project) return { ...a, missing: 'Project' };
  if (pathSprint !== null && !found.sprint) return { ...a, missing: 'Sprint' };
  if (!found.issue || a.issueSprintId !== pathSprint) return { ...a, missing: 'Issue' };
  return a;
}

/**
 * What of a project an export walk writes, and in which steps (`ExportPosition.step`): all of a
 * live project, or what a trashed project, sprint or issue holds, as `trash_content` lines of its
 * trash item. Steps: 1 labels, 2 sprints and their activity, 3 sprint issues, 4 backlog issues,
 * 5 the issues' comments, attachments, GitHub links and activity, 6 the GitHub connection.
 */
export type ExportScope =
  | { kind: 'live' }
  | { kind: 'project'; trashId: string }
  | { kind: 'sprint'; trashId: string; sprintId: number }
  | { kind: 'issue'; trashId: string; issueId: number; commentsWithFilesInTrash: number[] };

/** The steps each scope takes, in order. */
const stepsOf: Record<ExportScope['kind'], readonly number[]> = {
  live: [1, 2, 3, 4, 5, 6],
  project: [1, 2, 3, 4, 5, 6],
  sprint: [2, 3, 5],
  issue: [5],
};

/** The step after a project's (a trashed item's) last: a cursor names none past it. */
export const DONE = 7;

/** The first step of a scope's walk; `DONE` when there is none (a trashed item that holds nothing). */
export const firstStep = (scope: ExportScope | undefined) => (scope ? stepsOf[scope.kind][0]! : DONE);

/** The step of a scope's walk after step `after`; `DONE` after its last. */
export const stepAfter = (scope: ExportScope, after: number) => stepsOf[scope.kind].find((s) => s > after) ?? DONE;

/**
 * The scope of a trashed item's contents: a project, a sprint and an issue hold things; other
 * kinds (a label, a comment, an attachment) hold nothing and have none.
 */
export function trashScope(
  kind: string,
  trashId: string,
  itemId: number,
  commentsWithFilesInTrash: () => number[],
): ExportScope | undefined {
  if (kind === 'project') return { kind: 'project', trashId };
  if (kind === 'sprint') return { kind: 'sprint', trashId, sprintId: itemId };
  if (kind === 'issue') return { kind: 'issue', trashId, issueId: itemId, commentsWithFilesInTrash: commentsWithFilesInTrash() };
  return undefined;
}

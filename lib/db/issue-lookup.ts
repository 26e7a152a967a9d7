import { getItem } from './transactions.ts';
import { keys } from './keys.ts';

/**
 * Lookups by what a person reads on an issue ("APL-12") rather than by the keys a path carries:
 * the create transaction writes a pointer per issue number (`ISSUEKEY#APL-12` in the organisation's
 * partition), deleted with the issue, or by the cascade of its project or sprint (lib/db/cascade.ts)
 * while it still points to that issue: a pointer read before its cascade leads to a missing
 * project or issue (404), and a new project that reuses the prefix overwrites it.
 */

/** The project and issue an issue number points to: one consistent GetItem. */
export async function issueOfNumber(
  orgId: number,
  issueNumber: string,
): Promise<{ projectId: number; issueId: number } | undefined> {
  const item = await getItem(keys.issueKey(orgId, issueNumber));
  return item ? { projectId: Number(item.project_id), issueId: Number(item.issue_id) } : undefined;
}

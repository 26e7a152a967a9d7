import { getItem } from './transactions.ts';
import { attribute, itemKind } from './item.ts';
import { keys } from './keys.ts';

/**
 * Lookups by what a person reads on an issue ("APL-12") rather than by the keys a path carries:
 * the create transaction writes a pointer per issue number (`ISSUEKEY#APL-12` in the organisation's
 * partition), deleted with the issue, or by the cascade of its project or sprint (lib/db/cascade.ts)
 * while it still points to that issue: a pointer read before its cascade leads to a missing
 * project or issue (404), and a new project that reuses the prefix overwrites it.
 */

/** An issue number's pointer (the `issue-key` derivation, lib/model/derivations.ts), declared once. */
export const issueKeyItem = itemKind({
  type: 'issue_key',
  key: { PK: 'ORG#o', SK: 'ISSUEKEY#X-n' },
  about: 'issue number → project and issue id',
  attributes: {
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
  },
});

/** Where a pointer read leads: its project and issue. */
export const pointedIssue = (item: object): { projectId: number; issueId: number } => {
  const { projectId, issueId } = issueKeyItem.decode(item);
  return { projectId, issueId };
};

/** The project and issue an issue number points to: one consistent GetItem. */
export async function issueOfNumber(
  orgId: number,
  issueNumber: string,
): Promise<{ projectId: number; issueId: number } | undefined> {
  const item = await getItem(keys.issueKey(orgId, issueNumber));
  return item && pointedIssue(item);
}

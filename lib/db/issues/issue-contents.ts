import { keys } from '../core/keys.ts';
import { getItem } from '../core/transactions.ts';
import { issueItem } from './issue-item.ts';

/** What an export needs of an issue that its contents are walked under: its list, and its comments whose files are in the trash. */
export async function issueOfContents(orgId: number, projectId: number, issueId: number) {
  const item = await getItem(
    keys.issue(orgId, projectId, issueId),
    ['PK', issueItem.stored('sprintId'), issueItem.stored('commentsWithFilesInTrash')].join(', '),
  );
  return (
    item && {
      sprintId: issueItem.field(item, 'sprintId'),
      commentsWithFilesInTrash: issueItem.field(item, 'commentsWithFilesInTrash'),
    }
  );
}

import type { DynamoDBRecord } from 'aws-lambda';
import { connectedRepositoryOf } from '../db/github/connected-repositories.ts';
import { forgetRepository } from '../db/github/github.ts';
import { projectGoneForGood } from '../db/projects/project-trash.ts';

/**
 * A purged project's GitHub connection (docs/github.md, docs/trash.md). The project's cascade does
 * not reach the repository's item, so the stream record that shows the project gone names the
 * repository it connected (lib/db/github/connected-repositories.ts). While the project is in the
 * trash the connection stays (its deliveries are ignored: the consumer finds no project), and a
 * restore brings the project back connected. Once it is gone for good (its trash item purged or
 * expired), the repository's item goes, if it still names that project, so that the repository
 * can be connected again. Its links went with its partition.
 */

/**
 * Forgets the repositories of the projects a batch's records show gone for good: neither there nor
 * in the trash (one TransactGetItems each), so a delete into the trash and a restore's end leave
 * the connection. The repository's item is deleted only while it names that project (a second run,
 * or a repository connected elsewhere since, changes nothing). `failed` is told of each record
 * whose repository could not be forgotten: the stream brings it again.
 */
export async function forgetPurgedRepositories(
  records: DynamoDBRecord[],
  failed: (indexes: number[], err: unknown) => void,
): Promise<void> {
  for (const [index, record] of records.entries()) {
    const repo = connectedRepositoryOf(record);
    if (!repo) continue;
    try {
      if (await projectGoneForGood(repo.orgId, repo.projectId)) await forgetRepository(repo.orgId, repo.projectId, repo.fullName);
    } catch (err) {
      failed([index], err);
    }
  }
}

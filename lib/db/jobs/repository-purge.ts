import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { forgetRepository } from '../github/github.ts';
import { keys } from '../core/keys.ts';
import { goneForGood, trashedKey } from '../core/trash.ts';

/**
 * A purged project's GitHub connection (docs/github.md, docs/trash.md). The repository's item lives
 * outside the project's partition (lib/db/github/github.ts: `GITHUB#<owner/name>`), so the
 * project's cascade does not reach it; the stream record that shows the project gone names the
 * repository it connected (its `github_repo_owner` and `github_repo_name`, as the project was
 * stored). While the project is in the trash the connection stays (its deliveries are ignored: the
 * consumer finds no project), and a restore brings the project back connected. Once it is gone for
 * good (its trash item purged or expired), the repository's item goes, if it still names that
 * project, so that the repository can be connected again. Its links went with its partition.
 */

/** A project's repository, as a stream record shows it. */
export interface ConnectedRepository {
  orgId: number;
  projectId: number;
  /** `owner/name`. */
  fullName: string;
}

const numberOf = (v: AttributeValue | undefined): number | undefined =>
  v?.N !== undefined && Number.isSafeInteger(Number(v.N)) ? Number(v.N) : undefined;

/**
 * The repository a REMOVE record shows a project connected when it went: the project's own item
 * (its delete into the trash) or its trash item (a restore's end, a purge, an expiry). Undefined
 * for anything else, or a project that connected none.
 */
export function connectedRepositoryOf(record: DynamoDBRecord): ConnectedRepository | undefined {
  const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
  const project = old?.type?.S === 'trash' && old.kind?.S === 'project' ? old.stored?.M : old;
  if (project?.type?.S !== 'project') return undefined;
  const owner = project.github_repo_owner?.S;
  const name = project.github_repo_name?.S;
  const orgId = numberOf(project.org_id);
  const projectId = numberOf(project.id);
  if (!owner || !name || orgId === undefined || projectId === undefined) return undefined;
  return { orgId, projectId, fullName: `${owner}/${name}` };
}

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
      const gone = await goneForGood(keys.project(repo.orgId, repo.projectId), trashedKey(repo.orgId, 'project', repo.projectId));
      if (gone) await forgetRepository(repo.orgId, repo.projectId, repo.fullName);
    } catch (err) {
      failed([index], err);
    }
  }
}

import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/**
 * The repository a project connected, as the stream record that shows the project gone names it
 * (its `github_repo_owner` and `github_repo_name`, as the project was stored). The repository's
 * item lives outside the project's partition (lib/db/github/github.ts: `GITHUB#<owner/name>`), so
 * the project's cascade does not reach it (lib/jobs/repository-purge.ts).
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

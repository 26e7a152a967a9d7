import { keys, importedPrefix, orgPk, projectPk } from './keys.ts';
import { queryPages } from './query.ts';
import { putNew, type GuardedItem } from './transactions.ts';

/**
 * What an import reads and writes beside the issues it creates through the issue write path: the
 * records of the source keys it imported (`IMPORTED#<source>#<key>` in the project's partition),
 * and the organisation's accounts and the project's sprints it maps names onto.
 */

/** Why an issue create of an import was refused: its source key was imported meanwhile. */
export const importRefusals = { imported: 'imported' } as const;

/** The record of an imported source key, put in the issue's own create transaction, refused if present. */
export function importedIssueRecord(
  orgId: number,
  projectId: number,
  source: string,
  sourceKey: string,
  issue: { id: number; sprintId: number | null },
): GuardedItem {
  return putNew(
    {
      ...keys.importedIssue(orgId, projectId, source, sourceKey),
      type: 'imported_issue',
      org_id: orgId,
      project_id: projectId,
      source,
      source_key: sourceKey,
      issue_id: issue.id,
      sprint_id: issue.sprintId,
      imported_at: new Date().toISOString(),
    },
    importRefusals.imported,
  );
}

/** The source keys of `source` imported into a project before, with their issues (one Query, paged). */
export async function importedIssues(
  orgId: number,
  projectId: number,
  source: string,
): Promise<Map<string, { issueId: number; sprintId: number | null }>> {
  const found = new Map<string, { issueId: number; sprintId: number | null }>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': importedPrefix(source) },
      ProjectionExpression: 'source_key, issue_id, sprint_id',
    },
    {},
    (items) => {
      for (const item of items) {
        found.set(String(item.source_key), {
          issueId: Number(item.issue_id),
          sprintId: item.sprint_id === null || item.sprint_id === undefined ? null : Number(item.sprint_id),
        });
      }
    },
  );
  return found;
}

/** Every account of the organisation by its e-mail address (lower case): id, name, role. */
export async function accountsByEmail(orgId: number): Promise<Map<string, { id: number; name: string; role: string }>> {
  const found = new Map<string, { id: number; name: string; role: string }>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':prefix': 'ACCOUNT#' },
      ProjectionExpression: 'id, email, #n, #r',
      ExpressionAttributeNames: { '#n': 'name', '#r': 'role' },
    },
    {},
    (items) => {
      for (const a of items)
        found.set(String(a.email).toLowerCase(), { id: Number(a.id), name: String(a.name), role: String(a.role) });
    },
  );
  return found;
}

/** The project's sprints by name (the first of a name, in id order): id and status. */
export async function sprintsByName(orgId: number, projectId: number): Promise<Map<string, { id: number; status: string }>> {
  const found = new Map<string, { id: number; status: string }>();
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': 'SPRINT#' },
      ProjectionExpression: 'id, #n, #s',
      ExpressionAttributeNames: { '#n': 'name', '#s': 'status' },
    },
    {},
    (items) => {
      for (const s of items)
        if (!found.has(String(s.name))) found.set(String(s.name), { id: Number(s.id), status: String(s.status) });
    },
  );
  return found;
}

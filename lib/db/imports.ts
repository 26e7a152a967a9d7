import { tableName } from './client.ts';
import { keys, importedCommentPrefix, importedPrefix, orgPk, projectPk } from './keys.ts';
import { queryPages } from './query.ts';
import { getItem, putNew, transact, type GuardedItem, isRefused } from './transactions.ts';

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
  issue: { id: number; sprintId: number | null; number: string },
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
      issue_number: issue.number,
      sprint_id: issue.sprintId,
      imported_at: new Date().toISOString(),
    },
    importRefusals.imported,
  );
}

/** The source keys of `source` imported into a project before, with their issues (one Query, paged). */
export async function importedIssues(orgId: number, projectId: number, source: string): Promise<Map<string, ImportedIssue>> {
  const found = new Map<string, ImportedIssue>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': importedPrefix(source) },
      ProjectionExpression: 'source_key, issue_id, issue_number, sprint_id',
    },
    {},
    (items) => {
      for (const item of items) {
        found.set(String(item.source_key), {
          issueId: Number(item.issue_id),
          // Records written before numbers were kept on them have none.
          number: typeof item.issue_number === 'string' ? item.issue_number : undefined,
          sprintId: item.sprint_id === null || item.sprint_id === undefined ? null : Number(item.sprint_id),
        });
      }
    },
  );
  return found;
}

/** An issue an import created before: its id, number (where recorded) and sprint at the time. */
export interface ImportedIssue {
  issueId: number;
  number?: string | undefined;
  sprintId: number | null;
}

/** The record of an imported comment, put in the comment's own transaction, refused if present. */
export function importedCommentRecord(
  orgId: number,
  projectId: number,
  source: string,
  sourceKey: string,
  commentId: number,
): GuardedItem {
  return putNew(
    {
      ...keys.importedComment(orgId, projectId, source, sourceKey),
      type: 'imported_comment',
      org_id: orgId,
      project_id: projectId,
      source_key: sourceKey,
      comment_id: commentId,
    },
    importRefusals.imported,
  );
}

/** The comments of `source` imported into a project before: source key -> comment id (one Query, paged). */
export async function importedComments(orgId: number, projectId: number, source: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': importedCommentPrefix(source) },
      ProjectionExpression: 'source_key, comment_id',
    },
    {},
    (items) => {
      for (const item of items) found.set(String(item.source_key), Number(item.comment_id));
    },
  );
  return found;
}

/**
 * The issue numbers reserved for the keys of `source` that keep their number (`keep_numbers`, and
 * every export file): ranges `[from, to]`, inclusive. A number in them is given only to its key.
 */
export async function reservedNumbers(orgId: number, projectId: number, source: string): Promise<[number, number][]> {
  const item = await getItem<{ ranges?: [number, number][] }>(keys.importNumbers(orgId, projectId, source));
  return item?.ranges ?? [];
}

/**
 * Reserves the numbers `(expected, upTo]` for the keys of `source`: the project's issue sequence
 * moves from `expected` to `upTo` (so no create takes them) and the range is recorded, in one
 * transaction. False when the sequence is not `expected` any more (a create took a number
 * meanwhile): read again and decide again.
 */
export async function reserveIssueNumbers(
  orgId: number,
  projectId: number,
  source: string,
  expected: number,
  upTo: number,
): Promise<boolean> {
  try {
    await transact([
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.project(orgId, projectId),
            UpdateExpression: 'SET issue_seq = :to',
            ConditionExpression:
              expected === 0
                ? 'attribute_exists(PK) AND (attribute_not_exists(issue_seq) OR issue_seq = :from)'
                : 'issue_seq = :from',
            ExpressionAttributeValues: { ':from': expected, ':to': upTo },
          },
        },
        reason: 'moved',
      },
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.importNumbers(orgId, projectId, source),
            UpdateExpression: 'SET #type = :type, ranges = list_append(if_not_exists(ranges, :none), :range)',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':type': 'import_numbers', ':none': [], ':range': [[expected + 1, upTo]] },
          },
        },
      },
    ]);
    return true;
  } catch (err) {
    if (isRefused(err, 'moved')) return false;
    throw err;
  }
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
export async function sprintsByName(
  orgId: number,
  projectId: number,
): Promise<Map<string, { id: number; status: string; restored?: boolean }>> {
  const found = new Map<string, { id: number; status: string; restored?: boolean }>();
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': 'SPRINT#' },
      ProjectionExpression: 'id, #n, #s, restored',
      ExpressionAttributeNames: { '#n': 'name', '#s': 'status' },
    },
    {},
    (items) => {
      for (const s of items)
        if (!found.has(String(s.name)))
          found.set(String(s.name), {
            id: Number(s.id),
            status: String(s.status),
            ...(s.restored === true ? { restored: true } : {}),
          });
    },
  );
  return found;
}

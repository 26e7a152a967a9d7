import { tableName } from '../core/client.ts';
import { attribute, itemKind, type Attribute } from '../core/item.ts';
import { keys, importedCommentPrefix, importedPrefix, projectPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { getItem, putNew, transact, type GuardedItem, isRefused } from '../core/transactions.ts';

/**
 * What an import reads and writes beside the issues it creates through the issue write path: the
 * records of the source keys it imported (`IMPORTED#<source>#<key>` in the project's partition),
 * and the project's sprints it maps names onto (the organisation's accounts: lib/db/organisation/accounts.ts).
 */

/** Why an issue create of an import was refused: its source key was imported meanwhile. */
export const importRefusals = { imported: 'imported' } as const;

/**
 * The record of a source key an import made an issue of: put in the issue's own create
 * transaction, refused if present, so an import run twice creates nothing twice.
 */
export const importedIssueItem = itemKind({
  type: 'imported_issue',
  key: keys.importedIssue.placement,
  about: 'the issue an import made from a source key',
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    source: attribute.string('source'),
    sourceKey: attribute.string('source_key'),
    issueId: attribute.number('issue_id'),
    /** Its issue's number; none on a record written before numbers were kept on them. */
    number: attribute.laterString('issue_number'),
    /** Its issue's sprint when it was imported (null: the backlog). */
    sprintId: attribute.nullableNumber('sprint_id'),
    importedAt: attribute.string('imported_at'),
    /** The import that made it (a job's id); none for a run of the admin CLI, or one made before imports were named. */
    run: attribute.laterString('import_run'),
  },
});

/** What `importedIssues` reads of each record: the rest is the import's own bookkeeping. */
const importedIssueRead = importedIssueItem.projection(['sourceKey', 'issueId', 'number', 'sprintId', 'run']);

/** The record of an imported source key, put in the issue's own create transaction, refused if present. */
export function importedIssueRecord(
  orgId: number,
  projectId: number,
  source: string,
  sourceKey: string,
  issue: { id: number; sprintId: number | null; number: string },
  run?: string,
): GuardedItem {
  return putNew(
    {
      ...keys.importedIssue(orgId, projectId, source, sourceKey),
      type: importedIssueItem.type,
      ...importedIssueItem.encode({
        orgId,
        projectId,
        source,
        sourceKey,
        issueId: issue.id,
        number: issue.number,
        sprintId: issue.sprintId,
        importedAt: new Date().toISOString(),
        run,
      }),
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
      ...importedIssueRead,
    },
    {},
    (items) => {
      for (const item of items) {
        found.set(importedIssueItem.field(item, 'sourceKey'), {
          issueId: importedIssueItem.field(item, 'issueId'),
          number: importedIssueItem.field(item, 'number'),
          sprintId: importedIssueItem.field(item, 'sprintId'),
          run: importedIssueItem.field(item, 'run'),
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
  /** The import that made it, when it was a job. */
  run?: string | undefined;
}

/** The record of a source key an import made a comment of: put in the comment's own transaction, refused if present. */
export const importedCommentItem = itemKind({
  type: 'imported_comment',
  key: keys.importedComment.placement,
  about: 'the comment an import made from a source key',
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    sourceKey: attribute.string('source_key'),
    commentId: attribute.number('comment_id'),
  },
});

/** What `importedComments` reads of each record. */
const importedCommentRead = importedCommentItem.projection(['sourceKey', 'commentId']);

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
      type: importedCommentItem.type,
      ...importedCommentItem.encode({ orgId, projectId, sourceKey, commentId }),
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
      ...importedCommentRead,
    },
    {},
    (items) => {
      for (const item of items)
        found.set(importedCommentItem.field(item, 'sourceKey'), importedCommentItem.field(item, 'commentId'));
    },
  );
  return found;
}

/** An inclusive range of issue numbers, `[from, to]`. */
type NumberRange = [number, number];

/** A list stored whole; absent reads as none. */
const rangeList = <S extends string>(stored: S): Attribute<NumberRange[], S> => ({
  stored,
  read: (v) => (Array.isArray(v) ? (v as NumberRange[]) : []),
  write: (v) => v,
});

/**
 * The issue numbers reserved for the keys of `source` that keep their number (`keep_numbers`, and
 * every export file): ranges appended by each reservation (`reserveIssueNumbers`), or written
 * whole with a project an export file's import creates (`reservedNumbersPut`).
 */
export const importNumbersItem = itemKind({
  type: 'import_numbers',
  key: keys.importNumbers.placement,
  about: "issue numbers reserved for a source's keys",
  attributes: { ranges: rangeList('ranges') },
});

/**
 * The issue numbers reserved for the keys of `source` that keep their number: ranges
 * `[from, to]`, inclusive. A number in them is given only to its key.
 */
export async function reservedNumbers(orgId: number, projectId: number, source: string): Promise<NumberRange[]> {
  const item = await getItem(keys.importNumbers(orgId, projectId, source));
  return item ? importNumbersItem.field(item, 'ranges') : [];
}

/** The put of the numbers `1..upTo` reserved for the keys of `source`, in a project created for them (refused if present). */
export const reservedNumbersPut = (orgId: number, projectId: number, source: string, upTo: number): GuardedItem =>
  putNew({
    ...keys.importNumbers(orgId, projectId, source),
    type: importNumbersItem.type,
    ...importNumbersItem.encode({ ranges: [[1, upTo]] }),
  });

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
            UpdateExpression: 'SET #type = :type, #ranges = list_append(if_not_exists(#ranges, :none), :range)',
            ExpressionAttributeNames: { '#type': 'type', '#ranges': importNumbersItem.stored('ranges') },
            ExpressionAttributeValues: {
              ':type': importNumbersItem.type,
              ':none': [],
              ':range': importNumbersItem.encode({ ranges: [[expected + 1, upTo]] })[importNumbersItem.stored('ranges')],
            },
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

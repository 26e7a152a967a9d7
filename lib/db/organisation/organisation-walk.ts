import { collections, keys, orgPk, projectPk, skPrefixes } from '../core/keys.ts';
import { queryPages, type QueryInput } from '../core/query.ts';
import { getItem } from '../core/transactions.ts';
import { getTrashed } from '../core/trash.ts';

/**
 * The reads of an organisation's export and import (lib/services/import-export): the item
 * collections the export walks, in its order, a page at a time from a key it kept, and the
 * projects' prefixes an import of an export file resolves issue keys with. What it needs of an issue
 * its contents are walked under is lib/db/issues/issue-contents.ts.
 */

/** Where a walk resumes: the key of the last item it handed out (`PK`, `SK`, and `LSK` on the index). */
export type WalkKey = Record<string, unknown>;

/** A walk key as a cursor brings it back: only key attributes, each a string DynamoDB would take (a forged one never reaches it). */
export const isWalkKey = (v: unknown): boolean =>
  typeof v === 'object' &&
  v !== null &&
  Object.entries(v).every(
    ([k, x]) => ['PK', 'SK', 'LSK'].includes(k) && typeof x === 'string' && x.length > 0 && x.length <= 1024,
  );

/** Attributes of stored items that are layout, not data. */
const layoutAttributes = new Set(['PK', 'SK', 'LSK', 'type', 'org_id', 'version']);

/** A stored item's data without its layout (an activity entry written out as it is stored). */
export const withoutLayout = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([k]) => !layoutAttributes.has(k)));

/** A collection the export walks: a partition, the sort key prefix its members share, and the index it is read on. */
export interface WalkedCollection {
  pk: string;
  prefix: string;
  /** Read on LSI1 (the lists' order), by `LSK`; else on the table, by `SK`. */
  index?: 'LSI1';
}

/** The collections of an export, in the order it writes them. */
export const exportCollections = {
  accounts: (orgId: number): WalkedCollection => ({ pk: orgPk(orgId), prefix: 'ACCOUNT#' }),
  projects: (orgId: number): WalkedCollection => ({ pk: orgPk(orgId), prefix: 'PROJECT#' }),
  labels: (orgId: number, projectId: number): WalkedCollection => ({ pk: projectPk(orgId, projectId), prefix: 'LABEL#' }),
  /** The project's sprints with their activity. */
  sprints: (orgId: number, projectId: number): WalkedCollection => ({ pk: projectPk(orgId, projectId), prefix: 'SPRINT#' }),
  /** Every sprint's issues, in list order. */
  sprintIssues: (orgId: number, projectId: number): WalkedCollection => ({
    pk: projectPk(orgId, projectId),
    prefix: 'S#',
    index: 'LSI1',
  }),
  backlogIssues: (orgId: number, projectId: number): WalkedCollection => ({
    pk: projectPk(orgId, projectId),
    prefix: 'B#',
    index: 'LSI1',
  }),
  /** What is stored under the project's issues: their comments and activity. */
  issueContents: (orgId: number, projectId: number): WalkedCollection => ({ pk: projectPk(orgId, projectId), prefix: 'ISSUE#' }),
  /** The organisation's trash, newest deletion first (only when the export is asked to include it). */
  trash: (orgId: number): WalkedCollection => ({ ...collections.trash(orgId), index: 'LSI1' }),
  /** A sprint's activity (its item is not among it). */
  sprintActivity: (orgId: number, projectId: number, sprintId: number): WalkedCollection => ({
    pk: projectPk(orgId, projectId),
    prefix: skPrefixes.sprintActivity(sprintId),
  }),
  /** A sprint's issues, in list order. */
  issuesOfSprint: (orgId: number, projectId: number, sprintId: number): WalkedCollection => ({
    ...collections.sprintIssues(orgId, projectId, sprintId),
    index: 'LSI1',
  }),
  /** What is stored under one issue: its comments, attachments and activity (not the issue itself). */
  underIssue: (orgId: number, projectId: number, issueId: number): WalkedCollection => ({
    pk: projectPk(orgId, projectId),
    prefix: skPrefixes.underIssue(issueId),
  }),
};

/** The issue or sprint (by id) that an item of a project's partition is, or is stored under. */
export function ownerOf(item: Record<string, unknown>): { issueId?: number; sprintId?: number } {
  const m = /^(ISSUE|SPRINT)#(\d{10})/.exec(String(item.SK));
  if (!m) return {};
  return m[1] === 'ISSUE' ? { issueId: Number(m[2]) } : { sprintId: Number(m[2]) };
}

/** Whether a sprint is there (neither in the trash nor gone): one consistent GetItem of its key. */
export const sprintIsThere = async (orgId: number, projectId: number, sprintId: number): Promise<boolean> =>
  (await getItem(keys.sprint(orgId, projectId, sprintId), 'PK')) !== undefined;

/** A project as stored, there or in the trash (what an export shows a trashed sprint's or issue's fields by); undefined when gone. */
export async function projectThereOrTrashed(orgId: number, projectId: number): Promise<Record<string, unknown> | undefined> {
  return (await getItem(keys.project(orgId, projectId))) ?? (await getTrashed(orgId, 'project', projectId))?.stored;
}

const queryOf = (c: WalkedCollection): QueryInput => ({
  ...(c.index ? { IndexName: c.index } : {}),
  KeyConditionExpression: `PK = :pk AND begins_with(${c.index ? 'LSK' : 'SK'}, :prefix)`,
  ExpressionAttributeValues: { ':pk': c.pk, ':prefix': c.prefix },
});

/** At most `limit` items of `collection` after `start` (none: from its first), and where the next page starts. */
export async function readWalkPage(
  collection: WalkedCollection,
  start: WalkKey | undefined,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; next: WalkKey | undefined }> {
  let items: Record<string, unknown>[] = [];
  const next = await queryPages(queryOf(collection), { start, limit: () => limit }, (page) => {
    items = page;
    return false;
  });
  return { items, next };
}

/** The key a walk of `collection` resumes after `item` with. */
export const walkKeyOf = (item: Record<string, unknown>, collection: WalkedCollection): WalkKey =>
  collection.index ? { PK: item.PK, SK: item.SK, LSK: item.LSK } : { PK: item.PK, SK: item.SK };

/** Whether `key` (from a cursor) lies in `collection`: DynamoDB would refuse any other as a 500. */
export const walkKeyIn = (key: WalkKey, collection: WalkedCollection): boolean =>
  key.PK === collection.pk &&
  String(collection.index ? key.LSK : key.SK).startsWith(collection.prefix) &&
  typeof key.SK === 'string';

/** The organisation's projects by prefix: their ids. */
export async function projectIdsByPrefix(orgId: number): Promise<Map<string, number>> {
  const prefixes = new Map<string, number>();
  const { pk, prefix } = exportCollections.projects(orgId);
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': pk, ':p': prefix },
      ProjectionExpression: 'id, prefix',
    },
    {},
    (items) => {
      for (const p of items) prefixes.set(String(p.prefix), Number(p.id));
    },
  );
  return prefixes;
}

import { createHash } from 'node:crypto';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Activity } from '../../schemas/activity.ts';
import { attribute, itemKind, type Fields } from '../core/item.ts';
import { issueItem } from './issue-item.ts';
import { sprintItem } from '../projects/sprints.ts';
import { db, tableName } from '../core/client.ts';
import { collections, keys, listKeys, projectPk, skPrefixes, type Key } from '../core/keys.ts';
import { listPageWith, type PageRequest } from '../core/list.ts';
import { putNew, putItem, addTo, batchGet, existsCheck, Refused, transact, type GuardedItem } from '../core/transactions.ts';

/**
 * Activity entries, written by the change feed consumer (lib/feed/consume.ts) under the issue or
 * sprint they describe, in the project's partition: the issue cascade (SK prefix `ISSUE#i#`) and
 * the project cascade remove them with their parent. Each entry is keyed by its stream record's
 * sequence number, so a replayed record finds its entry written and writes nothing.
 */

/**
 * What an entry stores, an issue's or a sprint's alike: the entry as the API shows it, under its
 * own words, but its id, which is its sequence alone (its project and owner are in its key; the
 * id the API shows says all three: lib/vocabulary/ids.ts).
 */
const entryAttributes = {
  sequence: attribute.string('id'),
  orgId: attribute.number('org_id'),
  projectId: attribute.number('project_id'),
  event: attribute.string('event'),
  /** Null for a delete made outside a request. */
  actorId: attribute.nullableNumber('actor_id'),
  at: attribute.string('at'),
  issueId: attribute.nullableNumber('issue_id'),
  sprintId: attribute.nullableNumber('sprint_id'),
  commentId: attribute.nullableNumber('comment_id'),
  changes: attribute.whole<Activity['changes'], 'changes'>('changes'),
  /** The id of the entry this change reverted, on a revert's entry only. */
  reverts: attribute.laterString('reverts'),
  /** What made the change, for an integration's (a pull request's URL). */
  via: attribute.laterString('via'),
};

/** An entry of an issue's activity, declared once (lib/db/core/item.ts). */
export const issueActivityItem = itemKind({
  type: 'activity',
  key: { ...keys.issueActivity.placement, LSK: listKeys.issueActivity.placement },
  about: 'issue activity (change feed)',
  attributes: entryAttributes,
});

/** An entry of a sprint's own activity (its activation, its completion), declared once. */
export const sprintActivityItem = itemKind({
  type: 'activity',
  key: { ...keys.sprintActivity.placement, LSK: listKeys.sprintActivity.placement },
  about: 'sprint activity (change feed)',
  attributes: entryAttributes,
});

/** An entry as stored, decoded (an issue's or a sprint's: they store the same attributes). */
export type StoredEntry = Fields<typeof entryAttributes>;
export const entryOf = (item: object): StoredEntry => issueActivityItem.decode(item);

/**
 * The description an issue's entry replaced, kept beside it (`ActivityEntry.description`): the
 * text before whole, the text written as its digest, so that a revert can tell it is still there.
 */
export const activityTextItem = itemKind({
  type: 'activity_text',
  key: keys.issueActivityText.placement,
  about: "the description an issue's entry replaced (for its revert)",
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    before: attribute.nullableString('before'),
    afterDigest: attribute.string('after_digest'),
  },
});

/**
 * Why an activity write was refused: already written (a replay), its owner (the issue or sprint) is
 * gone, or its project is.
 */
export const activityRefusals = { recorded: 'recorded', owner: 'owner', project: 'project' } as const;

/** What became of an activity write: written, or the reason it was refused. */
export type ActivityOutcome = 'written' | (typeof activityRefusals)[keyof typeof activityRefusals];

export interface ActivityEntry {
  orgId: number;
  projectId: number;
  /** Under an issue, or (sprint transitions) under a sprint. */
  owner: { issueId: number } | { sprintId: number };
  sequence: string;
  activity: Activity;
  /**
   * A change of an issue's description: the text it replaced and the one it wrote, kept beside the
   * entry (the before whole, the after as its digest) so that the change can be reverted.
   */
  description?: { before: string | null; after: string | null } | undefined;
}

/** What a description is compared by (its SHA-256, base64url): an entry keeps the text it wrote so. */
export const descriptionDigest = (text: string | null): string =>
  createHash('sha256')
    .update(text === null ? '\u0000null' : `=${text}`)
    .digest('base64url');

/** What an entry kept of the description it changed (`ActivityEntry.description`), as read back. */
export interface DescriptionText {
  before: string | null;
  /** `descriptionDigest` of the text it wrote. */
  afterDigest: string;
}

/**
 * Writes one entry and counts it on its parent (the list's total), in one transaction that also
 * proves the parent still exists: an entry is never left behind by a parent deleted meanwhile.
 * Answers `written`, or why there was nothing to write (a replay, or the owner or project is gone).
 */
export async function recordActivity(entry: ActivityEntry): Promise<ActivityOutcome> {
  try {
    await transact(activityItems([entry]));
    return 'written';
  } catch (err) {
    if (err instanceof Refused) return err.reason as ActivityOutcome;
    throw err;
  }
}

/** Which owner's count an entry moves (`i<issue>` or `s<sprint>`): an item appears once in a transaction. */
export const ownerId = (entry: ActivityEntry) =>
  'issueId' in entry.owner ? `i${entry.owner.issueId}` : `s${entry.owner.sprintId}`;

/**
 * Writes entries of one project in one transaction (`activityItems`): all or none. A refusal
 * names the project (removed), or an owner (removed), or that an entry is there already.
 */
export async function writeActivities(entries: ActivityEntry[]): Promise<void> {
  await transact(activityItems(entries));
}

/**
 * The transaction of entries of one project: the project's check first (a refusal names the first
 * failing item, and a removed project tells the change feed that nothing more of it is to be
 * recorded, lib/feed/consume.ts), each owner's count, then the entries.
 */
function activityItems(entries: ActivityEntry[]) {
  const { orgId, projectId } = entries[0]!;
  const counts = new Map<string, { key: Key; counter: string; n: number }>();
  for (const entry of entries) {
    const { owner } = entry;
    const [key, counter] =
      'issueId' in owner
        ? [keys.issue(orgId, projectId, owner.issueId), issueItem.stored('activityCount')]
        : [keys.sprint(orgId, projectId, owner.sprintId), sprintItem.stored('activityCount')];
    const count = counts.get(ownerId(entry)) ?? { key, counter, n: 0 };
    count.n++;
    counts.set(ownerId(entry), count);
  }
  return [
    // Not under a deleted project, whose cascade may have read past this key already.
    existsCheck(keys.project(orgId, projectId), activityRefusals.project),
    ...[...counts.values()].map(({ key, counter, n }) => addTo(key, counter, n, activityRefusals.owner)),
    ...entries.flatMap((entry) => [activityPut(entry), ...descriptionPut(entry)]),
  ];
}

/** The Put of the description an issue's entry changed (a replay writes the same again). */
function descriptionPut(entry: ActivityEntry): GuardedItem[] {
  const { orgId, projectId, owner, sequence, description } = entry;
  if (!description || !('issueId' in owner)) return [];
  return [
    putItem({
      ...keys.issueActivityText(orgId, projectId, owner.issueId, sequence),
      type: activityTextItem.type,
      ...activityTextItem.encode({
        orgId,
        projectId,
        before: description.before,
        afterDigest: descriptionDigest(description.after),
      }),
    }),
  ];
}

/** The Put of a new entry, refused as `recorded` when it is already written (a replay). */
export function activityPut(entry: ActivityEntry): GuardedItem {
  const { orgId, projectId, owner, sequence, activity: a } = entry;
  const isIssue = 'issueId' in owner;
  const key = isIssue
    ? keys.issueActivity(orgId, projectId, owner.issueId, sequence)
    : keys.sprintActivity(orgId, projectId, owner.sprintId, sequence);
  const lsk = isIssue ? listKeys.issueActivity(owner.issueId, sequence) : listKeys.sprintActivity(owner.sprintId, sequence);
  const kind = isIssue ? issueActivityItem : sprintActivityItem;
  const stored = kind.encode({
    sequence: a.id,
    orgId,
    projectId,
    event: a.event,
    actorId: a.actor_id,
    at: a.at,
    issueId: a.issue_id,
    sprintId: a.sprint_id,
    commentId: a.comment_id,
    changes: a.changes,
    reverts: a.reverts,
    via: a.via,
  });
  return putNew({ ...key, LSK: lsk, type: kind.type, ...stored }, activityRefusals.recorded);
}

/**
 * The sequences of entries an import writes (lib/services/import-export/), which no stream record made: they sort
 * before every stream sequence number (decimal digits, padded with zeros: a `#` or `$` sorts
 * below any digit), so an imported issue's history reads, oldest first, the entries an export
 * file brought (`restored(n)`, in the file's order), its `issue.imported` entry, then whatever
 * happens to it here.
 */
export const importedSequences = {
  restored: (n: number) => `#${String(n).padStart(12, '0')}`,
  imported: `$${'0'.repeat(12)}`,
};

/** One page of an issue's or a sprint's activity, oldest first, with the ancestors to check. */
export async function listActivity(
  orgId: number,
  projectId: number,
  owner: { issueId: number; sprintId: number | null } | { sprintId: number },
  page: PageRequest,
) {
  const collection =
    'issueId' in owner
      ? collections.issueActivity(orgId, projectId, owner.issueId)
      : collections.sprintActivity(orgId, projectId, owner.sprintId);
  const ancestors = [
    keys.project(orgId, projectId),
    ...(owner.sprintId === null ? [] : [keys.sprint(orgId, projectId, owner.sprintId)]),
    ...('issueId' in owner ? [keys.issue(orgId, projectId, owner.issueId)] : []),
  ];
  const { page: result, related } = await listPageWith(collection, page, ancestors);
  return { page: result, related };
}

/**
 * One entry, found by where it lives (its id says: lib/vocabulary/ids.ts), with its project, its
 * owner (the issue or sprint) and the description it changed, if it kept one, in the same
 * consistent BatchGet: a revert reads them once.
 */
export async function readActivityEntry(
  orgId: number,
  projectId: number,
  owner: { issueId: number } | { sprintId: number },
  sequence: string,
) {
  const isIssue = 'issueId' in owner;
  const [entry, project, holder, text] = await batchGet([
    isIssue
      ? keys.issueActivity(orgId, projectId, owner.issueId, sequence)
      : keys.sprintActivity(orgId, projectId, owner.sprintId, sequence),
    keys.project(orgId, projectId),
    isIssue ? keys.issue(orgId, projectId, owner.issueId) : keys.sprint(orgId, projectId, owner.sprintId),
    ...(isIssue ? [keys.issueActivityText(orgId, projectId, owner.issueId, sequence)] : []),
  ]);
  const kept = text && activityTextItem.decode(text);
  const description: DescriptionText | undefined = kept && { before: kept.before, afterDigest: kept.afterDigest };
  return { entry, project, owner: holder, description };
}

/** Removes a deleted sprint's own activity (its issues' activity goes with their cascade). */
export async function deleteSprintActivity(orgId: number, projectId: number, sprintId: number): Promise<void> {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.sprintActivity(sprintId) },
      ProjectionExpression: 'PK, SK',
      ConsistentRead: true,
    }),
  );
  const found = out.Items ?? [];
  // A sprint has at most two entries (activated, completed): one BatchWrite.
  if (found.length > 0) {
    await db.send(
      new BatchWriteCommand({
        RequestItems: { [tableName()]: found.slice(0, 25).map((k) => ({ DeleteRequest: { Key: { PK: k.PK, SK: k.SK } } })) },
      }),
    );
  }
}

import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import {
  idOf,
  workOf,
  type CascadeParent,
  type CascadeWork,
  type Container,
  type PartitionKeys,
  type PendingCascade,
  type RecordAsks,
} from '../../model/cascades.ts';
import { db, tableName } from '../core/client.ts';
import { attribute, itemKind } from '../core/item.ts';
import { keys, pendingCascadesPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';

/**
 * What the cascade's stream records and its own items say (lib/jobs/cascade.ts reads them): which
 * parent a REMOVE asks to cascade, which comment's or attachment's files it moves, and the pending
 * cascades written down to be continued.
 */

const numberOf = (v: AttributeValue | undefined): number | undefined =>
  v?.N !== undefined && Number.isSafeInteger(Number(v.N)) ? Number(v.N) : undefined;

/** The parent a stream record asks to cascade, or undefined for anything else (writes, comments...). */
export function cascadeParentOf(record: DynamoDBRecord): CascadeParent | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  const old = record.dynamodb?.OldImage;
  if (!old) return undefined;
  const type = old.type?.S;
  // A trashed label's purge (or expiry): its issues lose its id only now (lib/db/issues/labels.ts); a
  // trashed issue's: what lived under it goes only now, and its children lose their parent.
  if (type === 'trash') {
    if (old.kind?.S === 'label') return purgedLabelOf(old.stored?.M);
    if (old.kind?.S === 'issue') return purgedIssueOf(old.stored?.M);
    // A trashed sprint's or project's restore finished, or its purge: decided by where it stands (lib/jobs/container-trash.ts).
    if (old.kind?.S === 'sprint' || old.kind?.S === 'project') return trashedContainerOf(old.kind.S, old.stored?.M);
    return undefined;
  }
  const orgId = numberOf(old.org_id);
  const id = numberOf(old.id);
  if (orgId === undefined || id === undefined) return undefined;
  if (type === 'project') return { kind: 'project', orgId, projectId: id };
  const projectId = numberOf(old.project_id);
  if (projectId === undefined) return undefined;
  if (type === 'sprint') return { kind: 'sprint', orgId, projectId, sprintId: id };
  if (type === 'issue') {
    // Only a parent's cascade has children to release (its summary counts them exactly).
    const number = Number(old.sub_issues_total?.N ?? 0) > 0 ? old.issue_number?.S : undefined;
    return { kind: 'issue', orgId, projectId, issueId: id, ...(number ? { number } : {}) };
  }
  if (type === 'label') return { kind: 'label', orgId, projectId, labelId: id };
  if (type === 'state') return { kind: 'state', orgId, projectId, stateId: id };
  return undefined;
}

/** The label whose trash item a REMOVE shows gone (`stored`: the label as it was stored), or undefined. */
function purgedLabelOf(stored: Record<string, AttributeValue> | undefined): CascadeParent | undefined {
  const orgId = numberOf(stored?.org_id);
  const projectId = numberOf(stored?.project_id);
  const labelId = numberOf(stored?.id);
  if (orgId === undefined || projectId === undefined || labelId === undefined) return undefined;
  return { kind: 'label', orgId, projectId, labelId };
}

/** The issue whose trash item a REMOVE shows gone (`stored`: the issue as it was stored), or undefined. */
function purgedIssueOf(stored: Record<string, AttributeValue> | undefined): CascadeParent | undefined {
  const orgId = numberOf(stored?.org_id);
  const projectId = numberOf(stored?.project_id);
  const issueId = numberOf(stored?.id);
  if (orgId === undefined || projectId === undefined || issueId === undefined) return undefined;
  // Children it had at its delete may still name it (none can join it while it is in the trash).
  const number = Number(stored?.sub_issues_total?.N ?? 0) > 0 ? stored?.issue_number?.S : undefined;
  return { kind: 'issue', orgId, projectId, issueId, ...(number ? { number } : {}) };
}

/** The sprint or project whose trash item a REMOVE shows gone (`stored`: as it was stored), or undefined. */
function trashedContainerOf(
  kind: 'sprint' | 'project',
  stored: Record<string, AttributeValue> | undefined,
): CascadeParent | undefined {
  const orgId = numberOf(stored?.org_id);
  const id = numberOf(stored?.id);
  if (orgId === undefined || id === undefined) return undefined;
  if (kind === 'project') return { kind: 'project', orgId, projectId: id };
  const projectId = numberOf(stored?.project_id);
  return projectId === undefined ? undefined : { kind: 'sprint', orgId, projectId, sprintId: id };
}

/**
 * A comment whose attachments a stream record asks to bring to where it is now (lib/jobs/attachment-settling.ts:
 * `settleCommentAttachments`).
 */
export interface CommentFiles {
  orgId: number;
  projectId: number;
  issueId: number;
  commentId: number;
}

/**
 * The comment with attachments whose removal a REMOVE record shows (into the trash, or with its
 * issue), or whose trash item's removal (its restore, its purge or its expiry): their attachments
 * follow it into the trash, back, or away. Undefined for anything else, a comment that never had
 * attachments included.
 */
export function commentFilesOf(record: DynamoDBRecord): CommentFiles | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  const old = record.dynamodb?.OldImage;
  const comment = old?.type?.S === 'trash' && old.kind?.S === 'comment' ? old.stored?.M : old;
  if (comment?.type?.S !== 'comment' || comment.has_attachments?.BOOL !== true) return undefined;
  const orgId = numberOf(comment.org_id);
  const projectId = numberOf(comment.project_id);
  const issueId = numberOf(comment.issue_id);
  const commentId = numberOf(comment.id);
  if (orgId === undefined || projectId === undefined || issueId === undefined || commentId === undefined) return undefined;
  return { orgId, projectId, issueId, commentId };
}

/**
 * The attachment trashed on its own whose trash item a REMOVE record shows removed (its restore,
 * its purge or its expiry), with the time of the delete that put it there: purged or expired, it
 * goes with its file and its bytes (lib/jobs/attachment-settling.ts, `releaseTrashedAttachment`). Undefined for anything else.
 */
export function trashedAttachmentOf(
  record: DynamoDBRecord,
): { orgId: number; projectId: number; issueId: number; id: number; deletedAt: string } | undefined {
  const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
  if (old?.type?.S !== 'trash' || old.kind?.S !== 'attachment' || old.deleted_at?.S === undefined) return undefined;
  const a = old.stored?.M;
  const [orgId, projectId, issueId, id] = [a?.org_id, a?.project_id, a?.issue_id, a?.id].map(numberOf);
  if (orgId === undefined || projectId === undefined || issueId === undefined || id === undefined) return undefined;
  return { orgId, projectId, issueId, id, deletedAt: old.deleted_at.S };
}

/** Whether DynamoDB's TTL removed the record's item (not a request of the service). */
const removedByTtl = (record: DynamoDBRecord): boolean => {
  const who = record.userIdentity as { type?: string; principalId?: string } | undefined;
  return who?.type === 'Service' && who.principalId === 'dynamodb.amazonaws.com';
};

/** A pending attachment never completed that its TTL removed: its old image (its bytes come back, once). */
export function expiredAttachmentOf(record: DynamoDBRecord): Record<string, AttributeValue> | undefined {
  const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
  return old?.type?.S === 'attachment' && removedByTtl(record) ? old : undefined;
}

/** The object key of the attachment a REMOVE record shows gone, however it went. */
export function removedAttachmentFileOf(record: DynamoDBRecord): string | undefined {
  const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
  return old?.type?.S === 'attachment' ? old.object_key?.S : undefined;
}

/** A sprint or project a REMOVE record shows deleted (into the trash), with its item as it was. */
export function deletedContainerOf(record: DynamoDBRecord): { container: Container; image: Record<string, unknown> } | undefined {
  const old = record.eventName === 'REMOVE' ? record.dynamodb?.OldImage : undefined;
  const type = old?.type?.S;
  if (type !== 'sprint' && type !== 'project') return undefined;
  const parent = cascadeParentOf(record);
  if (parent?.kind !== 'sprint' && parent?.kind !== 'project') return undefined;
  return { container: parent, image: unmarshall(old as Record<string, SdkAttributeValue>) };
}

/**
 * A cascade written down to be continued (`PendingCascade`): its parent, where its paging stopped
 * and how it has fared. Its writes are stream records that bring the consumer back while it is
 * `pending` (lib/db/core/table.ts: the cascade consumer's filter).
 */
export const cascadeItem = itemKind({
  type: 'cascade',
  key: keys.pendingCascade.placement,
  about: 'a cascade (of a project, sprint, issue, label, state or custom field) still to finish',
  attributes: {
    /** Anything but `failed` reads `pending`: it is continued. */
    status: {
      stored: 'status',
      read: (v: unknown): PendingCascade['status'] => (v === 'failed' ? 'failed' : 'pending'),
      write: (v: PendingCascade['status']) => v,
    },
    /** Its parent's kind; one the cascade does not know makes the record none (`pendingCascadeFromItem`). */
    kind: { stored: 'kind', read: (v: unknown) => (typeof v === 'string' ? v : ''), write: (v: string) => v },
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    /** The id of its parent (the project's, for a project's). */
    parentId: attribute.number('parent_id'),
    /** A parent issue's number, under which its children's index lives. */
    number: attribute.laterString('number'),
    after: attribute.whole<Record<string, unknown>, 'after'>('after'),
    attempts: attribute.counter('attempts'),
    error: attribute.laterString('error'),
    updatedAt: attribute.string('updated_at'),
  },
});

/** A pending cascade from its stored item (plain attributes). */
export function pendingCascadeFromItem(item: Record<string, unknown>): PendingCascade | undefined {
  if (item.type !== cascadeItem.type) return undefined;
  const c = cascadeItem.decode(item);
  const { orgId, projectId, parentId: id } = c;
  if (![orgId, projectId, id].every(Number.isSafeInteger)) return undefined;
  const parent: CascadeParent | undefined =
    c.kind === 'project'
      ? { kind: 'project', orgId, projectId }
      : c.kind === 'sprint'
        ? { kind: 'sprint', orgId, projectId, sprintId: id }
        : c.kind === 'issue'
          ? { kind: 'issue', orgId, projectId, issueId: id, ...(c.number === undefined ? {} : { number: c.number }) }
          : c.kind === 'label'
            ? { kind: 'label', orgId, projectId, labelId: id }
            : c.kind === 'state'
              ? { kind: 'state', orgId, projectId, stateId: id }
              : c.kind === 'field'
                ? { kind: 'field', orgId, projectId, fieldId: id }
                : undefined;
  if (!parent) return undefined;
  return { parent, after: c.after, attempts: c.attempts, status: c.status, error: c.error };
}

/** The stored attributes of a pending cascade, but its key (what `pendingCascadeFromItem` reads back). */
export function pendingCascadeItem(pending: PendingCascade, now = new Date()): Record<string, unknown> {
  const { parent } = pending;
  return {
    type: cascadeItem.type,
    ...cascadeItem.encode({
      status: pending.status,
      kind: parent.kind,
      orgId: parent.orgId,
      projectId: parent.projectId,
      parentId: idOf(parent),
      number: parent.kind === 'issue' && parent.number ? parent.number : undefined,
      after: pending.after,
      attempts: pending.attempts,
      error: pending.error ? pending.error.slice(0, 1000) : undefined,
      updatedAt: now.toISOString(),
    }),
  };
}

/** The pending cascade a stream record (its write, still pending) asks to continue, if any. */
export function pendingCascadeOf(record: DynamoDBRecord): PendingCascade | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const image = record.dynamodb?.NewImage;
  if (!image || image.type?.S !== cascadeItem.type || image[cascadeItem.stored('status')]?.S !== 'pending') return undefined;
  return pendingCascadeFromItem(unmarshall(image as Record<string, SdkAttributeValue>));
}

/** What one stream record asks of the cascade: a pending cascade to continue, a parent to cascade, or nothing. */
export function recordAsks(record: DynamoDBRecord): RecordAsks {
  const pending = pendingCascadeOf(record);
  if (pending) return { pending };
  const parent = cascadeParentOf(record);
  return parent ? { parent } : undefined;
}

/** Sorts a batch of stream records into the work they ask for (lib/model/cascades.ts: `workOf`). */
export const cascadeWorkOf = (records: DynamoDBRecord[]): CascadeWork => workOf(records.map(recordAsks));

/** Adds what one item's keys (SK, LSK) say to what is known of its partition; other items say nothing. */
export function notePartitionItem(part: PartitionKeys, item: { SK: string; LSK?: string | undefined }): void {
  const m = /^(SPRINT|ISSUE)#(\d{10})(?:#C#\d{10})?$/.exec(item.SK);
  if (!m) return;
  const id = Number(m[2]);
  if (m[1] === 'SPRINT') part.sprints.add(id);
  else if (item.SK.includes('#C#')) part.issuesOfComments.add(id);
  else {
    part.issues.add(id);
    const inSprint = /^S#(\d{10})#/.exec(item.LSK ?? '');
    if (inSprint) part.sprintsOfIssues.add(Number(inSprint[1]));
  }
}

/** The whole item of a pending cascade: its key and `pendingCascadeItem`. */
export const pendingCascadeRecord = (pending: PendingCascade): Record<string, unknown> => ({
  ...keys.pendingCascade(pending.parent.kind, pending.parent.orgId, pending.parent.projectId, idOf(pending.parent)),
  ...pendingCascadeItem(pending),
});

/** Writes (or rewrites) a pending cascade; every write is a stream record that brings the consumer back. */
export async function savePendingCascade(pending: PendingCascade): Promise<void> {
  await db.send(new PutCommand({ TableName: tableName(), Item: pendingCascadeRecord(pending) }));
}

/** Removes a finished cascade from the pending list. */
export async function finishPendingCascade(parent: CascadeParent): Promise<void> {
  await db.send(
    new DeleteCommand({
      TableName: tableName(),
      Key: keys.pendingCascade(parent.kind, parent.orgId, parent.projectId, idOf(parent)),
    }),
  );
}

/** Every pending cascade (one Query of their partition; operators: `cascade:resume`, `cascade:sweep`). */
export async function listPendingCascades(): Promise<PendingCascade[]> {
  const found: PendingCascade[] = [];
  await queryPages(
    { KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pendingCascadesPk } },
    {},
    (items) => {
      for (const item of items) {
        const pending = pendingCascadeFromItem(item);
        if (pending) found.push(pending);
      }
    },
  );
  return found;
}

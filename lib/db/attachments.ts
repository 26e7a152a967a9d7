/**
 * Attachments' items (docs/attachments.md): one per file, under its issue (`keys.attachment`),
 * `pending` until its file is checked, then `ready`. The organisation's `attachment_bytes` and the
 * issue's `attachments_count` move in the same transaction as the item, so the limits hold under
 * any concurrency and the counts never drift (the cascade takes a deleted issue's attachments off
 * the organisation's count the same way: lib/db/cascade.ts).
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { attachmentCounts, counterDifferences, type AttachmentCounters, type CountedAttachment } from '../model/attachments.ts';
import { ATTACHMENT_LIMITS, type AttachmentStatus } from '../vocabulary/attachments.ts';
import { db, tableName } from './client.ts';
import { deletionMarker } from './deletions.ts';
import { commentPointerItem } from './comment-pointers.ts';
import { commentItem } from './comments.ts';
import { attribute, itemKind, type Fields } from './item.ts';
import { keys, orgPk, parseProjectPk, projectPk, skPrefixes, type Key } from './keys.ts';
import { scanPages } from './query.ts';
import { tableDefinition } from './table.ts';
import { organisationCounter, organisationItem } from './organisation.ts';
import type { AttachmentRefusal } from './refusals.ts';
import { addTo, existsCheck, getItem, isRefused, itemExists, transact, type GuardedItem } from './transactions.ts';

export const attachmentItem = itemKind({
  type: 'attachment',
  key: { PK: 'ORG#o#P#p', SK: 'ISSUE#i#F#f' },
  about: 'attachment f of issue i (or of its comment): its file in S3',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    commentId: attribute.nullableNumber('comment_id'),
    name: attribute.string('name'),
    contentType: attribute.string('content_type'),
    size: attribute.number('size'),
    sha256: attribute.nullableString('sha256'),
    status: attribute.oneOf<AttachmentStatus>('status'),
    objectKey: attribute.string('object_key'),
    uploaderId: attribute.number('uploader_id'),
    uploaderName: attribute.string('uploader_name'),
    createdAt: attribute.string('created_at'),
  },
});
export type StoredAttachment = Fields<typeof attachmentItem.attributes>;

/** The organisation's counter of attachment bytes (on its organisation item). */
export const ORGANISATION_BYTES = organisationCounter.attachmentBytes;
/** The issue's counter of attachments (its comments' included). */
export const ISSUE_FILES = 'attachments_count';

export const attachmentRefusals = {
  project: 'project',
  issue: 'issue',
  comment: 'comment',
  attachment: 'attachment',
  filesLimit: 'files_limit',
  bytesLimit: 'bytes_limit',
  notPending: 'not_pending',
} as const satisfies Record<string, AttachmentRefusal>;

/**
 * Writes a pending attachment in one transaction with its place in the limits: the project must
 * exist; the issue must exist and hold fewer than `maxFiles`; its comment, if any, must exist; and
 * the organisation's bytes plus this file's must stay within `maxBytes`.
 */
export async function insertAttachment(
  attachment: StoredAttachment,
  limits: { maxFiles: number; maxBytes: number },
  /** When it was declared, for its expiry: its `created_at`, or now for an export's attachment restored with its old time. */
  pendingSince: string = attachment.createdAt,
): Promise<void> {
  const { orgId, projectId, issueId, commentId, size } = attachment;
  await transact([
    existsCheck(keys.project(orgId, projectId), attachmentRefusals.project),
    addTo(keys.issue(orgId, projectId, issueId), ISSUE_FILES, 1, attachmentRefusals.issue, limits.maxFiles),
    ...(commentId === null ? [] : commentMarks(orgId, projectId, issueId, commentId)),
    // `counter < max - size + 1`: the bytes after this file are at most `maxBytes`.
    addTo(keys.org(orgId), ORGANISATION_BYTES, size, attachmentRefusals.bytesLimit, limits.maxBytes - size + 1),
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.attachment(orgId, projectId, issueId, attachment.id),
            type: attachmentItem.type,
            ...attachmentItem.encode(attachment),
            // A pending attachment never completed expires (`markReady` takes this off).
            [tableDefinition.ttlAttribute]: epochSeconds(pendingSince) + ATTACHMENT_LIMITS.pendingSeconds,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
  ]);
}

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * A comment with attachments says so (`has_attachments`), and so does its pointer (both move to
 * the same next version, as every write of a comment moves them): the comment's removal then
 * reaches the stream consumer, which removes its attachments (`releaseCommentAttachments`).
 */
function commentMarks(orgId: number, projectId: number, issueId: number, commentId: number): GuardedItem[] {
  const marked = [
    { Key: keys.comment(orgId, projectId, issueId, commentId), mark: commentItem.stored('hasAttachments') },
    { Key: keys.commentPointer(orgId, commentId), mark: commentPointerItem.stored('hasAttachments') },
  ];
  return marked.map(({ Key, mark }) => ({
    item: {
      Update: {
        TableName: tableName(),
        Key,
        UpdateExpression: 'SET #mark = :yes',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: { '#mark': mark },
        ExpressionAttributeValues: { ':yes': true },
      },
    },
    reason: attachmentRefusals.comment,
  }));
}

/**
 * Removes the attachments of a deleted comment, each in a transaction with its counts (the
 * issue's only while the issue is there); one already removed is left alone. Returns how many.
 */
export async function releaseCommentAttachments(orgId: number, projectId: number, issueId: number, commentId: number) {
  const found = (await listAttachments(orgId, projectId, issueId)).filter((a) => a.commentId === commentId);
  for (const a of found) {
    try {
      await transact(attachmentRemoval(a, true));
    } catch (err) {
      if (!isRefused(err, attachmentRefusals.issue, attachmentRefusals.attachment)) throw err;
      if (isRefused(err, attachmentRefusals.issue)) await transact(attachmentRemoval(a, false)).catch(ignoreGone);
    }
  }
  return found.length;
}

const ignoreGone = (err: unknown) => {
  if (!isRefused(err, attachmentRefusals.attachment)) throw err;
};

/** One attachment of an issue, read consistently; undefined when there is none. */
export async function getAttachment(orgId: number, projectId: number, issueId: number, attachmentId: number) {
  const item = await getItem(keys.attachment(orgId, projectId, issueId, attachmentId));
  return item && attachmentItem.decode(item);
}

/** Every attachment of an issue (its comments' included), oldest first: one consistent Query (paged past 1 MB). */
export async function listAttachments(orgId: number, projectId: number, issueId: number): Promise<StoredAttachment[]> {
  const found: StoredAttachment[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.issueAttachments(issueId) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    found.push(...(out.Items ?? []).map((item) => attachmentItem.decode(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return found;
}

/** Marks a pending attachment ready (refused when it is gone, or no longer pending). */
export async function markReady(a: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId' | 'id'>): Promise<void> {
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.attachment(a.orgId, a.projectId, a.issueId, a.id),
          // `updated_at` (and `updated_by`, stamped): when and by whom it was added (`attachment.added`).
          UpdateExpression: 'SET #status = :ready, updated_at = :now REMOVE #expires',
          ConditionExpression: 'attribute_exists(PK) AND #status = :pending',
          ExpressionAttributeNames: { '#status': 'status', '#expires': tableDefinition.ttlAttribute },
          ExpressionAttributeValues: { ':ready': 'ready', ':pending': 'pending', ':now': new Date().toISOString() },
        },
      },
      reason: attachmentRefusals.notPending,
    },
  ]);
}

/**
 * The writes that remove an attachment and give back its place in the limits: the item (which
 * must be there), the organisation's bytes and, unless the issue goes too, the issue's count. The
 * object goes when the stream shows the item's removal (lib/db/cascade.ts).
 */
export function attachmentRemoval(
  a: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId' | 'id' | 'size'>,
  withIssueCount: boolean,
): GuardedItem[] {
  return [
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.attachment(a.orgId, a.projectId, a.issueId, a.id),
          ConditionExpression: 'attribute_exists(PK)',
        },
      },
      reason: attachmentRefusals.attachment,
    },
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.org(a.orgId),
          UpdateExpression: `ADD ${ORGANISATION_BYTES} :minus`,
          ExpressionAttributeValues: { ':minus': -a.size },
        },
      },
    },
    ...(withIssueCount
      ? [
          {
            item: {
              Update: {
                TableName: tableName(),
                Key: keys.issue(a.orgId, a.projectId, a.issueId),
                UpdateExpression: `ADD ${ISSUE_FILES} :minus`,
                ConditionExpression: 'attribute_exists(PK)',
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
            reason: attachmentRefusals.issue,
            // `If-Match` on an attachment's delete names its issue's ETag (the issue shows its count).
            resource: true,
          },
        ]
      : []),
  ];
}

/** Deletes an attachment with its counts and its delete's marker (who removed it: `attachment.removed`), in one transaction. */
export async function removeAttachment(a: StoredAttachment): Promise<void> {
  await transact([...attachmentRemoval(a, true), ...deletionMarker(keys.attachment(a.orgId, a.projectId, a.issueId, a.id))]);
}

/** The organisation's attachment bytes (its counter), read consistently. */
export async function organisationBytes(orgId: number): Promise<number> {
  const item = await getItem(keys.org(orgId), ORGANISATION_BYTES);
  return organisationItem.field(item ?? {}, 'attachmentBytes');
}

/** Whether the issue still exists (one consistent GetItem): what a refused count on it means. */
export const issueExists = (orgId: number, projectId: number, issueId: number) =>
  itemExists(keys.issue(orgId, projectId, issueId));

/**
 * The mark that an expired attachment's place in the limits was given back (`releaseExpiredAttachment`),
 * declared once: kept longer than a stream keeps its records, so that a replay gives it back once.
 */
export const attachmentExpiredItem = itemKind({
  type: 'attachment_expired',
  key: { PK: 'ORG#o', SK: 'ATTACHMENTEXPIRED#f' },
  about: "expired attachment f's bytes given back, once (TTL `expires_at`)",
  attributes: {
    expiresAt: attribute.expiry(),
  },
});

/** A stream record's image of a removed item (DynamoDB's attribute values). */
type Image = Record<string, { S?: string; N?: string } | undefined>;

/**
 * Gives back the place in the limits of an attachment its TTL removed (a pending one never
 * completed: `image` is the stream's old image): the organisation's bytes and, while the issue is
 * there, the issue's count, in one transaction with a marker (`keys.attachmentExpired`) whose
 * absence it requires, so that a replayed stream record gives them back once. Returns whether it did.
 */
export async function releaseExpiredAttachment(image: Image, now = new Date()): Promise<boolean> {
  const project = parseProjectPk(image.PK?.S ?? '');
  if (!project) return false;
  const a = {
    ...project,
    issueId: Number(image.issue_id?.N),
    id: Number(image.id?.N),
    size: Number(image.size?.N ?? 0),
  };
  const marker: GuardedItem = {
    item: {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.attachmentExpired(a.orgId, a.id),
          type: attachmentExpiredItem.type,
          // Longer than a stream keeps its records (24 hours).
          ...attachmentExpiredItem.encode({ expiresAt: Math.floor(now.getTime() / 1000) + 2 * 86_400 }),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    reason: attachmentRefusals.attachment,
  };
  // The removal's writes but the item's delete (the TTL did that).
  const counts = (withIssueCount: boolean) => [marker, ...attachmentRemoval(a, withIssueCount).slice(1)];
  try {
    await transact(counts(true));
  } catch (err) {
    if (isRefused(err, attachmentRefusals.attachment)) return false;
    if (!isRefused(err, attachmentRefusals.issue)) throw err;
    try {
      await transact(counts(false));
    } catch (again) {
      if (isRefused(again, attachmentRefusals.attachment)) return false;
      throw again;
    }
  }
  return true;
}

/** The stored attachment counters of the table (or one organisation's part of it) and the attachments they count: a Scan, operators and tests only. */
export async function readAttachmentCounters(
  orgId?: number,
): Promise<{ stored: AttachmentCounters; rebuilt: AttachmentCounters }> {
  const stored: AttachmentCounters = { organisationBytes: new Map(), issueFiles: new Map() };
  const attachments: CountedAttachment[] = [];
  await scanPages(
    {
      FilterExpression: `#type IN (:org, :issue, :attachment)${orgId === undefined ? '' : ' AND begins_with(PK, :pk)'}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':org': organisationItem.type,
        ':issue': 'issue',
        ':attachment': 'attachment',
        ...(orgId === undefined ? {} : { ':pk': orgPk(orgId) }),
      },
    },
    (items) => {
      for (const item of items) {
        if (item.type === organisationItem.type) {
          stored.organisationBytes.set(
            Number(String(item.PK).slice('ORG#'.length)),
            organisationItem.field(item, 'attachmentBytes'),
          );
          continue;
        }
        const project = parseProjectPk(String(item.PK));
        if (!project) continue;
        if (item.type === 'issue') {
          stored.issueFiles.set(`${project.orgId}/${project.projectId}/${String(item.id)}`, Number(item[ISSUE_FILES] ?? 0));
        } else {
          attachments.push({ ...project, issueId: Number(item.issue_id), size: Number(item.size) });
        }
      }
    },
  );
  return { stored, rebuilt: attachmentCounts(attachments, stored) };
}

/** Every attachment counter that differs from what its attachments count (see `counterDifferences`). */
export async function attachmentCounterDifferences(orgId?: number): Promise<string[]> {
  const { stored, rebuilt } = await readAttachmentCounters(orgId);
  return counterDifferences(stored, rebuilt);
}

/**
 * Sets every attachment counter that differs to what its attachments count (part of
 * `issues:reindex`, lib/db/reindex.ts: with no writes running). Returns how many it set.
 */
export async function rebuildAttachmentCounters(orgId?: number): Promise<number> {
  const { stored, rebuilt } = await readAttachmentCounters(orgId);
  let set = 0;
  const write = async (Key: Key, counter: string, value: number) => {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key,
        UpdateExpression: `SET ${counter} = :n`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':n': value },
      }),
    );
    set++;
  };
  for (const [org, bytes] of rebuilt.organisationBytes) {
    if (stored.organisationBytes.get(org) !== bytes) await write(keys.org(org), ORGANISATION_BYTES, bytes);
  }
  for (const [issue, files] of rebuilt.issueFiles) {
    if (stored.issueFiles.get(issue) === files) continue;
    const [org, project, id] = issue.split('/').map(Number) as [number, number, number];
    await write(keys.issue(org, project, id), ISSUE_FILES, files);
  }
  return set;
}

/**
 * An attachment as the REST API shows it, from a stream image, without a download URL (an event
 * outlives any URL: GET the attachment for a fresh one); undefined for an image that is no
 * attachment a client declared.
 */
export function attachmentOfImage(img: Record<string, unknown>) {
  if (typeof img.issue_id !== 'number' || typeof img.object_key !== 'string') return undefined;
  return attachmentAnswer(attachmentItem.decode(img));
}

/** An attachment as the REST API shows it, with the download URL given (a ready one's, signed per answer) or none. */
export function attachmentAnswer(a: StoredAttachment, download?: { url: string; expiresAt: string }) {
  return {
    id: a.id,
    issue_id: a.issueId,
    comment_id: a.commentId,
    name: a.name,
    content_type: a.contentType,
    size: a.size,
    sha256: a.sha256,
    status: a.status,
    uploader_id: a.uploaderId,
    uploader_name: a.uploaderName,
    created_at: a.createdAt,
    download_url: download?.url ?? null,
    download_expires_at: download?.expiresAt ?? null,
  };
}

/**
 * Attachments' items (docs/attachments.md): one per file, under its issue (`keys.attachment`),
 * `pending` until its file is checked, then `ready`. The organisation's `attachment_bytes` and the
 * issue's `attachments_count` move in the same transaction as the item, so the limits hold under
 * any concurrency and the counts never drift (the cascade takes a deleted issue's attachments off
 * the organisation's count the same way: lib/jobs/cascade.ts). Here are single reads and writes;
 * the jobs that loop, retry and decide over them are lib/jobs/attachment-*.ts.
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailed } from '../core/errors.ts';
import type { PendingCount } from '../../model/attachments.ts';
import { ATTACHMENT_LIMITS, type AttachmentStatus } from '../../vocabulary/attachments.ts';
import { db, tableName } from '../core/client.ts';
import { deletionMarker } from '../core/deletions.ts';
import { commentPointerItem } from '../comments/comment-pointers.ts';
import { commentItem, issueIn } from '../comments/comments.ts';
import { issueItem } from '../issues/issue-item.ts';
import { trashedCommentKey, trashedIssueKey, trashItem, trashPut, trashRemovalOf, whereIs } from '../core/trash.ts';
import { alsoIf, attribute, itemKind, type Change, type Fields, type UpdateExpressions } from '../core/item.ts';
import { keys, orgPk, parseProjectPk, projectPk, skPrefixes, type Key } from '../core/keys.ts';
import { ofTypes, partitionPages, PARTITIONS_AT_ONCE, queryPages, scanPages } from '../core/query.ts';
import { sequencesItem } from '../core/sequences.ts';
import { forEachLimited } from '../../model/limited.ts';
import { tableDefinition } from '../core/table.ts';
import { organisationCounter, organisationItem, organisationOf, trashRetentionOf } from '../organisation/organisation.ts';
import type { AttachmentRefusal } from '../core/refusals.ts';
import {
  addTo,
  batchGet,
  existsCheck,
  getItem,
  isRefused,
  itemExists,
  putNew,
  transact,
  type GuardedItem,
} from '../core/transactions.ts';

export const attachmentItem = itemKind({
  type: 'attachment',
  key: keys.attachment.placement,
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
    /**
     * Where its upload form posts (lib/aws/objects.ts, `stagingObjectKey`): `complete` copies the file
     * from there to `objectKey`. None on one declared before forms posted there, or restored by an import.
     */
    stagingKey: attribute.optionalString('staging_key'),
    /**
     * Its declaration took a place among the pending attachments of its organisation and uploader
     * (`pendingReservation`), which its completion, delete or expiry gives back; one declared
     * before those caps existed took none, and gives none back.
     */
    reserved: attribute.flag('pending_reserved'),
    uploaderId: attribute.number('uploader_id'),
    uploaderName: attribute.string('uploader_name'),
    createdAt: attribute.string('created_at'),
    /**
     * Its comment is in the trash, and its issue's `attachments_count` was given its place back
     * (`settleCommentAttachments`, lib/jobs/attachment-settling.ts): kept, whole, for the comment's restore, which counts it again.
     */
    inTrash: attribute.flag('in_trash'),
    /**
     * Deleted on its own into the trash (docs/trash.md), at this time (its trash item's
     * `deleted_at`), else null: kept whole, file and bytes, in no answer; marked `in_trash` too
     * (not counted among its issue's files) until its restore or its purge.
     */
    trashedAt: attribute.optionalString('trashed_at'),
    /** The sprint its issue was in at that delete (null: the backlog): where its restore checks it is. */
    trashedInSprint: attribute.nullableNumber('trashed_sprint_id'),
  },
});
export type StoredAttachment = Fields<typeof attachmentItem.attributes>;

/**
 * The pending uploads of one account (attachments it declared, not yet completed): their count and
 * bytes, moved in the same transaction as each declaration, its completion, its delete or expiry.
 */
export const pendingUploadsItem = itemKind({
  type: 'pending_uploads',
  key: keys.pendingUploads.placement,
  about: "account a's pending uploads: their count and bytes, within its cap",
  attributes: {
    files: attribute.counter('pending_files'),
    bytes: attribute.counter('pending_bytes'),
  },
});

/** The caps of pending attachments: a count and bytes, for an account and for its organisation. */
export interface PendingCaps {
  account: { files: number; bytes: number };
  organisation: { files: number; bytes: number };
}

/** The organisation's counter of attachment bytes (on its organisation item). */
export const ORGANISATION_BYTES = organisationCounter.attachmentBytes;
/** The issue's counter of attachments (its comments' included). */
export const ISSUE_FILES = 'attachments_count';

export const attachmentRefusals = {
  project: 'project',
  sprint: 'sprint',
  issue: 'issue',
  comment: 'comment',
  attachment: 'attachment',
  notAuthor: 'not_author',
  filesLimit: 'files_limit',
  bytesLimit: 'bytes_limit',
  notPending: 'not_pending',
  pendingLimit: 'pending_limit',
} as const satisfies Record<string, AttachmentRefusal>;

/**
 * Writes a pending attachment in one transaction with its place in the limits: the project must
 * exist; the issue must exist and hold fewer than `maxFiles`; its comment, if any, must exist; the
 * organisation's bytes plus this file's must stay within `maxBytes`; and the pending attachments
 * of its uploader and of its organisation (a count and bytes) within `pending` (`bytes_limit` names
 * a refusal on the organisation's item, either limit; `pending_limit` the uploader's cap).
 */
export async function insertAttachment(
  attachment: StoredAttachment,
  limits: { maxFiles: number; maxBytes: number; pending: PendingCaps },
  /** When it was declared, for its expiry: its `created_at`, or now for an export's attachment restored with its old time. */
  pendingSince: string = attachment.createdAt,
): Promise<void> {
  const { orgId, projectId, issueId, commentId } = attachment;
  await transact([
    existsCheck(keys.project(orgId, projectId), attachmentRefusals.project),
    addTo(keys.issue(orgId, projectId, issueId), ISSUE_FILES, 1, attachmentRefusals.issue, limits.maxFiles),
    ...(commentId === null ? [] : commentMarks(orgId, projectId, issueId, commentId)),
    ...pendingReservation(attachment, limits.maxBytes, limits.pending),
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.attachment(orgId, projectId, issueId, attachment.id),
            type: attachmentItem.type,
            ...attachmentItem.encode({ ...attachment, reserved: true }),
            // A pending attachment never completed expires (`markReady` takes this off).
            [tableDefinition.ttlAttribute]: epochSeconds(pendingSince) + ATTACHMENT_LIMITS.pendingSeconds,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
  ]);
}

/** `(counter absent OR counter < :name)`: a count that `:name` bounds. */
const below = (counter: string, bound: string) => `(attribute_not_exists(${counter}) OR ${counter} < ${bound})`;

/**
 * The organisation's bytes and pending counts, and the uploader's pending counts, taken by a new
 * pending attachment, each within its bound: `counter < max - size + 1` keeps the bytes after
 * this file at most `max`. The uploader's item is made by its first declaration.
 */
function pendingReservation(a: StoredAttachment, maxBytes: number, caps: PendingCaps): GuardedItem[] {
  const org = organisationCounter;
  const mine = { files: pendingUploadsItem.stored('files'), bytes: pendingUploadsItem.stored('bytes') };
  return [
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.org(a.orgId),
          ...alsoIf(
            organisationItem.update({
              add: { attachmentBytes: a.size, pendingAttachments: 1, pendingAttachmentBytes: a.size },
              if: { exists: true },
            }),
            {
              ConditionExpression: [
                below(org.attachmentBytes, ':maxBytes'),
                below(org.pendingAttachments, ':maxFiles'),
                below(org.pendingAttachmentBytes, ':maxPending'),
              ].join(' AND '),
              ExpressionAttributeValues: {
                ':maxBytes': maxBytes - a.size + 1,
                ':maxFiles': caps.organisation.files,
                ':maxPending': caps.organisation.bytes - a.size + 1,
              },
            },
          ),
        },
      },
      reason: attachmentRefusals.bytesLimit,
    },
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.pendingUploads(a.orgId, a.uploaderId),
          UpdateExpression: `SET #type = :type ADD ${mine.files} :one, ${mine.bytes} :size`,
          ConditionExpression: `${below(mine.files, ':maxFiles')} AND ${below(mine.bytes, ':maxBytes')}`,
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: {
            ':type': pendingUploadsItem.type,
            ':size': a.size,
            ':one': 1,
            ':maxFiles': caps.account.files,
            ':maxBytes': caps.account.bytes - a.size + 1,
          },
        },
      },
      reason: attachmentRefusals.pendingLimit,
    },
  ];
}

/** What gives back one pending attachment's place among its organisation's (added to its counts). */
const organisationPendingRelease = (size: number) => ({ pendingAttachments: -1, pendingAttachmentBytes: -size });

/** The reservation of a pending attachment given back: its organisation's and its uploader's pending counts. */
function pendingRelease(a: Pick<StoredAttachment, 'orgId' | 'uploaderId' | 'size'>): GuardedItem[] {
  const organisation: GuardedItem = organisationItem.updateAt(keys.org(a.orgId), { add: organisationPendingRelease(a.size) });
  return [organisation, uploaderRelease(a)];
}

/** The uploader's pending counts given back by one pending attachment. */
function uploaderRelease(a: Pick<StoredAttachment, 'orgId' | 'uploaderId' | 'size'>): GuardedItem {
  return pendingUploadsItem.updateAt(keys.pendingUploads(a.orgId, a.uploaderId), { add: { files: -1, bytes: -a.size } });
}

/** The organisation's and its uploader's pending counts, read consistently: what a refused declaration ran into. */
export async function pendingCounts(orgId: number, accountId: number) {
  const [org, mine] = await batchGet([keys.org(orgId), keys.pendingUploads(orgId, accountId)]);
  return {
    organisation: {
      files: organisationItem.field(org ?? {}, 'pendingAttachments'),
      bytes: organisationItem.field(org ?? {}, 'pendingAttachmentBytes'),
      attachmentBytes: organisationItem.field(org ?? {}, 'attachmentBytes'),
    },
    account: { files: pendingUploadsItem.field(mine ?? {}, 'files'), bytes: pendingUploadsItem.field(mine ?? {}, 'bytes') },
  };
}

const epochSeconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/**
 * A comment with attachments says so (`has_attachments`), and so does its pointer (both move to
 * the same next version, as every write of a comment moves them): its delete then knows, without a
 * read, to keep them out of every answer while it is in the trash, and the removal of the comment
 * and of its trash item reach the stream consumer, which brings them to where the comment is
 * (`settleCommentAttachments`, lib/jobs/attachment-settling.ts).
 */
function commentMarks(orgId: number, projectId: number, issueId: number, commentId: number): GuardedItem[] {
  const marked = { set: { hasAttachments: true }, if: { exists: true } };
  const marks = [
    { Key: keys.comment(orgId, projectId, issueId, commentId), update: commentItem.update(marked) },
    { Key: keys.commentPointer(orgId, commentId), update: commentPointerItem.update(marked) },
  ];
  return marks.map(({ Key, update }) => ({
    item: { Update: { TableName: tableName(), Key, ...update } },
    reason: attachmentRefusals.comment,
  }));
}

/**
 * Where a comment is now (one TransactGetItems of the comment and its trash item): what
 * its attachments are brought to (lib/jobs/attachment-settling.ts).
 */
export const whereIsComment = (orgId: number, projectId: number, issueId: number, commentId: number) =>
  whereIs(keys.comment(orgId, projectId, issueId, commentId), trashedCommentKey(orgId, commentId));

/** An attachment of a comment. */
export type CommentAttachment = StoredAttachment & { commentId: number };

/** A comment's attachments (one consistent Query of its issue's). */
export const attachmentsOfComment = async (
  orgId: number,
  projectId: number,
  issueId: number,
  commentId: number,
): Promise<CommentAttachment[]> =>
  (await listAttachments(orgId, projectId, issueId)).filter((a): a is CommentAttachment => a.commentId === commentId);

/**
 * Marks an attachment in the trash with its comment (`to`: true) or back (false), only while it is
 * not yet, in one transaction with its issue's `attachments_count` (given back, or taken again) and
 * a check that the comment is still where the write was decided on (its trash item, or the comment
 * itself). Refused `attachment` when it is gone or already moved, `issue` when the issue is gone
 * (in the trash with its count, or for good), `comment` when the comment has moved since.
 */
export async function markCommentAttachment(a: CommentAttachment, to: boolean): Promise<void> {
  const { orgId, projectId, issueId, commentId } = a;
  const state = to ? trashedCommentKey(orgId, commentId) : keys.comment(orgId, projectId, issueId, commentId);
  await transact([
    attachmentItem.updateAt(
      keys.attachment(orgId, projectId, issueId, a.id),
      // One in the trash on its own keeps its mark until its own restore.
      to
        ? { set: { inTrash: true }, if: { exists: true, absent: ['inTrash'] } }
        : { set: { inTrash: false }, if: { exists: true, equals: { inTrash: true }, absent: ['trashedAt'] } },
      attachmentRefusals.attachment,
    ),
    addTo(keys.issue(orgId, projectId, issueId), ISSUE_FILES, to ? -1 : 1, attachmentRefusals.issue),
    existsCheck(state, attachmentRefusals.comment),
  ]);
}

/**
 * Removes an attachment with its counts, its issue's included (`attachmentRemoval`), in one
 * transaction. Refused `attachment` or `issue` as `attachmentRemoval` says.
 */
export async function removeCountedAttachment(a: Removed): Promise<void> {
  await transact(attachmentRemoval(a, true));
}

/**
 * Removes attachment `a` of an issue that is not there, with its counts but its issue's, in one
 * transaction. With `uncount`, its issue's image in the trash counts it no more either (refused
 * `trashed` when that image does not count it, or is gone); refused `attachment` when `a` is no
 * longer as read.
 */
export async function removeAttachmentBesideIssue(a: StoredAttachment, uncount: boolean): Promise<void> {
  const trashed: GuardedItem = {
    item: {
      Update: {
        TableName: tableName(),
        Key: trashedIssueKey(a.orgId, a.issueId),
        // A count inside the trash item's image: no declaration names it.
        UpdateExpression: 'SET #stored.#files = #stored.#files - :one',
        ConditionExpression: 'attribute_exists(#stored.#files) AND #stored.#files > :zero',
        ExpressionAttributeNames: { '#stored': trashItem.stored('stored'), '#files': ISSUE_FILES },
        ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
      },
    },
    reason: 'trashed',
  };
  await transact([...attachmentRemoval(a, false), ...(uncount ? [trashed] : [])]);
}

/**
 * Takes a comment off its issue's record of the comments whose files are in the trash
 * (`commentsWithFilesInTrash`); nothing when the issue is gone.
 */
export async function forgetCommentFilesInTrash(orgId: number, projectId: number, issueId: number, commentId: number) {
  await transact([
    issueItem.updateAt(
      keys.issue(orgId, projectId, issueId),
      { delete: { commentsWithFilesInTrash: new Set([commentId]) }, if: { exists: true } },
      attachmentRefusals.issue,
    ),
  ]).catch((err: unknown) => {
    if (!isRefused(err, attachmentRefusals.issue)) throw err;
  });
}

/** One attachment of an issue, read consistently; undefined when there is none. */
export async function getAttachment(orgId: number, projectId: number, issueId: number, attachmentId: number) {
  const item = await getItem(keys.attachment(orgId, projectId, issueId, attachmentId));
  return item && attachmentItem.decode(item);
}

/**
 * The comments of an issue whose attachments are in the trash with them
 * (`commentsWithFilesInTrash`), read consistently (none when the issue is gone): what a reader that met the attachments without
 * their issue hides them by (`isShown`, lib/model/attachments.ts).
 */
export async function commentsWithFilesInTrash(orgId: number, projectId: number, issueId: number): Promise<number[]> {
  const item = await getItem(keys.issue(orgId, projectId, issueId), issueItem.stored('commentsWithFilesInTrash'));
  return issueItem.field(item ?? {}, 'commentsWithFilesInTrash');
}

/** Every attachment of an issue (its comments' included), oldest first: one consistent Query (paged past 1 MB). */
export async function listAttachments(orgId: number, projectId: number, issueId: number): Promise<StoredAttachment[]> {
  const found: StoredAttachment[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': skPrefixes.issueAttachments(issueId) },
    },
    {},
    (items) => {
      found.push(...items.map((item) => attachmentItem.decode(item)));
    },
  );
  return found;
}

/**
 * Marks a pending attachment ready (refused when it is gone, or no longer pending), giving back its
 * reservation among the pending ones of its organisation and its uploader in the same transaction.
 */
export async function markReady(
  a: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId' | 'id' | 'size' | 'uploaderId' | 'reserved'>,
): Promise<void> {
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.attachment(a.orgId, a.projectId, a.issueId, a.id),
          // `updated_at` (and `updated_by`, stamped): when and by whom it was added (`attachment.added`).
          ...touched(
            { set: { status: 'ready' }, if: { exists: true, equals: { status: 'pending' } } },
            new Date().toISOString(),
            true,
          ),
        },
      },
      reason: attachmentRefusals.notPending,
    },
    ...(a.reserved ? pendingRelease(a) : []),
  ]);
}

/**
 * The writes that remove an attachment and give back its place in the limits: the item (which
 * must be there), the organisation's bytes (and, for a pending one, its reservation among the
 * pending attachments of its organisation and its uploader) and, unless the issue goes too, the
 * issue's count, while it counts it: one marked `in_trash` (its comment in the trash, or restored a
 * moment ago) gave its place back already, and its issue is only checked (the request's resource
 * for `If-Match`). The item's condition holds the mark and the status as read, so that a mark
 * moved meanwhile (`settleCommentAttachments`, lib/jobs), or a completion, is refused `attachment` rather
 * than counted twice or not at all: read it again. The object goes when the stream shows the
 * item's removal (lib/jobs/cascade.ts).
 */
export function attachmentRemoval(a: Removed, withIssueCount: boolean): GuardedItem[] {
  const asRead = [...(withIssueCount ? [a.inTrash ? '#mark = :yes' : 'attribute_not_exists(#mark)'] : []), '#status = :status'];
  // A pending one gives back its reservation too, in the same update of its organisation (one write per item in a transaction).
  const releases = a.status === 'pending' && a.reserved;
  return [
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: keys.attachment(a.orgId, a.projectId, a.issueId, a.id),
          ConditionExpression: ['attribute_exists(PK)', ...asRead].join(' AND '),
          ExpressionAttributeNames: {
            '#status': 'status',
            ...(withIssueCount ? { '#mark': attachmentItem.stored('inTrash') } : {}),
          },
          ExpressionAttributeValues: { ':status': a.status, ...(withIssueCount && a.inTrash ? { ':yes': true } : {}) },
        },
      },
      reason: attachmentRefusals.attachment,
    },
    organisationItem.updateAt(keys.org(a.orgId), {
      add: { attachmentBytes: -a.size, ...(releases ? organisationPendingRelease(a.size) : {}) },
    }),
    ...(releases ? [uploaderRelease(a)] : []),
    ...(withIssueCount ? [issuePlaceGivenBack(a)] : []),
  ];
}

/** What a removal needs of an attachment: where it is, its size, its status and uploader (a pending one's reservation), its mark. */
export type Removed = Pick<
  StoredAttachment,
  'orgId' | 'projectId' | 'issueId' | 'id' | 'size' | 'status' | 'uploaderId' | 'reserved'
> & {
  inTrash?: boolean;
};

/**
 * Its issue's `attachments_count` less one, while it counts `a`: one marked `in_trash` gave its
 * place back already, and its issue is only checked. Either way the request's resource: `If-Match`
 * on an attachment's delete names its issue's ETag (the issue shows its count).
 */
function issuePlaceGivenBack(a: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId'> & { inTrash?: boolean }): GuardedItem {
  const issueKey = keys.issue(a.orgId, a.projectId, a.issueId);
  if (a.inTrash) return { ...existsCheck(issueKey, attachmentRefusals.issue), resource: true };
  return { ...addTo(issueKey, ISSUE_FILES, -1, attachmentRefusals.issue), resource: true };
}

/**
 * Deletes an attachment for good with its counts and its delete's marker (who removed it:
 * `attachment.removed`), in one transaction, with `guard` (who may: `commentAuthorCheck`). A ready
 * one goes into the trash instead (`trashAttachment`).
 */
export async function removeAttachment(a: StoredAttachment, guard: GuardedItem[] = []): Promise<void> {
  await transact([
    ...attachmentRemoval(a, true),
    ...deletionMarker(keys.attachment(a.orgId, a.projectId, a.issueId, a.id)),
    ...guard,
  ]);
}

/** The attachment `id` of an issue and its organisation's trash retention (`trashRetentionOf`), in one consistent BatchGetItem. */
export async function readAttachmentToDelete(orgId: number, projectId: number, issueId: number, id: number) {
  const [item, org] = await batchGet([keys.attachment(orgId, projectId, issueId, id), keys.org(orgId)]);
  return { attachment: item && attachmentItem.decode(item), retentionDays: trashRetentionOf(organisationOf(org)) };
}

/**
 * That the comment of attachment `a` was written by `accountId` (refused `not_author` otherwise):
 * checked in the write that deletes the file, so that a comment's author may delete what others
 * added to it at no extra read.
 */
export function commentAuthorCheck(
  a: Pick<StoredAttachment, 'orgId' | 'projectId' | 'issueId'> & { commentId: number },
  accountId: number,
): GuardedItem {
  return {
    item: {
      ConditionCheck: {
        TableName: tableName(),
        Key: keys.comment(a.orgId, a.projectId, a.issueId, a.commentId),
        ConditionExpression: '#author = :me',
        ExpressionAttributeNames: { '#author': commentItem.stored('authorId') },
        ExpressionAttributeValues: { ':me': accountId },
      },
    },
    reason: attachmentRefusals.notAuthor,
  };
}

/**
 * An attachment's change as its declaration spells it, with `updated_at` set to `at` and, with
 * `unexpire`, its TTL removed: its declaration names neither.
 */
function touched(change: Change<typeof attachmentItem.attributes>, at: string, unexpire = false): UpdateExpressions {
  const spelled = attachmentItem.update(change);
  const clauses = spelled.UpdateExpression;
  const set = 'updated_at = :updatedAt';
  const withTime = clauses.startsWith('SET ') ? clauses.replace('SET ', `SET ${set}, `) : `SET ${set} ${clauses}`;
  const removal = /(^|\s)REMOVE\s/;
  const unexpired = removal.test(withTime) ? withTime.replace(removal, '$1REMOVE #expires, ') : `${withTime} REMOVE #expires`;
  return {
    ...spelled,
    UpdateExpression: unexpire ? unexpired : withTime,
    ExpressionAttributeNames: {
      ...spelled.ExpressionAttributeNames,
      ...(unexpire && { '#expires': tableDefinition.ttlAttribute }),
    },
    ExpressionAttributeValues: { ...spelled.ExpressionAttributeValues, ':updatedAt': at },
  };
}

/**
 * Moves a ready attachment into the organisation's trash (docs/trash.md), in one transaction: the
 * attachment marked trashed at the delete's time and `in_trash`, with the sprint its issue is in
 * (`sprintId`), on condition that it is still ready, not trashed, and counted as read; its place
 * in its issue's count given back (`issuePlaceGivenBack`); the trash item (the attachment whole);
 * and `guard` (who may). Its file and its bytes in the organisation's count stay until its purge.
 */
export async function trashAttachment(
  a: StoredAttachment,
  deletedBy: number,
  retentionDays: number,
  sprintId: number | null,
  guard: GuardedItem[],
): Promise<void> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const key = keys.attachment(a.orgId, a.projectId, a.issueId, a.id);
  const trashed = { ...a, inTrash: true, trashedAt: at, trashedInSprint: sprintId };
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: key,
          ...touched(
            {
              set: { inTrash: true, trashedAt: at, trashedInSprint: sprintId },
              // Still ready, not trashed, and counted as read (`in_trash` or not).
              if: a.inTrash
                ? { exists: true, equals: { status: 'ready', inTrash: true }, absent: ['trashedAt'] }
                : { exists: true, equals: { status: 'ready' }, absent: ['trashedAt', 'inTrash'] },
            },
            at,
          ),
        },
      },
      reason: attachmentRefusals.attachment,
    },
    issuePlaceGivenBack(a),
    trashPut(
      a.orgId,
      'attachment',
      { ...key, type: attachmentItem.type, ...attachmentItem.encode(trashed) },
      a.name,
      deletedBy,
      retentionDays,
      undefined,
      now,
    ),
    ...guard,
  ]);
}

/**
 * Brings a trashed attachment back (`a`: as its trash item holds it) in one transaction: its marks
 * taken off (on condition that it is still the one trashed at `deletedAt`), its place in its
 * issue's count taken again (on condition that the issue is there, in sprint `sprintId` or the
 * backlog when null, and holds fewer than `maxFiles`), checks that its project, that sprint and
 * its comment (if any) are there, and the trash item's delete. Refusals, in that order of checks:
 * `project`, `sprint`, `issue`, `comment`, `attachment` (gone with its comment or its issue),
 * `trashed` (restored or purged meanwhile).
 */
export async function restoreTrashedAttachment(
  a: StoredAttachment,
  deletedAt: string,
  sprintId: number | null,
  maxFiles: number,
): Promise<void> {
  const { orgId, projectId, issueId, commentId } = a;
  const inList = issueIn(sprintId, { ':one': 1, ':max': maxFiles });
  await transact([
    existsCheck(keys.project(orgId, projectId), attachmentRefusals.project),
    ...(sprintId === null ? [] : [existsCheck(keys.sprint(orgId, projectId, sprintId), attachmentRefusals.sprint)]),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, projectId, issueId),
          UpdateExpression: `ADD ${ISSUE_FILES} :one`,
          ...inList,
          ConditionExpression: `${inList.ConditionExpression} AND (attribute_not_exists(${ISSUE_FILES}) OR ${ISSUE_FILES} < :max)`,
        },
      },
      reason: attachmentRefusals.issue,
    },
    ...(commentId === null ? [] : [existsCheck(keys.comment(orgId, projectId, issueId, commentId), attachmentRefusals.comment)]),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.attachment(orgId, projectId, issueId, a.id),
          ...touched(
            { remove: ['inTrash', 'trashedAt', 'trashedInSprint'], if: { equals: { trashedAt: deletedAt } } },
            new Date().toISOString(),
          ),
        },
      },
      reason: attachmentRefusals.attachment,
    },
    ...trashRemovalOf(orgId, 'attachment', a.id, deletedAt, 'restored'),
  ]);
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
 * The mark that an expired attachment's place in the limits was given back (`giveBackExpiredAttachment`),
 * declared once: kept longer than a stream keeps its records, so that a replay gives it back once.
 */
export const attachmentExpiredItem = itemKind({
  type: 'attachment_expired',
  key: keys.attachmentExpired.placement,
  about: "expired attachment f's bytes given back, once (TTL `expires_at`)",
  attributes: {
    expiresAt: attribute.expiry(),
  },
});

/** A stream record's image of a removed item (DynamoDB's attribute values). */
export type Image = Record<string, { S?: string; N?: string; BOOL?: boolean } | undefined>;

/** The attachment a stream record's old image shows (one its TTL removed): what its removal gives back. Undefined for no attachment. */
export function expiredAttachmentOfImage(image: Image): Removed | undefined {
  const project = parseProjectPk(image.PK?.S ?? '');
  if (!project) return undefined;
  return {
    ...project,
    issueId: Number(image.issue_id?.N),
    id: Number(image.id?.N),
    size: Number(image.size?.N ?? 0),
    status: 'pending',
    uploaderId: Number(image.uploader_id?.N),
    reserved: image[attachmentItem.stored('reserved')]?.BOOL === true,
    // One in the trash with its comment gave its place on its issue back already.
    inTrash: image[attachmentItem.stored('inTrash')]?.BOOL === true,
  };
}

/**
 * Gives back the place in the limits of an attachment its TTL removed: the organisation's bytes
 * and, `withIssueCount`, the issue's count (the removal's writes but the item's delete), in one
 * transaction with a marker (`keys.attachmentExpired`) whose absence it requires, so that a
 * replayed stream record gives them back once. Refused `attachment` when the marker is there,
 * `issue` as `attachmentRemoval` says.
 */
export async function giveBackExpiredAttachment(a: Removed, withIssueCount: boolean, now: Date): Promise<void> {
  const marker = putNew(
    {
      ...keys.attachmentExpired(a.orgId, a.id),
      type: attachmentExpiredItem.type,
      // Longer than a stream keeps its records (24 hours).
      ...attachmentExpiredItem.encode({ expiresAt: Math.floor(now.getTime() / 1000) + 2 * 86_400 }),
    },
    attachmentRefusals.attachment,
  );
  await transact([marker, ...attachmentRemoval(a, withIssueCount).slice(1)]);
}

/** Where an attachment is stored: its item's key. */
export type AttachmentKey = Key;

/** An item the attachment counters are kept on or count, decoded (`readAttachmentParts`). */
export type AttachmentPart =
  | { kind: 'organisation'; orgId: number; bytes: number; pending: PendingCount }
  | { kind: 'uploads'; orgId: number; accountId: number; pending: PendingCount }
  | { kind: 'issue'; orgId: number; projectId: number; issueId: number; files: number }
  | { kind: 'attachment'; key: AttachmentKey; attachment: StoredAttachment; expiresAt: number | undefined };

/** One item of `readAttachmentParts` decoded; undefined for an item of no such kind. */
function attachmentPartOf(item: Record<string, unknown>): AttachmentPart | undefined {
  const orgId = Number(String(item.PK).slice('ORG#'.length));
  if (item.type === organisationItem.type) {
    const bytes = organisationItem.field(item, 'attachmentBytes');
    const files = organisationItem.field(item, 'pendingAttachments');
    return {
      kind: 'organisation',
      orgId,
      bytes,
      pending: { files, bytes: organisationItem.field(item, 'pendingAttachmentBytes') },
    };
  }
  if (item.type === pendingUploadsItem.type) {
    const { files, bytes } = pendingUploadsItem.decode(item);
    const accountId = Number(String(item.SK).slice('PENDINGUPLOADS#'.length));
    return { kind: 'uploads', orgId, accountId, pending: { files, bytes } };
  }
  const project = parseProjectPk(String(item.PK));
  if (!project) return undefined;
  if (item.type === issueItem.type)
    return { kind: 'issue', ...project, issueId: Number(item.id), files: Number(item[ISSUE_FILES] ?? 0) };
  if (item.type !== attachmentItem.type) return undefined;
  const expires = item[tableDefinition.ttlAttribute];
  return {
    kind: 'attachment',
    key: { PK: String(item.PK), SK: String(item.SK) },
    attachment: { ...attachmentItem.decode(item), ...project },
    expiresAt: expires === undefined || expires === null ? undefined : Number(expires),
  };
}

/**
 * The organisations, uploads, issues and attachments of the table, decoded, page by page. Operators
 * and tests only. The whole table is read with a Scan; one organisation with Queries
 * (`readOrganisationAttachments`).
 */
export async function readAttachmentParts(orgId: number | undefined, take: (parts: AttachmentPart[]) => void) {
  const decoded = (items: Record<string, unknown>[]) => take(items.flatMap((item) => attachmentPartOf(item) ?? []));
  const types = [organisationItem.type, pendingUploadsItem.type, issueItem.type, attachmentItem.type];
  if (orgId === undefined) await scanPages(ofTypes(types), decoded);
  else await readOrganisationAttachments(orgId, decoded);
}

/**
 * One organisation's part of what `readAttachmentParts` reads of the whole table: its item, its
 * accounts' pending uploads (one Query of its partition), and the issues and attachments of every
 * project it ever made (a Query of each project's partition). Project ids come from the
 * organisation's sequence (lib/db/core/sequences.ts), so 1 to its last covers every partition it
 * has, those of projects in the trash or still being emptied by a cascade included.
 */
async function readOrganisationAttachments(orgId: number, take: (items: Record<string, unknown>[]) => void) {
  const [[org, sequences]] = await Promise.all([
    batchGet([keys.org(orgId), keys.sequences(orgId)]),
    queryPages(
      {
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :pending)',
        ExpressionAttributeValues: { ':pk': orgPk(orgId), ':pending': 'PENDINGUPLOADS#' },
      },
      {},
      take,
    ),
  ]);
  if (org) take([org]);
  const last = sequences ? sequencesItem.field(sequences, 'project') : 0;
  const projects = Array.from({ length: last }, (_, i) => i + 1);
  await forEachLimited(projects, PARTITIONS_AT_ONCE, (projectId) =>
    partitionPages(projectPk(orgId, projectId), [issueItem.type, attachmentItem.type], take),
  );
}

/**
 * The keys of the table's pending attachments whose expiry (their TTL) is before `seconds` (Unix
 * time): one Scan. The local stack's stand-in for DynamoDB's TTL only (tools/local/expiry.ts).
 */
export async function scanExpiredPendingAttachments(seconds: number): Promise<AttachmentKey[]> {
  const found: AttachmentKey[] = [];
  await scanPages(
    {
      FilterExpression: '#type = :type AND #status = :pending AND #expires < :now',
      ProjectionExpression: 'PK, SK, #type, #status, #expires',
      ExpressionAttributeNames: { '#type': 'type', '#status': 'status', '#expires': tableDefinition.ttlAttribute },
      ExpressionAttributeValues: { ':type': attachmentItem.type, ':pending': 'pending', ':now': seconds },
    },
    (items) => {
      for (const item of items) found.push({ PK: String(item.PK), SK: String(item.SK) });
    },
  );
  return found;
}

/**
 * Removes a pending attachment whose expiry has passed at `now`, as DynamoDB's TTL would (the local
 * stack's stand-in): its old item, or undefined when it is no longer pending and expired.
 */
export async function expirePendingAttachment(key: Key, now: Date): Promise<Record<string, unknown> | undefined> {
  try {
    const out = await db.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: key,
        ConditionExpression: '#status = :pending AND #expires < :now',
        ExpressionAttributeNames: { '#status': 'status', '#expires': tableDefinition.ttlAttribute },
        ExpressionAttributeValues: { ':pending': 'pending', ':now': Math.floor(now.getTime() / 1000) },
        ReturnValues: 'ALL_OLD',
      }),
    );
    return out.Attributes;
  } catch (err) {
    if (isConditionFailed(err)) return undefined;
    throw err;
  }
}

/** Sets an organisation's attachment counters (one UpdateItem); its item must be there. */
export async function setOrganisationAttachmentCounters(
  orgId: number,
  counters: { attachmentBytes?: number; pendingAttachments?: number; pendingAttachmentBytes?: number },
): Promise<void> {
  await organisationItem.updateNow(keys.org(orgId), { set: counters, if: { exists: true } });
}

/** Sets an issue's count of attachments (one UpdateItem); the issue must be there. */
export async function setIssueAttachmentCount(orgId: number, projectId: number, issueId: number, files: number) {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.issue(orgId, projectId, issueId),
      // The issue's declaration does not name this counter.
      UpdateExpression: `SET ${ISSUE_FILES} = :n0`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':n0': files },
    }),
  );
}

/** Writes an account's pending uploads whole (one PutItem): made when it is missing. */
export async function putPendingUploads(orgId: number, accountId: number, count: PendingCount): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...keys.pendingUploads(orgId, accountId), type: pendingUploadsItem.type, ...pendingUploadsItem.encode(count) },
    }),
  );
}

/** The attachment a stream image holds, decoded; undefined for an image that is no attachment a client declared. */
export function declaredAttachmentOf(img: Record<string, unknown>): StoredAttachment | undefined {
  if (typeof img.issue_id !== 'number' || typeof img.object_key !== 'string') return undefined;
  return attachmentItem.decode(img);
}

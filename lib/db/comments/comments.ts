import { ancestryOf, pathAncestryOf, type Ancestry, type AncestorItems } from '../../model/comment-ancestry.ts';
import { issueItem } from '../issues/issue-item.ts';
import { commentPointerItem, pointerFromItem } from './comment-pointers.ts';
import {
  commentOnPointer,
  type CommentPointer,
  type CopyingCommentPointer,
  type FullCommentPointer,
} from '../../model/comment-pointers.ts';
import type { Comment } from '../../schemas/comments.ts';
import { tableName } from '../core/client.ts';
import { alsoIf, attribute, itemKind, type Condition, type Fields, type Guard, type Stored } from '../core/item.ts';
import { deletionMarker } from '../core/deletions.ts';
import { scanPages } from '../core/query.ts';
import { collections, keys, listKeys, orgPk, type Key } from '../core/keys.ts';
import { listPageWith, type Page, type PageRequest } from '../core/list.ts';
import {
  putNew,
  getItem,
  itemExists,
  batchGet,
  existsCheck,
  Refused,
  STALE,
  transact,
  type GuardedItem,
} from '../core/transactions.ts';
import { storedNumberIs, versionOf, VERSION_ATTRIBUTE, withVersion } from '../core/versions.ts';
import { ACTOR_ATTRIBUTE } from '../core/stamps.ts';
import { trashPut, trashRemovalOf } from '../core/trash.ts';
import { organisationOf, trashRetentionOf } from '../organisation/organisation.ts';
import { trashTitle } from '../../model/trash.ts';
import { issueCountChange, newCommentTimes, withFilesOf } from '../../model/comment-writes.ts';

/**
 * Why a comment write can be refused (`Refused.reason`): on create, the project, the sprint of the
 * path or the issue (in that list) is gone; on update and delete, the comment is no longer
 * reachable (it, its issue or one of their ancestors went away since it was read).
 */
export const commentRefusals = { project: 'project', sprint: 'sprint', issue: 'issue', comment: 'comment' } as const;

/** Where a comment lives, as the list/create path names it. */
export interface IssueRef {
  projectId: number;
  /** The sprint the path names, or null for the project backlog. */
  sprintId: number | null;
  issueId: number;
}

export const commentItem = itemKind({
  type: 'comment',
  key: { ...keys.comment.placement, LSK: listKeys.comment.placement },
  about: 'comment',
  attributes: {
    id: attribute.number('id'),
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    /**
     * The issue's sprint when the comment was last written (created, edited): what the change feed
     * reports with the comment's events (lib/feed/events.ts). A move of the issue leaves it behind.
     */
    sprintId: attribute.nullableNumber('sprint_id'),
    issueId: attribute.number('issue_id'),
    body: attribute.string('body'),
    authorId: attribute.number('author_id'),
    /** Written with the comment (no route renames an account); none on a comment from before: empty. */
    authorName: { stored: 'author_name' as const, read: (v: unknown) => String(v ?? ''), write: (v: string) => v },
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
    /**
     * When the comment last came back from the trash (lib/db/core/trash.ts), absent before: its restore's
     * write is no `comment.created` (the trash item's removal is its `comment.restored`).
     */
    restoredAt: attribute.laterString('restored_at'),
    /** Set once an attachment is added to it (lib/db/attachments/attachments.ts): its removal releases its attachments. */
    hasAttachments: attribute.flag('has_attachments'),
  },
});

/** A stored comment as read whole, before it is decoded (`commentItem`'s attributes under their stored names, with its key). */
export type CommentItem = Stored<typeof commentItem.attributes>;

export const toComment = (record: object): Comment => {
  const c = commentItem.decode(record);
  return withVersion(
    {
      id: c.id,
      body: c.body,
      issue_id: c.issueId,
      author_id: c.authorId,
      author_name: c.authorName,
      created_at: c.createdAt,
      updated_at: c.updatedAt,
    },
    record,
  );
};

export type { Ancestry };

/** What the rules of lib/model/comment-ancestry.ts read of a comment's ancestors, from the items found (undefined: absent). */
const ancestors = (project: object | undefined, sprint: object | undefined, issue: object | undefined): AncestorItems => ({
  project: project !== undefined,
  sprint: sprint !== undefined,
  issue: issue && { sprintId: issueItem.field(issue, 'sprintId'), commentsCount: issueItem.field(issue, 'commentsCount') },
});

/** The keys of a comment path's project, sprint (if any) and issue, in that order. */
const pathKeys = (orgId: number, ref: IssueRef): Key[] => [
  keys.project(orgId, ref.projectId),
  ...(ref.sprintId === null ? [] : [keys.sprint(orgId, ref.projectId, ref.sprintId)]),
  keys.issue(orgId, ref.projectId, ref.issueId),
];

/** A page of an issue's comments and its path's ancestry (lib/model/comment-ancestry.ts), read together (2 calls, whatever the page). */
export async function listComments(
  orgId: number,
  ref: IssueRef,
  page: PageRequest,
): Promise<{ page: Page<CommentItem>; path: Ancestry; issue: object | undefined }> {
  const { page: result, related } = await listPageWith<CommentItem>(
    collections.comments(orgId, ref.projectId, ref.issueId),
    page,
    pathKeys(orgId, ref),
  );
  const [project, sprint, issue] = ref.sprintId === null ? [related[0], undefined, related[1]] : related;
  return { page: result, path: pathAncestryOf(ancestors(project, sprint, issue), ref.sprintId), issue };
}

/**
 * The condition that an issue exists and is in that sprint now, or in the backlog when `sprintId` is
 * null, with `values` (the rest of the write's values) beside the ones it needs.
 */
export function issueIn(sprintId: number | null, values: Record<string, unknown> = {}) {
  const ExpressionAttributeNames = { '#issueSprint': issueItem.stored('sprintId') };
  return sprintId === null
    ? {
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(#issueSprint) OR attribute_type(#issueSprint, :null))',
        ExpressionAttributeNames,
        ExpressionAttributeValues: { ...values, ':null': 'NULL' },
      }
    : {
        ConditionExpression: 'attribute_exists(PK) AND #issueSprint = :sprint',
        ExpressionAttributeNames,
        ExpressionAttributeValues: { ...values, ':sprint': sprintId },
      };
}

/**
 * Its issue's `comments_count` moved `by` a comment's write (with, for a comment with attachments
 * `withFiles`, their place in the trash: `issueCountChange`), on condition that the issue is
 * there, in sprint `sprintId` (null: in the backlog); refused `issue` otherwise. The attachments'
 * answers read that place with the issue (lib/services/attachments.ts), so they leave and come back
 * in the same transaction as their comment.
 */
function commentsCountOn(orgId: number, ref: IssueRef, by: number, withFiles?: number, watcher?: number): GuardedItem {
  const key = keys.issue(orgId, ref.projectId, ref.issueId);
  const change = issueCountChange(by, withFiles);
  // A comment's author watches its issue from then on (docs/notifications.md).
  const watches = watcher === undefined ? change : { ...change, add: { ...change.add, watcherIds: new Set([watcher]) } };
  return issueItem.updateAt(key, watches, commentRefusals.issue, issueIn(ref.sprintId));
}

/** What a comment is written with; an import gives the source's times (else now). */
export interface CommentFields {
  body: string;
  authorId: number;
  authorName: string;
  created_at?: string | undefined;
  updated_at?: string | undefined;
}

/**
 * A new comment and its items (the comment and its pointer, each a Put of a fresh id), without
 * the issue's count: `insertComment` adds it, and an import writing an issue with its comments
 * sets the count on the issue it creates in the same transaction (lib/services/import-export/import.ts).
 */
export function newComment(
  orgId: number,
  id: number,
  ref: IssueRef,
  fields: CommentFields,
): { comment: Comment; items: GuardedItem[] } {
  const { body, authorId, authorName } = fields;
  const times = newCommentTimes(fields, new Date().toISOString());
  const comment: Comment = { id, body, issue_id: ref.issueId, author_id: authorId, author_name: authorName, ...times };
  const { projectId, sprintId, issueId } = ref;
  const stored = { projectId, sprintId, issueId, id, body, authorId, authorName };
  // Fresh ids from the sequence: never taken.
  const items = [
    putNew(commentRecord(orgId, { ...stored, createdAt: times.created_at, updatedAt: times.updated_at })),
    putNew(pointerItem(orgId, { ...comment, project_id: projectId, sprint_id: sprintId })),
  ];
  return { comment, items };
}

/** A comment's stored item: its key, its list key, its type and its attributes. */
function commentRecord(
  orgId: number,
  c: Partial<Fields<typeof commentItem.attributes>> & { projectId: number; issueId: number; id: number },
) {
  return {
    ...keys.comment(orgId, c.projectId, c.issueId, c.id),
    LSK: listKeys.comment(c.issueId, c.id),
    type: commentItem.type,
    ...commentItem.encode({ ...c, orgId }),
  };
}

/**
 * Creates a comment in one transaction: the comment, the issue's `comments_count` (on condition
 * that the issue exists and is in the path's sprint, or in the backlog), and checks that the
 * project and the sprint exist. Any of them missing is a 404 of that resource.
 */
export async function insertComment(
  orgId: number,
  id: number,
  ref: IssueRef,
  fields: CommentFields,
  /** Items of the same transaction (an import's record of the comment's source key). */
  tail: GuardedItem[] = [],
): Promise<Comment> {
  const { comment, items } = newComment(orgId, id, ref, fields);
  // The ancestors first: when several are gone, the refusal names the outermost, as a read would.
  await transact([...placeChecks(orgId, ref), commentsCountOn(orgId, ref, 1, undefined, fields.authorId), ...items, ...tail]);
  return withVersion(comment, { ...keys.comment(orgId, ref.projectId, ref.issueId, id), version: 1 });
}

/**
 * The pointer item of a comment: its place, its fixed fields, its body and `updated_at` when given
 * (every write of the body writes it on the pointer too, so that a delete moves the comment into
 * the trash without reading it: `CommentPointer.copy`) and, when given, its version (a request's
 * Put is stamped at version 1 like the comment's, lib/db/core/stamps.ts).
 */
export function pointerItem(
  orgId: number,
  comment: Pick<Comment, 'id' | 'issue_id' | 'author_id' | 'author_name' | 'created_at'> &
    Partial<Pick<Comment, 'body' | 'updated_at'>> & {
      project_id: number;
      sprint_id: number | null;
    },
  version?: number,
) {
  return {
    ...keys.commentPointer(orgId, comment.id),
    type: commentPointerItem.type,
    ...commentPointerItem.encode({
      projectId: comment.project_id,
      issueId: comment.issue_id,
      sprintId: comment.sprint_id,
      authorId: comment.author_id,
      authorName: comment.author_name,
      createdAt: comment.created_at,
      ...(comment.body === undefined || comment.updated_at === undefined
        ? {}
        : { body: comment.body, updatedAt: comment.updated_at }),
    }),
    ...(version === undefined ? {} : { [VERSION_ATTRIBUTE]: version }),
  };
}

/**
 * The comment as stored, from a pointer that carries all of it (`CommentPointer.copy`): what a
 * delete on the pointer alone puts in the trash. The pointer and the comment move to each version
 * together, and the delete holds the comment at the pointer's version and time, so it is the
 * comment item exactly (test/e2e/comments-trash.test.ts compares them).
 */
export function storedCommentOf(orgId: number, pointer: CopyingCommentPointer): Record<string, unknown> {
  const { fixed, copy } = pointer;
  return {
    ...commentRecord(orgId, {
      projectId: pointer.projectId,
      sprintId: pointer.sprintId,
      id: pointer.id,
      body: copy.body,
      issueId: pointer.issueId,
      authorId: fixed.authorId,
      authorName: fixed.authorName,
      createdAt: fixed.createdAt,
      updatedAt: copy.updatedAt,
      hasAttachments: copy.hasAttachments,
    }),
    ...(fixed.version === 0 ? {} : { [VERSION_ATTRIBUTE]: fixed.version }),
    ...(copy.updatedBy === undefined ? {} : { [ACTOR_ATTRIBUTE]: copy.updatedBy }),
  };
}

/**
 * A comment's pointer, read with one consistent GetItem: it is written in the comment's create
 * transaction, so a comment is found right after its creation. Undefined when there is none.
 */
export async function readCommentPointer(orgId: number, commentId: number): Promise<CommentPointer | undefined> {
  const item = await getItem(keys.commentPointer(orgId, commentId));
  return item && pointerFromItem(commentId, item);
}

/**
 * A comment's pointer with what its delete needs of the organisation, the trash's retention
 * (`trashRetentionOf`), in one consistent BatchGetItem: the same one call as `readCommentPointer`.
 */
export async function readCommentPointerToDelete(
  orgId: number,
  commentId: number,
): Promise<{ pointer: CommentPointer | undefined; retentionDays: number }> {
  const [item, org] = await batchGet([keys.commentPointer(orgId, commentId), keys.org(orgId)]);
  return { pointer: item && pointerFromItem(commentId, item), retentionDays: trashRetentionOf(organisationOf(org)) };
}

/** A comment found by id, with what its ancestor check found. */
export interface FoundComment {
  item: CommentItem;
  path: Ancestry;
}

/**
 * Finds a comment by id: its pointer (`readCommentPointer`), then the comment itself with its
 * project, issue and the sprint it was written in, in one consistent BatchGet (`findCommentAt`): 2
 * calls.
 */
export async function findComment(orgId: number, commentId: number): Promise<FoundComment | undefined> {
  const pointer = await readCommentPointer(orgId, commentId);
  return pointer && findCommentAt(orgId, pointer);
}

/**
 * Reads the comment a pointer leads to, with its project, issue and the sprint it was written in,
 * in one consistent BatchGet. Undefined when the comment, its project or its issue is gone, or the
 * sprint it still sits in is gone. When the issue has moved to another sprint since,
 * `path.sprintUnchecked` says that sprint is still to be checked.
 */
export async function findCommentAt(orgId: number, pointer: CommentPointer): Promise<FoundComment | undefined> {
  const { projectId, issueId, sprintId: hint } = pointer;
  const [item, project, issue, sprint] = await batchGet([
    keys.comment(orgId, projectId, issueId, pointer.id),
    keys.project(orgId, projectId),
    keys.issue(orgId, projectId, issueId),
    ...(hint === null ? [] : [keys.sprint(orgId, projectId, hint)]),
  ]);
  if (!item) return undefined;
  const path = ancestryOf(ancestors(project, sprint, issue), hint);
  return path.missing ? undefined : { item: item as unknown as CommentItem, path };
}

/** True when a sprint exists (one consistent GetItem of its key). */
export async function sprintExists(orgId: number, projectId: number, sprintId: number): Promise<boolean> {
  return itemExists(keys.sprint(orgId, projectId, sprintId));
}

/**
 * Checks of a comment's ancestors that travel inside its write transaction: any of them gone means
 * the comment is no longer reachable.
 */
function ancestorChecks(orgId: number, found: FoundComment): GuardedItem[] {
  const { project_id: projectId } = found.item;
  const checks = [existsCheck(keys.project(orgId, projectId), commentRefusals.comment)];
  const sprint = found.path.issueSprintId;
  if (sprint !== null && sprint !== undefined) {
    checks.push(existsCheck(keys.sprint(orgId, projectId, sprint), commentRefusals.comment));
  }
  return checks;
}

/**
 * What a comment's write checks of the place it is written at (a new comment's, a restored one's,
 * or the one a pointer names): the project, and the sprint (if any), still exist. (The issue's
 * condition, that it is still in that sprint or in the backlog, `issueIn`, goes on the issue's own
 * item: `commentsCountOn`.)
 */
function placeChecks(orgId: number, { projectId, sprintId }: { projectId: number; sprintId: number | null }): GuardedItem[] {
  return [
    existsCheck(keys.project(orgId, projectId), commentRefusals.project),
    ...(sprintId === null ? [] : [existsCheck(keys.sprint(orgId, projectId, sprintId), commentRefusals.sprint)]),
  ];
}

/** `#version = :version` (`storedNumberIs`: version 0 also matches an item written before versions existed). */
const atVersion = (version: number) => storedNumberIs('#version', ':version', version);

/** `atVersion` as a condition of its own, with its name and value (`alsoIf`). */
const atVersionCondition = (version: number) => ({
  ConditionExpression: atVersion(version),
  ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
  ExpressionAttributeValues: { ':version': version },
});

/** The condition that the comment is as `guard` says and at `version`, for a write that is no update (a check, a delete). */
function commentIs(guard: Guard<typeof commentItem.attributes>, version: number): Condition {
  const {
    ConditionExpression = '',
    ExpressionAttributeNames,
    ExpressionAttributeValues,
  } = alsoIf(commentItem.update({ if: guard }), atVersionCondition(version));
  return { ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues };
}

/**
 * The update of a comment's pointer that goes with every update of the comment: the stamp every
 * update of a request carries (lib/db/core/stamps.ts) moves the pointer's version with the comment's.
 * With `version`, on condition that the pointer is still at it. With `sprintId` (an update that
 * read the issue where it is now), the pointer's sprint becomes the issue's current one, so that
 * the next write of a comment whose issue has moved is decided on the pointer again. With `body`,
 * the pointer's copy of it (`CommentPointer.copy`) becomes the new one.
 */
function pointerUpdate(
  orgId: number,
  commentId: number,
  now: string,
  body: string | undefined,
  version?: number,
  sprintId?: number | null,
): GuardedItem {
  return commentPointerItem.updateAt(
    keys.commentPointer(orgId, commentId),
    {
      set: { updatedAt: now, ...(sprintId !== undefined && { sprintId }), ...(body !== undefined && { body }) },
      if: { exists: true },
    },
    commentRefusals.comment,
    version === undefined ? undefined : atVersionCondition(version),
  );
}

/**
 * Changes a comment's body on what its pointer says alone, in one transaction: the comment, on
 * condition that the caller wrote it and that it is at the pointer's version; the pointer's version
 * moved with it, on condition that it is still the one read; the issue still in the sprint the
 * comment was written in (or in the backlog); the project and that sprint still there. Both items
 * were at the version read, so the answer (the pointer's fields, the new body) carries the exact
 * version written. Refused, changing nothing, when anything is not as the pointer says (the issue
 * moved, an ancestor or the comment is gone, a concurrent update, a version `If-Match` does not
 * name): the caller then reads the comment and decides on what it finds.
 */
export async function updateCommentAt(
  orgId: number,
  pointer: FullCommentPointer,
  authorId: number,
  body: string,
): Promise<Comment> {
  const now = new Date().toISOString();
  const { version } = pointer.fixed;
  await transact([
    {
      ...commentItem.updateAt(
        keys.comment(orgId, pointer.projectId, pointer.issueId, pointer.id),
        // The issue's sprint now (its condition below holds it there): the change feed reports it.
        { set: { body, updatedAt: now, sprintId: pointer.sprintId }, if: { exists: true, equals: { authorId } } },
        commentRefusals.comment,
        atVersionCondition(version),
      ),
      resource: true,
    },
    pointerUpdate(orgId, pointer.id, now, body, version),
    {
      item: {
        ConditionCheck: {
          TableName: tableName(),
          Key: keys.issue(orgId, pointer.projectId, pointer.issueId),
          ...issueIn(pointer.sprintId),
        },
      },
      reason: commentRefusals.issue,
    },
    ...placeChecks(orgId, pointer),
  ]);
  const key = keys.comment(orgId, pointer.projectId, pointer.issueId, pointer.id);
  return withVersion(commentOnPointer(pointer, body, now), { ...key, version: version + 1 });
}

/**
 * A comment's move into the organisation's trash (lib/db/core/trash.ts): the comment's delete (on
 * condition that the caller wrote it and that it is still as `stored` says, its body at its
 * version and time, so that the trash holds it as it is; If-Match's version too), its pointer's, the trash
 * item (the comment whole, put there by the caller) and the delete's marker (who deleted it, and
 * the sprint its issue is in: lib/db/core/deletions.ts). `changed`: the reason a comment that is no
 * longer as read is refused with.
 */
function commentTrashing(
  orgId: number,
  stored: Record<string, unknown>,
  authorId: number,
  sprintId: number | null,
  changed: 'comment' | typeof STALE,
  retentionDays: number,
): GuardedItem[] {
  const comment = commentItem.decode(stored);
  const key = { PK: String(stored.PK), SK: String(stored.SK) };
  // Its body too: a copy made by a release that did not write it on the pointer is refused.
  const condition = commentIs(
    { exists: true, equals: { authorId, body: comment.body, updatedAt: comment.updatedAt } },
    versionOf(stored),
  );
  return [
    ...deletionMarker(key, { sprintId }),
    { item: { Delete: { TableName: tableName(), Key: keys.commentPointer(orgId, comment.id) } } },
    { item: { Delete: { TableName: tableName(), Key: key, ...condition } }, reason: changed, resource: true },
    trashPut(orgId, 'comment', stored, trashTitle(comment.body), authorId, retentionDays),
  ];
}

/**
 * Moves a comment into the trash on what its pointer says alone (`CommentPointer.copy`: the whole
 * comment), in one transaction: the comment (on condition that the caller wrote it and that it is
 * at the pointer's version), its pointer, the trash item, and its issue's `comments_count` (on
 * condition that the issue is still in the sprint the comment was written in, or in the backlog;
 * with its attachments' place in the trash when it has some: `issueCountChange`), with checks
 * that the project and that sprint still exist. Refused, changing nothing, when anything is not as
 * the pointer says: the caller then reads the comment and decides on what it finds.
 */
export async function deleteCommentAt(
  orgId: number,
  pointer: CopyingCommentPointer,
  authorId: number,
  retentionDays: number,
): Promise<void> {
  await transact([
    // The issue's condition below holds it in the pointer's sprint: the marker's sprint.
    ...commentTrashing(
      orgId,
      storedCommentOf(orgId, pointer),
      authorId,
      pointer.sprintId,
      commentRefusals.comment,
      retentionDays,
    ),
    commentsCountOn(orgId, pointer, -1, withFilesOf({ id: pointer.id, hasAttachments: pointer.copy.hasAttachments })),
    ...placeChecks(orgId, pointer),
  ]);
}

/**
 * Changes a comment's body, on condition that the caller wrote it and that its project, issue and
 * current sprint still exist (all in one transaction), moving its pointer's version with it.
 */
export async function updateComment(
  orgId: number,
  found: FoundComment,
  authorId: number,
  body: string | undefined,
): Promise<Comment> {
  const now = new Date().toISOString();
  await transact([
    {
      ...commentItem.updateAt(
        { PK: found.item.PK, SK: found.item.SK },
        // The issue's sprint as read: the change feed reports it with the change.
        {
          set: { ...(body !== undefined && { body }), updatedAt: now, sprintId: found.path.issueSprintId },
          if: { exists: true, equals: { authorId } },
        },
        commentRefusals.comment,
      ),
      resource: true,
    },
    pointerUpdate(orgId, found.item.id, now, body, undefined, found.path.issueSprintId),
    existsCheck(keys.issue(orgId, found.item.project_id, found.item.issue_id), commentRefusals.comment),
    ...ancestorChecks(orgId, found),
  ]);
  // Written at the version read + 1 when the request required it; otherwise its best guess.
  return toComment({
    ...found.item,
    ...(body === undefined ? {} : { body }),
    updated_at: now,
    version: versionOf(found.item) + 1,
  });
}

/**
 * Moves a comment as read into the trash with its pointer's delete, and moves its issue's
 * `comments_count` (with its attachments' place in the trash), in one transaction with the same
 * checks. A comment changed since it was read is refused `STALE` (read it again).
 */
export async function deleteComment(orgId: number, found: FoundComment, authorId: number, retentionDays: number): Promise<void> {
  await transact([
    ...commentTrashing(
      orgId,
      found.item as unknown as Record<string, unknown>,
      authorId,
      found.path.issueSprintId,
      STALE,
      retentionDays,
    ),
    issueItem.updateAt(
      keys.issue(orgId, found.item.project_id, found.item.issue_id),
      { ...issueCountChange(-1, withFilesOf(commentItem.decode(found.item))), if: { exists: true } },
      commentRefusals.comment,
    ),
    ...ancestorChecks(orgId, found),
  ]);
}

/**
 * Brings a trashed comment back (`stored`: as it was stored) in one transaction: the comment with
 * its id, body, author, times and version, marked restored (`restoredAt`: no `comment.created`),
 * its pointer (carrying it whole, as a new comment's does), its issue's `comments_count` (on
 * condition that the issue is there, in sprint `sprintId`, or in the backlog when null; its
 * attachments, kept meanwhile, in its issue's answers again: `issueCountChange`), checks
 * that the project and that sprint exist, and the trash item's delete. Refusals: `comment` (there
 * again), `issue` (gone, or not in that sprint), `project`, `sprint`, `trashed` (restored or
 * purged meanwhile).
 */
export async function restoreComment(
  orgId: number,
  stored: Record<string, unknown>,
  deletedAt: string,
  sprintId: number | null,
): Promise<void> {
  const c = commentItem.decode(stored);
  const version = versionOf(stored);
  const comment = { ...toComment(stored), project_id: c.projectId, sprint_id: c.sprintId };
  const marks = commentPointerItem.encode({ hasAttachments: c.hasAttachments });
  await transact([
    ...placeChecks(orgId, { projectId: c.projectId, sprintId }),
    commentsCountOn(orgId, { projectId: c.projectId, sprintId, issueId: c.issueId }, 1, withFilesOf(c)),
    // Its own version, which a Put made for a request would otherwise start again at 1 (lib/db/core/stamps.ts).
    putNew(
      { ...stored, [VERSION_ATTRIBUTE]: version, ...commentItem.encode({ restoredAt: new Date().toISOString() }) },
      commentRefusals.comment,
    ),
    putNew({ ...pointerItem(orgId, comment, version), ...marks }, commentRefusals.comment),
    ...trashRemovalOf(orgId, 'comment', c.id, deletedAt, 'restored'),
  ]);
}

/** Who wrote comment `commentId` of an issue, or undefined when it is not there (in the trash, or gone): one GetItem. */
export async function commentAuthorOf(
  orgId: number,
  projectId: number,
  issueId: number,
  commentId: number,
): Promise<number | undefined> {
  const item = await getItem(keys.comment(orgId, projectId, issueId, commentId), commentItem.stored('authorId'));
  return item ? commentItem.field(item, 'authorId') : undefined;
}

/** The sprint issue `issueId` is in now (null: the backlog), or undefined when it is gone: one GetItem. */
export async function issueSprintNow(orgId: number, projectId: number, issueId: number): Promise<number | null | undefined> {
  const item = await getItem(keys.issue(orgId, projectId, issueId));
  return item ? issueItem.field(item, 'sprintId') : undefined;
}

/**
 * One page of the Scan of comments (of organisation `orgId` only, when given), from `start`, of at
 * most `limit` items read (none: DynamoDB's 1 MB): each with its keys, place, fixed fields, body and
 * `updated_at` (what its pointer carries) and its version. For the backfill of pointers
 * (lib/jobs/comment-pointers.ts) only: no request path scans. `next`: where the next page starts
 * (undefined at the end).
 */
export async function scanCommentsPage(
  orgId: number | undefined,
  start?: Record<string, unknown>,
  limit?: number,
): Promise<{ items: Record<string, unknown>[]; next: Record<string, unknown> | undefined }> {
  const read = commentItem.projection([
    'orgId',
    'projectId',
    'issueId',
    'sprintId',
    'id',
    'body',
    'authorId',
    'authorName',
    'createdAt',
    'updatedAt',
  ]);
  let items: Record<string, unknown>[] = [];
  const next = await scanPages(
    {
      FilterExpression: `#type = :comment${orgId === undefined ? '' : ' AND begins_with(PK, :org)'}`,
      ProjectionExpression: `PK, SK, ${read.ProjectionExpression}, #version`,
      ExpressionAttributeNames: { ...read.ExpressionAttributeNames, '#type': 'type', '#version': VERSION_ATTRIBUTE },
      ExpressionAttributeValues: { ':comment': commentItem.type, ...(orgId === undefined ? {} : { ':org': orgPk(orgId) }) },
      ...(limit === undefined ? {} : { Limit: limit }),
    },
    (page) => {
      items = page;
      return false;
    },
    start,
  );
  return { items, next };
}

/**
 * The body and `updated_at` of a comment as scanned, when both were read (an item read without them
 * gets a pointer without a copy of the comment). A pointer copies them under the comment's own
 * stored names, so they read as its pointer's copy would.
 */
function scannedCopy(item: object): { body: string; updatedAt: string } | undefined {
  const { body, updatedAt } = commentPointerItem.decode(item);
  return body !== undefined && updatedAt !== undefined ? { body, updatedAt } : undefined;
}

/**
 * Writes the pointer of a comment as `scanCommentsPage` read it, with the comment's fixed fields,
 * version and (when read) body and `updated_at`, on condition that the comment is still there and has
 * no pointer: `written`, else `gone` (since the Scan: a cascade running meanwhile is not undone) or
 * `pointed` (it has one).
 */
export async function writeCommentPointer(item: Record<string, unknown>): Promise<'written' | 'gone' | 'pointed'> {
  // A comment without a pointer cannot be found by id, so no request changes it meanwhile: the
  // version read here is still its version when the pointer is written.
  const c = commentItem.decode(item);
  const copy = scannedCopy(item);
  const comment = {
    ...toComment(item),
    ...(copy ? { body: copy.body, updated_at: copy.updatedAt } : { body: undefined, updated_at: undefined }),
    project_id: c.projectId,
    sprint_id: c.sprintId,
  };
  try {
    await transact([
      existsCheck({ PK: String(item.PK), SK: String(item.SK) }, 'gone'),
      putNew(pointerItem(c.orgId, comment, versionOf(item)), 'pointed'),
    ]);
    return 'written';
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return err.reason === 'pointed' ? 'pointed' : 'gone';
  }
}

/**
 * Gives a pointer written before pointers carried the comment (as `scanCommentsPage` read it) its
 * fixed fields and the comment's version, and (when read) its body and `updated_at`, on condition
 * that the comment is still at the version scanned (an edit meanwhile moves both; the backfill run
 * again completes it) and that the pointer still lacks them. True when written.
 */
export async function completeCommentPointer(item: Record<string, unknown>): Promise<boolean> {
  const c = commentItem.decode(item);
  const commentKey = { PK: String(item.PK), SK: String(item.SK) };
  const version = versionOf(item);
  const copy = scannedCopy(item);
  const lacking = {
    ConditionExpression: '(attribute_not_exists(#authorId) OR attribute_not_exists(#body))',
    ExpressionAttributeNames: { '#authorId': commentPointerItem.stored('authorId'), '#body': commentPointerItem.stored('body') },
  };
  const { Update } = commentPointerItem.updateAt(
    keys.commentPointer(c.orgId, c.id),
    {
      set: { authorId: c.authorId, authorName: c.authorName, createdAt: c.createdAt, ...copy },
      if: { exists: true, ...(!copy && { absent: ['authorId' as const] }) },
    },
    undefined,
    copy && lacking,
  ).item;
  try {
    await transact([
      {
        item: { ConditionCheck: { TableName: tableName(), Key: commentKey, ...commentIs({ exists: true }, version) } },
        reason: commentRefusals.comment,
      },
      {
        // The pointer at the comment's version, which no declared attribute says (its SET alone: every field is set).
        item: {
          Update: {
            ...Update,
            UpdateExpression: `${Update.UpdateExpression}, #version = :version`,
            ExpressionAttributeNames: { ...Update.ExpressionAttributeNames, '#version': VERSION_ATTRIBUTE },
            ExpressionAttributeValues: { ...Update.ExpressionAttributeValues, ':version': version },
          },
        },
        reason: commentRefusals.comment,
      },
    ]);
    return true;
  } catch (err) {
    if (err instanceof Refused) return false;
    throw err;
  }
}

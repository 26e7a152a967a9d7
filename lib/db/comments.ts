import { ancestryOf, pathAncestryOf, type Ancestry, type AncestorItems } from '../model/comment-ancestry.ts';
import { issueItem } from './issue-item.ts';
import { pointerFromItem, sprintIdOf, type CommentPointer, type FullCommentPointer } from './comment-pointers.ts';
import type { Comment } from '../schemas/comments.ts';
import { tableName } from './client.ts';
import { attribute, itemKind, type Stored } from './item.ts';
import { deletionMarker } from './deletions.ts';
import { scanPages, type ScanStep } from './query.ts';
import { collections, keys, listKeys, orgPk, type Key } from './keys.ts';
import { listPageWith, type Page, type PageRequest } from './list.ts';
import {
  putNew,
  addTo,
  getItem,
  itemExists,
  batchGet,
  existsCheck,
  Refused,
  transact,
  type GuardedItem,
} from './transactions.ts';
import { storedNumberIs, versionOf, VERSION_ATTRIBUTE, withVersion } from './versions.ts';

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
  key: { PK: 'ORG#o#P#p', SK: 'ISSUE#i#C#c', LSK: 'C#i#c' },
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
): Promise<{ page: Page<CommentItem>; path: Ancestry }> {
  const { page: result, related } = await listPageWith<CommentItem>(
    collections.comments(orgId, ref.projectId, ref.issueId),
    page,
    pathKeys(orgId, ref),
  );
  const [project, sprint, issue] = ref.sprintId === null ? [related[0], undefined, related[1]] : related;
  return { page: result, path: pathAncestryOf(ancestors(project, sprint, issue), ref.sprintId) };
}

/**
 * The condition that an issue exists and is in that sprint now, or in the backlog when `sprintId` is
 * null, with `values` (the rest of the write's values) beside the ones it needs.
 */
function issueIn(sprintId: number | null, values: Record<string, unknown> = {}) {
  return sprintId === null
    ? {
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(sprint_id) OR attribute_type(sprint_id, :null))',
        ExpressionAttributeValues: { ...values, ':null': 'NULL' },
      }
    : {
        ConditionExpression: 'attribute_exists(PK) AND sprint_id = :sprint',
        ExpressionAttributeValues: { ...values, ':sprint': sprintId },
      };
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
  const now = new Date().toISOString();
  const comment: Comment = {
    id,
    body: fields.body,
    issue_id: ref.issueId,
    author_id: fields.authorId,
    author_name: fields.authorName,
    created_at: fields.created_at ?? now,
    updated_at: fields.updated_at ?? fields.created_at ?? now,
  };
  const items: GuardedItem[] = [
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: {
            ...keys.comment(orgId, ref.projectId, ref.issueId, id),
            LSK: listKeys.comment(ref.issueId, id),
            type: commentItem.type,
            ...commentItem.encode({
              orgId,
              projectId: ref.projectId,
              sprintId: ref.sprintId,
              id,
              body: comment.body,
              issueId: comment.issue_id,
              authorId: comment.author_id,
              authorName: comment.author_name,
              createdAt: comment.created_at,
              updatedAt: comment.updated_at,
            }),
          },
          // A fresh id from the sequence: never taken.
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
    {
      item: {
        Put: {
          TableName: tableName(),
          Item: pointerItem(orgId, { ...comment, project_id: ref.projectId, sprint_id: ref.sprintId }),
          ConditionExpression: 'attribute_not_exists(PK)',
        },
      },
    },
  ];
  return { comment, items };
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
  await transact([
    existsCheck(keys.project(orgId, ref.projectId), commentRefusals.project),
    ...(ref.sprintId === null ? [] : [existsCheck(keys.sprint(orgId, ref.projectId, ref.sprintId), commentRefusals.sprint)]),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, ref.projectId, ref.issueId),
          UpdateExpression: 'ADD comments_count :one',
          ...issueIn(ref.sprintId, { ':one': 1 }),
        },
      },
      reason: commentRefusals.issue,
    },
    ...items,
    ...tail,
  ]);
  return withVersion(comment, { ...keys.comment(orgId, ref.projectId, ref.issueId, id), version: 1 });
}

/**
 * The pointer item of a comment: its place, its fixed fields and, when given, its version (a
 * request's Put is stamped at version 1 like the comment's, lib/db/stamps.ts).
 */
export function pointerItem(
  orgId: number,
  comment: Pick<Comment, 'id' | 'issue_id' | 'author_id' | 'author_name' | 'created_at'> & {
    project_id: number;
    sprint_id: number | null;
  },
  version?: number,
) {
  return {
    ...keys.commentPointer(orgId, comment.id),
    type: 'comment_pointer',
    project_id: comment.project_id,
    issue_id: comment.issue_id,
    sprint_id: comment.sprint_id,
    author_id: comment.author_id,
    author_name: comment.author_name,
    created_at: comment.created_at,
    ...(version === undefined ? {} : { [VERSION_ATTRIBUTE]: version }),
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
 * What a write decided on a comment's pointer alone checks of the place the pointer names: the
 * project, and the sprint the comment was written in, still exist. (The issue's condition, that it
 * is still in that sprint or in the backlog, `issueIn`, goes on the issue's own item.)
 */
function pointerPlaceChecks(orgId: number, pointer: CommentPointer): GuardedItem[] {
  const { projectId, sprintId } = pointer;
  return [
    existsCheck(keys.project(orgId, projectId), commentRefusals.project),
    ...(sprintId === null ? [] : [existsCheck(keys.sprint(orgId, projectId, sprintId), commentRefusals.sprint)]),
  ];
}

/** `#version = :version` (`storedNumberIs`: version 0 also matches an item written before versions existed). */
const atVersion = (version: number) => storedNumberIs('#version', ':version', version);

/**
 * The update of a comment's pointer that goes with every update of the comment: the stamp every
 * update of a request carries (lib/db/stamps.ts) moves the pointer's version with the comment's.
 * With `version`, on condition that the pointer is still at it. With `sprintId` (an update that
 * read the issue where it is now), the pointer's sprint becomes the issue's current one, so that
 * the next write of a comment whose issue has moved is decided on the pointer again.
 */
function pointerUpdate(orgId: number, commentId: number, now: string, version?: number, sprintId?: number | null): GuardedItem {
  const sprint = sprintId === undefined ? {} : { ':sprint': sprintId };
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.commentPointer(orgId, commentId),
        UpdateExpression: sprintId === undefined ? 'SET updated_at = :now' : 'SET updated_at = :now, sprint_id = :sprint',
        ...(version === undefined
          ? { ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':now': now, ...sprint } }
          : {
              ConditionExpression: `attribute_exists(PK) AND ${atVersion(version)}`,
              ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
              ExpressionAttributeValues: { ':now': now, ':version': version, ...sprint },
            }),
      },
    },
    reason: commentRefusals.comment,
  };
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
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.comment(orgId, pointer.projectId, pointer.issueId, pointer.id),
          // The issue's sprint now (its condition below holds it there): the change feed reports it.
          UpdateExpression: 'SET body = :body, updated_at = :now, sprint_id = :sprint',
          ConditionExpression: `attribute_exists(PK) AND author_id = :author AND ${atVersion(version)}`,
          ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
          ExpressionAttributeValues: {
            ':body': body,
            ':now': now,
            ':author': authorId,
            ':version': version,
            ':sprint': pointer.sprintId,
          },
        },
      },
      reason: commentRefusals.comment,
      resource: true,
    },
    pointerUpdate(orgId, pointer.id, now, version),
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
    ...pointerPlaceChecks(orgId, pointer),
  ]);
  return withVersion(
    {
      id: pointer.id,
      body,
      issue_id: pointer.issueId,
      author_id: pointer.fixed.authorId,
      author_name: pointer.fixed.authorName,
      created_at: pointer.fixed.createdAt,
      updated_at: now,
    },
    { ...keys.comment(orgId, pointer.projectId, pointer.issueId, pointer.id), version: version + 1 },
  );
}

/**
 * A comment's delete (on condition that the caller wrote it; If-Match's version too), its pointer's,
 * and the delete's marker (who deleted it, and the sprint its issue is in: lib/db/deletions.ts).
 */
function commentDeletes(orgId: number, key: Key, commentId: number, authorId: number, sprintId: number | null): GuardedItem[] {
  return [
    ...deletionMarker(key, { sprintId }),
    { item: { Delete: { TableName: tableName(), Key: keys.commentPointer(orgId, commentId) } } },
    {
      item: {
        Delete: {
          TableName: tableName(),
          Key: key,
          ConditionExpression: 'attribute_exists(PK) AND author_id = :author',
          ExpressionAttributeValues: { ':author': authorId },
        },
      },
      reason: commentRefusals.comment,
      resource: true,
    },
  ];
}

/**
 * Deletes a comment on what its pointer says alone, in one transaction: the comment (on condition
 * that the caller wrote it), its pointer, and its issue's `comments_count` (on condition that the
 * issue is still in the sprint the comment was written in, or in the backlog), with checks that
 * the project and that sprint still exist. Refused, changing nothing, when anything is not as the
 * pointer says: the caller then reads the comment and decides on what it finds.
 */
export async function deleteCommentAt(orgId: number, pointer: CommentPointer, authorId: number): Promise<void> {
  await transact([
    // The issue's condition below holds it in the pointer's sprint: the marker's sprint.
    ...commentDeletes(
      orgId,
      keys.comment(orgId, pointer.projectId, pointer.issueId, pointer.id),
      pointer.id,
      authorId,
      pointer.sprintId,
    ),
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, pointer.projectId, pointer.issueId),
          UpdateExpression: 'ADD comments_count :minus',
          ...issueIn(pointer.sprintId, { ':minus': -1 }),
        },
      },
      reason: commentRefusals.issue,
    },
    ...pointerPlaceChecks(orgId, pointer),
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
  // The issue's sprint as read: the change feed reports it with the change.
  const values: Record<string, unknown> = { ':now': now, ':author': authorId, ':sprint': found.path.issueSprintId };
  if (body !== undefined) values[':body'] = body;
  await transact([
    {
      item: {
        Update: {
          TableName: tableName(),
          Key: { PK: found.item.PK, SK: found.item.SK },
          UpdateExpression:
            body === undefined
              ? 'SET updated_at = :now, sprint_id = :sprint'
              : 'SET body = :body, updated_at = :now, sprint_id = :sprint',
          ConditionExpression: 'attribute_exists(PK) AND author_id = :author',
          ExpressionAttributeValues: values,
        },
      },
      reason: commentRefusals.comment,
      resource: true,
    },
    pointerUpdate(orgId, found.item.id, now, undefined, found.path.issueSprintId),
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
 * Deletes a comment with its pointer and moves its issue's `comments_count`, in one transaction
 * with the same checks.
 */
export async function deleteComment(orgId: number, found: FoundComment, authorId: number): Promise<void> {
  await transact([
    ...commentDeletes(orgId, { PK: found.item.PK, SK: found.item.SK }, found.item.id, authorId, found.path.issueSprintId),
    addTo(keys.issue(orgId, found.item.project_id, found.item.issue_id), 'comments_count', -1, commentRefusals.comment),
    ...ancestorChecks(orgId, found),
  ]);
}

/**
 * Writes the pointer (`keys.commentPointer`) of every comment that has none: comments written
 * before pointers existed, when `GET /comments/{id}` read a global index. The pointer carries the
 * comment's fixed fields and its version, as a new comment's does; a pointer written before
 * pointers carried them gets them (`completePointer`), so that the comment's writes are decided on
 * the pointer. An operator's command (`comments:pointers`, tools/cli/admin.ts) run once after
 * deploying: it reads the whole table (what `orgId` has of it, when given) with a Scan, which no
 * request path does. A pointer is written only while its comment is there, so a cascade running
 * meanwhile is not undone. Returns how many comments it saw, how many pointers it wrote and how
 * many it completed; running it again writes none.
 * With `step`, it reads only that part of the Scan and returns where the next part starts (`next`,
 * undefined at the end): the data migration of lib/migrations runs it so, a step at a time.
 */
export async function writeMissingCommentPointers(
  orgId?: number,
  step?: ScanStep,
): Promise<{ comments: number; written: number; completed: number; next?: Record<string, unknown> | undefined }> {
  let comments = 0;
  let written = 0;
  let completed = 0;
  let pages = step?.pages ?? Infinity;
  const next = await scanPages(
    {
      FilterExpression: `#type = :comment${orgId === undefined ? '' : ' AND begins_with(PK, :org)'}`,
      ProjectionExpression: 'PK, SK, org_id, project_id, issue_id, sprint_id, id, author_id, author_name, created_at, #version',
      ExpressionAttributeNames: { '#type': 'type', '#version': VERSION_ATTRIBUTE },
      ExpressionAttributeValues: { ':comment': 'comment', ...(orgId === undefined ? {} : { ':org': orgPk(orgId) }) },
      ...(step ? { Limit: step.limit } : {}),
    },
    async (items) => {
      for (const item of items) {
        comments++;
        const outcome = await restorePointer(item);
        if (outcome === 'written') written++;
        if (outcome === 'completed') completed++;
      }
      return --pages > 0;
    },
    step?.start,
  );
  return step ? { comments, written, completed, next } : { comments, written, completed };
}

/**
 * The pointer of one comment as `writeMissingCommentPointers` scanned it (its keys, place, fixed
 * fields and version): written when it has none, completed when it lacks the comment's fields,
 * left alone otherwise, and never written for a comment that is gone since the Scan read it (a
 * cascade running meanwhile is not undone).
 */
export async function restorePointer(item: Record<string, unknown>): Promise<'written' | 'completed' | 'none'> {
  // A comment without a pointer cannot be found by id, so no request changes it meanwhile: the
  // version read here is still its version when the pointer is written.
  const comment = toComment({ ...item, body: '', updated_at: '' });
  const orgId = Number(item.org_id);
  const place = { project_id: Number(item.project_id), sprint_id: sprintIdOf(item.sprint_id) };
  const commentKey = { PK: String(item.PK), SK: String(item.SK) };
  try {
    await transact([
      existsCheck(commentKey, 'gone'),
      putNew(pointerItem(orgId, { ...comment, ...place }, versionOf(item)), 'pointed'),
    ]);
    return 'written';
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    // A comment gone since the Scan gets nothing; one that has a pointer may need it completed.
    if (err.reason !== 'pointed') return 'none';
  }
  return (await completePointer(orgId, commentKey, comment, versionOf(item))) ? 'completed' : 'none';
}

/**
 * Gives a pointer written before pointers carried the comment its fixed fields and the comment's
 * version, on condition that the comment is still at the version scanned (an edit meanwhile moves
 * both; the command run again completes it) and that the pointer still lacks them. True when written.
 */
async function completePointer(orgId: number, commentKey: Key, comment: Comment, version: number): Promise<boolean> {
  try {
    await transact([
      {
        item: {
          ConditionCheck: {
            TableName: tableName(),
            Key: commentKey,
            ConditionExpression: `attribute_exists(PK) AND ${atVersion(version)}`,
            ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
            ExpressionAttributeValues: { ':version': version },
          },
        },
        reason: commentRefusals.comment,
      },
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: keys.commentPointer(orgId, comment.id),
            UpdateExpression: 'SET author_id = :author, author_name = :name, created_at = :created, #version = :version',
            ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(author_id)',
            ExpressionAttributeNames: { '#version': VERSION_ATTRIBUTE },
            ExpressionAttributeValues: {
              ':author': comment.author_id,
              ':name': comment.author_name,
              ':created': comment.created_at,
              ':version': version,
            },
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

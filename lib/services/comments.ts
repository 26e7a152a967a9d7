import { getTrashed } from '../db/core/trash.ts';
import type { CommentPointer } from '../model/comment-pointers.ts';
import { getAccountItem } from '../db/organisation/accounts.ts';
import * as store from '../db/comments/comments.ts';
import type { IssueRef } from '../db/comments/comments.ts';
import type { PageRequest } from '../db/core/list.ts';
import { readIssueItem } from '../db/issues/issue-refs.ts';
import { nextId } from '../db/core/sequences.ts';
import { isRefused, Refused, rereadOnStale, type GuardedItem } from '../db/core/transactions.ts';
import type { Comment, CommentCreate, CommentUpdate } from '../schemas/comments.ts';
import { ForbiddenError, NotFoundError, TransitionError, UnauthorizedError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import { explainRefusal, projectNotThere, refusedAs, type Meanings } from './refusals.ts';
import { type CommentRefusal } from '../db/core/refusals.ts';
import { issueNotHere } from './issue-keys.ts';

/** What a refused comment write means. */
const refusals = {
  [store.commentRefusals.project]: () => new NotFoundError('Project'),
  [store.commentRefusals.sprint]: () => new NotFoundError('Sprint'),
  [store.commentRefusals.issue]: () => new NotFoundError('Issue'),
  [store.commentRefusals.comment]: () => new NotFoundError('Comment'),
} satisfies Meanings<Exclude<CommentRefusal, 'pointed'>>;

export type { IssueRef };

/** The comments of an issue in creation order; the total is the issue's `comments_count`. */
export async function listComments(caller: Principal, ref: IssueRef, page: PageRequest) {
  const { page: result, path, issue } = await store.listComments(caller.orgId, ref, page);
  if (path.missing === 'Project') throw new NotFoundError(path.missing);
  if (path.missing) throw issueNotHere(issue, ref.sprintId, new NotFoundError(path.missing));
  return { page: result, items: result.items.map(store.toComment), total: path.commentsCount };
}

/** A new comment's id and its author's name (the caller's), taken before its issue is known (a route by key reads it meanwhile). */
export async function commentSlot(caller: Principal): Promise<{ id: number; authorName: string }> {
  const [id, authorName] = await Promise.all([nextId(caller.orgId, 'comment'), authorNameOf(caller)]);
  return { id, authorName };
}

/**
 * Adds a comment to an issue; its author is the caller's account, the owner of the request's token.
 * `slot` may be taken beforehand (`commentSlot`); an id a refused write took stays unused.
 */
export async function createComment(
  caller: Principal,
  ref: IssueRef,
  input: CommentCreate,
  slot: Promise<{ id: number; authorName: string }> = commentSlot(caller),
): Promise<Comment> {
  const { id, authorName } = await slot;
  const fields = { body: input.body, authorId: caller.accountId, authorName };
  try {
    return await store.insertComment(caller.orgId, id, ref, fields);
  } catch (err) {
    if (!isRefused(err, store.commentRefusals.sprint, store.commentRefusals.issue)) throw explainRefusal(err, refusals);
    // Its issue is not in the path's list: read (on this 404 only), so that the answer says where it is.
    const issue = await readIssueItem(caller.orgId, ref.projectId, ref.issueId);
    throw issueNotHere(issue, ref.sprintId, explainRefusal(err, refusals) as NotFoundError);
  }
}

/**
 * A comment an import writes (lib/services/import-export/): its author, the author's name and its times are the
 * source's; `tail` goes in the same transaction (the record of its source key). Refused as a
 * create is.
 */
export async function createImportedComment(
  orgId: number,
  ref: IssueRef,
  fields: store.CommentFields,
  tail: (commentId: number) => GuardedItem[] = () => [],
): Promise<Comment> {
  const id = await nextId(orgId, 'comment');
  return refusedAs(refusals, () => store.insertComment(orgId, id, ref, fields, tail(id)));
}

/**
 * The caller's name, as its token carries it (no route renames an account); a token issued before
 * tokens carried names costs a read of the account (until it is regenerated: docs/deploying.md).
 */
async function authorNameOf(caller: Principal): Promise<string> {
  if (caller.name !== undefined) return caller.name;
  const author = await getAccountItem(caller.orgId, caller.accountId);
  if (!author) throw new UnauthorizedError('The account of this token no longer exists');
  return author.name;
}

/**
 * A comment the caller can see: it exists in the caller's organisation and so do its project, its
 * issue and the issue's current sprint. Deleted ancestors make it 404 at once, before the cascade
 * removes it.
 */
async function visibleComment(caller: Principal, commentId: number): Promise<store.FoundComment> {
  const found = await store.findComment(caller.orgId, commentId);
  if (!found) throw new NotFoundError('Comment');
  await confirmMovedSprint(caller, found);
  return found;
}

/**
 * 404 when the issue has moved to another sprint since the comment was written (rare) and that
 * sprint is gone: read only when the answer depends on it.
 */
async function confirmMovedSprint(caller: Principal, found: store.FoundComment): Promise<void> {
  const sprint = found.path.issueSprintId;
  if (!found.path.sprintUnchecked || sprint === null) return;
  if (!(await store.sprintExists(caller.orgId, store.commentItem.field(found.item, 'projectId'), sprint)))
    throw new NotFoundError('Comment');
}

/**
 * Only the author may change or delete a comment (403 otherwise); a comment the caller cannot see
 * is 404 first. The sprint an issue moved to is left unread for the author: the write checks it
 * inside its transaction.
 */
async function ownComment(caller: Principal, pointer: CommentPointer, action: string): Promise<store.FoundComment> {
  const found = await store.findCommentAt(caller.orgId, pointer);
  if (!found) throw new NotFoundError('Comment');
  if (store.commentItem.field(found.item, 'authorId') !== caller.accountId) {
    await confirmMovedSprint(caller, found);
    throw new ForbiddenError(`Only the author of a comment may ${action} it`);
  }
  return found;
}

/** The pointer of a comment of the caller's organisation: 404 when there is none. */
async function pointerOf(caller: Principal, commentId: number): Promise<CommentPointer> {
  const pointer = await store.readCommentPointer(caller.orgId, commentId);
  if (!pointer) throw new NotFoundError('Comment');
  return pointer;
}

/**
 * A write first tried on what the comment's pointer says alone (the pointer, then the write: 2
 * calls). When its transaction is refused, whatever the reason, nothing was written: the comment is
 * read with its ancestors and the write decided on that, which answers 404, 403 and 412 as it
 * should, at the cost of more calls.
 */
async function fastOrRead<T>(fast: (() => Promise<T>) | undefined, slow: () => Promise<T>): Promise<T> {
  if (fast) {
    try {
      return await fast();
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
    }
  }
  return slow();
}

export async function getComment(caller: Principal, commentId: number): Promise<Comment> {
  return store.toComment((await visibleComment(caller, commentId)).item);
}

/**
 * Changes the caller's comment. Its pointer carries all of the answer but the body, so a change of
 * the body by its author is written on the pointer alone; anything else (no body sent, a pointer
 * written before pointers carried the comment's fields, another caller, a refusal) reads the
 * comment first.
 */
export async function updateComment(caller: Principal, commentId: number, changes: CommentUpdate): Promise<Comment> {
  const pointer = await pointerOf(caller, commentId);
  const { fixed } = pointer;
  const { body } = changes;
  const fast =
    fixed && fixed.authorId === caller.accountId && body !== undefined
      ? () => store.updateCommentAt(caller.orgId, { ...pointer, fixed }, caller.accountId, body)
      : undefined;
  return fastOrRead(fast, async () => {
    const found = await ownComment(caller, pointer, 'update');
    return refusedAs(refusals, () => store.updateComment(caller.orgId, found, caller.accountId, body));
  });
}

/**
 * Moves the caller's comment into the trash (docs/trash.md), on its pointer alone when the pointer
 * carries the whole comment and that is not refused; otherwise the comment is read first (as
 * `updateComment`), and read again when it changed in between.
 */
export async function deleteComment(caller: Principal, commentId: number): Promise<void> {
  // With the organisation's trash retention, in the same one call.
  const { pointer, retentionDays } = await store.readCommentPointerToDelete(caller.orgId, commentId);
  if (!pointer) throw new NotFoundError('Comment');
  const { fixed, copy } = pointer;
  const fast =
    fixed && copy && fixed.authorId === caller.accountId
      ? () => store.deleteCommentAt(caller.orgId, { ...pointer, fixed, copy }, caller.accountId, retentionDays)
      : undefined;
  await fastOrRead(fast, () =>
    rereadOnStale(async () => {
      const found = await ownComment(caller, pointer, 'delete');
      // A comment changed since it was read is refused `STALE`, which passes through: read it again.
      await refusedAs(refusals, () => store.deleteComment(caller.orgId, found, caller.accountId, retentionDays));
    }),
  );
}

/**
 * Brings a trashed comment (`stored`: as it was stored) back whole: the same id, body, author,
 * times and version, counted on its issue again (docs/trash.md). 422 `{error}` when its project,
 * its issue or the sprint the issue is in is gone (an issue in the trash included); 404 when the
 * trash item went meanwhile (restored or purged).
 */
export async function restoreTrashedComment(
  caller: Principal,
  stored: Record<string, unknown>,
  deletedAt: string,
): Promise<Comment> {
  const { id, projectId, issueId, sprintId } = store.commentItem.decode(stored);
  const cannot = (why: string) => new TransitionError(`Comment ${id} cannot come back: ${why}`);
  const meanings = (inSprint: number | null) => ({
    [store.commentRefusals.project]: () => cannot(`its project ${projectId} no longer exists`),
    [store.commentRefusals.sprint]: () => cannot(`sprint ${inSprint}, which its issue ${issueId} is in, no longer exists`),
    [store.commentRefusals.issue]: () => cannot(`its issue ${issueId} no longer exists (restore the issue first)`),
    [store.commentRefusals.comment]: () => new TransitionError(`Comment ${id} exists again`),
    trashed: () => new NotFoundError('Trash item'),
  });
  try {
    // The sprint its issue was in when the comment was last written, as its pointer's writes decide.
    await store.restoreComment(caller.orgId, stored, deletedAt, sprintId);
  } catch (err) {
    // Its project or its issue's sprint in the trash: restore that first.
    if (err instanceof Refused && err.reason === store.commentRefusals.project)
      throw cannot(await projectNotThere(caller.orgId, projectId));
    if (
      err instanceof Refused &&
      err.reason === store.commentRefusals.sprint &&
      sprintId !== null &&
      (await getTrashed(caller.orgId, 'sprint', sprintId))
    ) {
      throw cannot(`sprint ${sprintId}, which its issue ${issueId} is in, is in the trash (restore the sprint first)`);
    }
    if (!(err instanceof Refused) || err.reason !== store.commentRefusals.issue) throw explainRefusal(err, meanings(sprintId));
    // The issue moved to another sprint since, or is gone: one read tells which (refusals only).
    const now = await store.issueSprintNow(caller.orgId, projectId, issueId);
    if (now === undefined || now === sprintId) throw meanings(sprintId).issue();
    await refusedAs(meanings(now), () => store.restoreComment(caller.orgId, stored, deletedAt, now));
  }
  return store.toComment(stored);
}

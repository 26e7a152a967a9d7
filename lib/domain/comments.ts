import { getAccountItem } from '../db/accounts.ts';
import * as store from '../db/comments.ts';
import type { IssueRef } from '../db/comments.ts';
import type { PageRequest } from '../db/list.ts';
import { nextId } from '../db/sequences.ts';
import type { Comment, CommentCreate, CommentUpdate } from '../schemas/comments.ts';
import { ForbiddenError, NotFoundError, UnauthorizedError } from './errors.ts';
import type { Principal } from './principal.ts';
import { refusedAs } from './refusals.ts';

/** What a refused comment write means. */
const refusals = {
  [store.commentRefusals.project]: () => new NotFoundError('Project'),
  [store.commentRefusals.sprint]: () => new NotFoundError('Sprint'),
  [store.commentRefusals.issue]: () => new NotFoundError('Issue'),
  [store.commentRefusals.comment]: () => new NotFoundError('Comment'),
};

export type { IssueRef };

/** The comments of an issue in creation order; the total is the issue's `comments_count`. */
export async function listComments(caller: Principal, ref: IssueRef, page: PageRequest) {
  const { page: result, path } = await store.listComments(caller.orgId, ref, page);
  if (path.missing) throw new NotFoundError(path.missing);
  return { page: result, items: result.items.map(store.toComment), total: path.commentsCount };
}

/** Adds a comment to an issue; its author is the caller's account, the owner of the request's token. */
export async function createComment(caller: Principal, ref: IssueRef, input: CommentCreate): Promise<Comment> {
  const [id, author] = await Promise.all([nextId(caller.orgId, 'comment'), getAccountItem(caller.orgId, caller.accountId)]);
  if (!author) throw new UnauthorizedError('The account of this token no longer exists');
  const fields = { body: input.body, authorId: author.id, authorName: author.name };
  return refusedAs(refusals, () => store.insertComment(caller.orgId, id, ref, fields));
}

/**
 * A comment the caller can see: it exists in the caller's organisation and so do its project, its
 * issue and the issue's current sprint. Deleted ancestors make it 404 at once, before the cascade
 * removes it. `confirmSprint: false` leaves unread the sprint an issue moved to after the comment
 * was written (rare): writes check it inside their transaction instead.
 */
async function visibleComment(caller: Principal, commentId: number, confirmSprint: boolean): Promise<store.FoundComment> {
  const found = await store.findComment(caller.orgId, commentId);
  if (!found) throw new NotFoundError('Comment');
  if (confirmSprint) await confirmMovedSprint(caller, found);
  return found;
}

async function confirmMovedSprint(caller: Principal, found: store.FoundComment): Promise<void> {
  const sprint = found.path.issueSprintId;
  if (!found.path.sprintUnchecked || sprint === null) return;
  if (!(await store.sprintExists(caller.orgId, found.item.project_id, sprint))) throw new NotFoundError('Comment');
}

/** Only the author may change or delete a comment (403 otherwise); a comment the caller cannot see is 404 first. */
async function ownComment(caller: Principal, commentId: number, action: string): Promise<store.FoundComment> {
  const found = await visibleComment(caller, commentId, false);
  if (found.item.author_id !== caller.accountId) {
    await confirmMovedSprint(caller, found);
    throw new ForbiddenError(`Only the author of a comment may ${action} it`);
  }
  return found;
}

export async function getComment(caller: Principal, commentId: number): Promise<Comment> {
  return store.toComment((await visibleComment(caller, commentId, true)).item);
}

export async function updateComment(caller: Principal, commentId: number, changes: CommentUpdate): Promise<Comment> {
  const found = await ownComment(caller, commentId, 'update');
  return refusedAs(refusals, () => store.updateComment(caller.orgId, found, caller.accountId, changes.body));
}

export async function deleteComment(caller: Principal, commentId: number): Promise<void> {
  const found = await ownComment(caller, commentId, 'delete');
  await refusedAs(refusals, () => store.deleteComment(caller.orgId, found, caller.accountId));
}

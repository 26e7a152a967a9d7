import * as z from 'zod';
import { createComment, deleteComment, listComments, updateComment, type IssueRef } from '../../domain/comments.ts';
import type { Principal } from '../../domain/principal.ts';
import { Comment, commentBodyField } from '../../schemas/comments.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { issueRef, locateIssue, type IssueRefArgs } from '../locate.ts';
import { annotations, defineTool, id, type Tool } from '../tool.ts';

const commentId = () => id('Id of the comment (see list_comments).');
const one = { comment: Comment };

/** The issue a comment tool names, wherever it lives (a sprint or the backlog). */
async function commentable(caller: Principal, ref: IssueRefArgs): Promise<IssueRef> {
  const { at, issueId } = await locateIssue(caller, ref);
  return { projectId: at.projectId, sprintId: at.sprintId, issueId };
}

export const commentTools: Tool[] = [
  defineTool(
    'list_comments',
    {
      title: 'List comments',
      description: "List an issue's comments, oldest first, with author and markdown body.",
      input: z.object({ ...issueRef, ...listInput }),
      output: { comments: z.array(Comment), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { limit, cursor, ...ref }) => {
      const at = await commentable(caller, ref);
      const { items, ...info } = await listThrough({ limit, cursor }, (page) => listComments(caller, at, page));
      return { comments: items, ...info };
    },
  ),

  defineTool(
    'add_comment',
    {
      title: 'Comment on an issue',
      description: 'Add a comment (markdown) to an issue. Its author is the account of this token.',
      input: z.object({ ...issueRef, body: commentBodyField().describe('The comment, in markdown.') }),
      output: one,
      annotations: annotations.create,
    },
    async (caller, { body, ...ref }) => ({ comment: await createComment(caller, await commentable(caller, ref), { body }) }),
  ),

  defineTool(
    'edit_comment',
    {
      title: 'Edit a comment',
      description: 'Replace the body of a comment. Only its author may edit it.',
      input: z.object({ comment_id: commentId(), body: commentBodyField().describe('The new comment, in markdown.') }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, args) => ({ comment: await updateComment(caller, args.comment_id, { body: args.body }) }),
  ),

  defineTool(
    'delete_comment',
    {
      title: 'Delete a comment',
      description: 'Permanently delete a comment. Only its author may delete it. Cannot be undone: confirm with the user first.',
      input: z.object({ comment_id: commentId() }),
      output: { deleted: z.literal(true), comment_id: z.number().int() },
      annotations: annotations.delete,
    },
    async (caller, args) => {
      await deleteComment(caller, args.comment_id);
      return { deleted: true as const, comment_id: args.comment_id };
    },
  ),
];

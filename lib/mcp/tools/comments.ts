import * as z from 'zod';
import { createComment, deleteComment, listComments, updateComment, type IssueRef } from '../../services/comments.ts';
import type { Principal } from '../../model/principal.ts';
import { Comment, commentBodyField } from '../../schemas/comments.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { issueRef, issueRefUnlisted as unlisted, onIssueRef, type IssueRefArgs } from '../locate.ts';
import { annotations, defineTool, deleteTool, id, type Tool } from '../tool.ts';

const commentId = () => id();
const one = { comment: Comment };

/** Runs `act` on the issue a comment tool names, wherever it lives (a sprint or the backlog). */
const onCommentable = <T>(caller: Principal, ref: IssueRefArgs, act: (issue: IssueRef) => Promise<T>) =>
  onIssueRef(caller, ref, ({ at, issueId }) => act({ projectId: at.projectId, sprintId: at.sprintId, issueId }));

export const commentTools: Tool[] = [
  defineTool(
    'list_comments',
    {
      description: "An issue's comments, oldest first.",
      input: z.object({ ...issueRef, ...listInput }),
      unlisted,
      output: { comments: z.array(Comment), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { limit, cursor, ...ref }) => {
      const { items, ...info } = await onCommentable(caller, ref, (at) =>
        listThrough({ limit, cursor }, (page) => listComments(caller, at, page)),
      );
      return { comments: items, ...info };
    },
  ),

  defineTool(
    'add_comment',
    {
      description: 'Comment on an issue, as you.',
      input: z.object({ ...issueRef, body: commentBodyField() }),
      unlisted,
      output: one,
      annotations: annotations.create,
    },
    async (caller, { body, ...ref }) => ({
      comment: await onCommentable(caller, ref, (at) => createComment(caller, at, { body })),
    }),
  ),

  defineTool(
    'edit_comment',
    {
      description: "Replace a comment's body (its author only).",
      input: z.object({ comment_id: commentId(), body: commentBodyField() }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, args) => ({ comment: await updateComment(caller, args.comment_id, { body: args.body }) }),
  ),

  deleteTool(
    'delete_comment',
    'comment_id',
    {
      description: 'Delete a comment (its author only).',
      input: z.object({ comment_id: commentId() }),
    },
    async (caller, args) => {
      await deleteComment(caller, args.comment_id);
      return args.comment_id;
    },
  ),
];

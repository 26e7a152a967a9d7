import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, limits, plainText, withinTextBytes, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

/**
 * A comment body: markdown kept exactly as sent (not trimmed), 1..65,535 characters, not blank,
 * multi-line plain text (lib/schemas/common.ts: no control character but tab, newline and CRLF).
 */
export const commentBodyField = () =>
  plainText(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .check(z.minLength(1, { error: "can't be blank", abort: true }))
      .check(z.maxLength(limits.commentBody, { error: `is too long (maximum is ${limits.commentBody} characters)` }))
      .check(z.refine((v) => v.trim().length > 0, { error: "can't be blank", abort: true }))
      .check(z.refine(...withinTextBytes)),
    'multiline',
    { nonBlank: true },
  );

export const CommentCreateFields = meta(z.object({ body: commentBodyField() }, objectError), { id: 'CommentCreate' });
export const CommentUpdateFields = meta(z.object({ body: z.optional(commentBodyField()) }, objectError), { id: 'CommentUpdate' });

export type CommentCreate = z.output<typeof CommentCreateFields>;
export type CommentUpdate = z.output<typeof CommentUpdateFields>;

export const Comment = meta(
  z.object({
    id: z.number().check(z.int()),
    body: z.string(),
    issue_id: z.number().check(z.int()),
    author_id: meta(z.number().check(z.int()), { description: 'The account whose token wrote the comment.' }),
    author_name: z.string(),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Comment' },
);
export type Comment = z.infer<typeof Comment>;

export const CommentCreateBody = wrapped('comment', CommentCreateFields, Comment);
export const CommentUpdateBody = wrapped('comment', CommentUpdateFields, Comment);

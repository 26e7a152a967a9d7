import * as z from 'zod';
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
      .min(1, { error: "can't be blank", abort: true })
      .max(limits.commentBody, { error: `is too long (maximum is ${limits.commentBody} characters)` })
      .refine((v) => v.trim().length > 0, { error: "can't be blank", abort: true })
      .refine(...withinTextBytes),
    'multiline',
    { nonBlank: true },
  );

export const CommentCreateFields = z.object({ body: commentBodyField() }, objectError).meta({ id: 'CommentCreate' });
export const CommentUpdateFields = z.object({ body: commentBodyField().optional() }, objectError).meta({ id: 'CommentUpdate' });

export type CommentCreate = z.output<typeof CommentCreateFields>;
export type CommentUpdate = z.output<typeof CommentUpdateFields>;

export const Comment = z
  .object({
    id: z.number().int(),
    body: z.string(),
    issue_id: z.number().int(),
    author_id: z.number().int().meta({ description: 'The account whose token wrote the comment.' }),
    author_name: z.string(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Comment' });
export type Comment = z.infer<typeof Comment>;

export const CommentCreateBody = wrapped('comment', CommentCreateFields, Comment);
export const CommentUpdateBody = wrapped('comment', CommentUpdateFields, Comment);

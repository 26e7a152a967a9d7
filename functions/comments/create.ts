import { commentSlot, createComment } from '../../lib/services/comments.ts';
import { onIssue } from '../../lib/services/issue-keys.ts';
import { bodySchema } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { issueTarget } from '../../lib/http/issue-target.ts';

/** A comment on an issue, under its sprint's path, the backlog's, or its key's. */
export const handler = idempotentHandler(
  async (req) => {
    const target = issueTarget(req);
    const { comment } = await req.input();
    // The comment's id is taken while a key's pointer is read.
    const slot = commentSlot(req.principal);
    slot.catch(() => undefined); // awaited by the write; a 404 before it leaves it unread
    const made = onIssue(req.principal, target, (p) =>
      createComment(req.principal, { ...p.at, issueId: p.issueId }, comment, slot),
    );
    return { status: 201, body: await made };
  },
  { body: bodySchema(() => import('../../lib/schemas/comments.ts'), 'CommentCreateBody') },
);

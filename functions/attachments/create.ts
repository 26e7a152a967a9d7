import { createAttachment } from '../../lib/services/attachments.ts';
import { bodySchema, issueKeyParam } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

/** Declares a file on the issue of the path (or one of its comments): the pending attachment and its upload form. */
export const handler = idempotentHandler(
  async (req) => {
    const key = issueKeyParam(req);
    const { attachment } = await req.input();
    return { status: 201, body: await createAttachment(req.principal, key, attachment) };
  },
  { body: bodySchema(() => import('../../lib/schemas/attachments.ts'), 'AttachmentCreateBody') },
);

import { deleteAttachment } from '../../lib/services/attachments.ts';
import { issueKeyParam, pathId, routeHandler } from '../../lib/http/stack.ts';

/** Deletes an attachment (its file goes through the cascade). */
export const handler = routeHandler(async (req) => {
  await deleteAttachment(req.principal, issueKeyParam(req), pathId(req, 'attachment_id', 'Attachment'));
  return { status: 204 };
});

import { completeAttachment } from '../../lib/services/attachments.ts';
import { issueKeyParam, pathId, routeHandler } from '../../lib/http/stack.ts';

/** Checks an uploaded file against its declaration (HeadObject) and makes the attachment ready. */
export const handler = routeHandler(async (req) => ({
  status: 200,
  body: await completeAttachment(req.principal, issueKeyParam(req), pathId(req, 'attachment_id', 'Attachment')),
}));

import { downloadUrl, listAttachments } from '../../lib/services/attachments.ts';
import { issueKeyParam, pathId, routeHandler } from '../../lib/http/stack.ts';

/**
 * An issue's attachments, and `GET …/attachments/{id}`: a redirect to a fresh download URL. One
 * function for both reads (the only one, with `complete`, that may read the bucket's objects).
 */
export const handler = routeHandler(async (req) => {
  const key = issueKeyParam(req);
  if (req.params.attachment_id === undefined) return { status: 200, body: await listAttachments(req.principal, key) };
  const url = await downloadUrl(req.principal, key, pathId(req, 'attachment_id', 'Attachment'));
  return { status: 302, headers: { Location: url, 'Cache-Control': 'no-store' } };
});

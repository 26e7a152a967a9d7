import { findIssueByNumber } from '../../lib/services/issue-lookup.ts';
import { NotFoundError } from '../../lib/vocabulary/errors.ts';
import { routeHandler } from '../../lib/http/stack.ts';

const issueKey = /^[A-Za-z0-9]{2,4}-[1-9]\d{0,15}$/;

/** An issue by its key ("APL-42", any case), wherever it lives; 404 for a malformed or unknown key. */
export const handler = routeHandler(async (req) => {
  const key = req.params.issue_key ?? '';
  if (!issueKey.test(key)) throw new NotFoundError(`Issue ${key}`);
  return { status: 200, body: await findIssueByNumber(req.principal, key) };
});

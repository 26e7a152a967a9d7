import { listNotifications } from '../../lib/services/notifications.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request, like the pagination schemas (tools/bench/README.md). */
const schemas = () => import('../../lib/schemas/notifications.ts');

/** The caller's notifications, newest first; `unread=true` and `reason` filter them (docs/notifications.md). */
export const handler = routeHandler(async (req) => {
  const [pr, query] = await Promise.all([pageRequest(req), schemas().then((s) => parseOrThrow(s.InboxQuery, req.query, false))]);
  const { page, items, total } = await listNotifications(req.principal, pr, query);
  const params = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  return pageResult(req, pr, page, items, total, params);
});

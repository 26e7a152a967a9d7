import { getTrashEntry, listTrash } from '../../lib/services/trash.ts';
import { pageRequest, pageResult } from '../../lib/http/pagination.ts';
import { routeHandler } from '../../lib/http/stack.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** Loaded on the first request: zod and the schemas stay out of the cold start. */
const schemas = () => import('../../lib/schemas/trash.ts');

/** `GET /trash`: the organisation's trash, newest deletion first; `GET /trash/{trash_id}`: one item (admins). */
export const handler = routeHandler(async (req) => {
  const id = req.params.trash_id;
  if (id !== undefined) return { status: 200, body: await getTrashEntry(req.principal, id) };
  const { kind } = parseOrThrow((await schemas()).TrashQuery, req.query, false);
  const pr = await pageRequest(req);
  const { page, items } = await listTrash(req.principal, pr, kind);
  // Items past their retention are left out until the TTL removes them: a filtered list, linked by
  // cursor, whose total counts the items up to this page (docs/trash.md).
  const total = (pr.page - 1) * pr.perPage + items.length;
  return pageResult(req, pr, page, items, total, kind === undefined ? {} : { kind });
});

import { restore } from '../../lib/services/trash.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/**
 * `POST /trash/{trash_id}/restore`: the item back whole, with its own id; a sprint or a project
 * 202, its issues following, with its trash item (`Location`) showing the progress.
 */
export const handler = routeHandler(async (req) => {
  const id = req.params.trash_id ?? '';
  const body = await restore(req.principal, id);
  if ('restore' in body) return { status: 202, body, headers: { Location: `/api/v1/trash/${id}` } };
  return { status: 200, body };
});

import { restore } from '../../lib/services/trash.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** `POST /trash/{trash_id}/restore`: the item back whole, with its own id. */
export const handler = routeHandler(async (req) => {
  return { status: 200, body: await restore(req.principal, req.params.trash_id ?? '') };
});

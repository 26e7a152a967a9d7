import { purge } from '../../lib/services/trash.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** `DELETE /trash/{trash_id}`: gone for good (admins). */
export const handler = routeHandler(async (req) => {
  await purge(req.principal, req.params.trash_id ?? '');
  return { status: 204 };
});

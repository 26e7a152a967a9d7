import { getOrganisationSettings } from '../../lib/services/organisation.ts';
import { routeHandler } from '../../lib/http/stack.ts';

/** `GET /organisation`: the caller's organisation and its settings. */
export const handler = routeHandler(async (req) => ({ status: 200, body: await getOrganisationSettings(req.principal) }));

import { updateOrganisation } from '../../lib/services/organisation.ts';
import { bodySchema, routeHandler } from '../../lib/http/stack.ts';

/** `PATCH /organisation` (and its PUT spelling): its settings (admins). */
export const handler = routeHandler(
  async (req) => {
    const { organisation } = await req.input();
    return { status: 200, body: await updateOrganisation(req.principal, organisation) };
  },
  // Its path names no id, yet it is a resource: If-Match names its ETag.
  { body: bodySchema(() => import('../../lib/schemas/organisation.ts'), 'OrganisationUpdateBody'), conditional: true },
);

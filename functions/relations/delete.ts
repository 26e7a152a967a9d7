import { removeRelation, relationIdPattern } from '../../lib/services/relations.ts';
import { NotFoundError } from '../../lib/vocabulary/errors.ts';
import { issueKeyParam, routeHandler } from '../../lib/http/stack.ts';

/** Removes a relation from both of its issues. */
export const handler = routeHandler(async (req) => {
  const key = issueKeyParam(req);
  const id = req.params.relation_id ?? '';
  if (!relationIdPattern.test(id)) throw new NotFoundError('Relation');
  await removeRelation(req.principal, key, id);
  return { status: 204 };
});

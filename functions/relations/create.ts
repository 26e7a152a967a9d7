import { addRelation } from '../../lib/services/relations.ts';
import { bodySchema, issueKeyParam } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';

/** Relates the issue of the path to another issue of the organisation; the other shows the inverse type. */
export const handler = idempotentHandler(
  async (req) => {
    const key = issueKeyParam(req);
    const { relation } = await req.input();
    return { status: 201, body: await addRelation(req.principal, key, relation) };
  },
  { body: bodySchema(() => import('../../lib/schemas/relations.ts'), 'RelationCreateBody') },
);

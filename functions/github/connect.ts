import { connectRepository } from '../../lib/services/github.ts';
import { bodySchema, pathId, routeHandler } from '../../lib/http/stack.ts';

export const handler = routeHandler(
  async (req) => {
    const { github } = await req.input();
    return { status: 200, body: await connectRepository(req.principal, pathId(req, 'project_id', 'Project'), github) };
  },
  // No Idempotency-Key: a new connection's answer carries its secret, which must never be stored for a replay.
  { body: bodySchema(() => import('../../lib/schemas/github.ts'), 'GitHubConnectBody'), secret: true },
);

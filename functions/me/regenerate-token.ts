import { regenerateOwnToken } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';

export const handler = apiHandler(
  async (req) => ({
    status: 201,
    body: { token: await regenerateOwnToken(req.principal) },
  }),
  // The response carries the new token: it must never be stored for a replay.
  { idempotent: false },
);

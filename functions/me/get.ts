import { me } from '../../lib/domain/accounts.ts';
import { apiHandler } from '../../lib/http/handler.ts';

export const handler = apiHandler(async (req) => ({ status: 200, body: await me(req.principal) }));

import { ValidationError } from '../../vocabulary/errors.ts';
import { unknownQueryParameters } from '../strict-query.ts';
import type { StackMiddleware } from './types.ts';

/**
 * 422 `{errors}` naming each query parameter the operation does not declare (lib/http/strict-query.ts).
 * Before the idempotency store and the handler: a refused query writes nothing, keys included.
 */
export function strictQuery(): StackMiddleware {
  return {
    before: (request) => {
      const unknown = unknownQueryParameters(request.event);
      if (unknown.length > 0) throw new ValidationError(unknown);
    },
  };
}

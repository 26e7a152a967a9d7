import { ValidationError } from '../vocabulary/errors.ts';
import { SCOPES, type Scope } from '../model/oauth.ts';
import type { Principal } from '../model/principal.ts';

/**
 * What one `/mcp` connection is offered and allowed (docs/mcp.md: Which tools a connection sees).
 *
 * - An OAuth connection: the scopes granted (`read`, `write`, `delete`), shown and enforced.
 * - An API token: `read` and `write` shown, `delete` shown only with `?delete=true`; every tool stays
 *   callable, its role deciding as on the REST API (the flag only keeps delete tools out of an
 *   agent's sight until someone asks for them).
 * - `?read_only=true`, for either kind: only the read tools, shown and enforced.
 *
 * A tool the caller's role can never use (admin-only) is not shown either (lib/mcp/server.ts).
 */
export interface Connection {
  /** The scopes whose tools `tools/list` shows. */
  shown: readonly Scope[];
  /** The scopes whose tools may be called. */
  allowed: readonly Scope[];
  /** Why a tool outside `allowed` is refused, for the tool error. */
  refusal: (scope: Scope) => string;
}

/** The query flags `/mcp` takes (declared on its route, lib/schemas/mcp.ts). */
export const CONNECTION_FLAGS = ['read_only', 'delete'] as const;

function flag(query: Record<string, string | undefined>, name: (typeof CONNECTION_FLAGS)[number]): boolean {
  const value = query[name];
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw new ValidationError([`${name} must be true or false`]);
}

export function connectionOf(caller: Principal, query: Record<string, string | undefined> = {}): Connection {
  const readOnly = flag(query, 'read_only');
  const optedIn = flag(query, 'delete');
  const within = (scopes: readonly Scope[]) => (readOnly ? scopes.filter((s) => s === 'read') : scopes);
  if (caller.scopes !== undefined) {
    const granted = within(caller.scopes);
    return {
      shown: granted,
      allowed: granted,
      refusal: (scope) =>
        caller.scopes?.includes(scope)
          ? 'This connection is read-only (read_only=true)'
          : `This connection was not granted the "${scope}" scope; connect again and approve it`,
    };
  }
  return {
    shown: within(optedIn ? SCOPES : ['read', 'write']),
    allowed: within(SCOPES),
    refusal: () => 'This connection is read-only (read_only=true)',
  };
}

import type { Role } from '../schemas/accounts.ts';
import { SCOPES, type Scope } from './oauth.ts';

/** Who is calling: resolved by the authorizer from the token, trusted by everything after it. */
export interface Principal {
  orgId: number;
  accountId: number;
  role: Role;
  /** SHA-256 of the token used for this request (identifies the rate-limit bucket). */
  tokenHash: string;
  /**
   * The account's name, carried on its token item (no route renames an account), so that a write
   * that shows it (a comment's `author_name`) need not read the account. Absent for a token issued
   * before tokens carried it: read the account then.
   */
  name?: string | undefined;
  /**
   * What an OAuth access token allows (lib/model/oauth.ts); absent for an API token, which allows
   * whatever the role does. Checked per MCP tool (lib/mcp/tool.ts).
   */
  scopes?: readonly Scope[] | undefined;
  /** When an OAuth access token expires (Unix seconds); API tokens do not. */
  expiresAt?: number | undefined;
}

/** Scopes as stored and carried (space-separated); unknown words are dropped, never widened. */
export const scopesOf = (scope: string): Scope[] => SCOPES.filter((s) => scope.split(' ').includes(s));

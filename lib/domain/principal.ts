import type { Role } from '../schemas/accounts.ts';

/** Who is calling: resolved by the authorizer from the token, trusted by everything after it. */
export interface Principal {
  orgId: number;
  accountId: number;
  role: Role;
  /** SHA-256 of the token used for this request (identifies the rate-limit bucket). */
  tokenHash: string;
}

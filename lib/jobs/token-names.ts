import { accountNames } from '../db/organisation/accounts.ts';
import { nameToken, scanUnnamedTokensPage } from '../db/organisation/tokens.ts';

/**
 * The backfill of token names: the account's name on every token item that has none (tokens issued
 * before token items carried it, whose comments cost a read of the account: lib/services/comments.ts).
 * An operator's command (`tokens:names`, tools/cli/admin.ts) run once after upgrading, and a data
 * migration (lib/migrations) that runs it a step at a time. It reads the token items with a Scan,
 * which no request path does; each read and write is in lib/db/organisation (tokens.ts, accounts.ts).
 */

/** A bounded part of the Scan: from `start` (undefined: the beginning), at most `pages` pages of at most `limit` items read each. */
export interface TokenScanStep {
  start?: Record<string, unknown> | undefined;
  pages: number;
  limit: number;
}

/**
 * Writes the account's name on every token item that has none (those of `orgId`, when given),
 * reading their accounts 100 per BatchGet. No route renames an account, so the name written stays
 * true. Returns how many tokens lacked a name and how many were given one; running it again writes
 * none. With `step`, it reads only that part of the Scan and returns where the next part starts
 * (`next`, undefined at the end).
 */
export async function writeMissingTokenNames(
  orgId?: number,
  step?: TokenScanStep,
): Promise<{ tokens: number; written: number; next?: Record<string, unknown> | undefined }> {
  let tokens = 0;
  let written = 0;
  let start = step?.start;
  for (let pages = step?.pages ?? Infinity; ;) {
    const page = await scanUnnamedTokensPage(orgId, start, step?.limit);
    tokens += page.tokens.length;
    for (let i = 0; i < page.tokens.length; i += 100) {
      const chunk = page.tokens.slice(i, i + 100);
      const names = await accountNames(chunk);
      for (const [n, token] of chunk.entries()) {
        const name = names[n];
        if (name !== undefined && (await nameToken(token, name))) written++;
      }
    }
    start = page.next;
    if (start === undefined || --pages <= 0) break;
  }
  return step ? { tokens, written, next: start } : { tokens, written };
}

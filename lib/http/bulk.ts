import type { BulkOutcome } from '../services/bulk.ts';
import type { Issue } from '../schemas/issues.ts';
import { RESPONSE_BYTE_BUDGET, restItemBytes } from './byte-budget.ts';
import { errorResponse } from './errors.ts';

/**
 * The answer of each item of a bulk request (docs/api.md: Bulk writes): `{status, issue}`, or the
 * status and error body the single route would answer, through the one error mapper.
 */
export function bulkResults(outcomes: BulkOutcome[]) {
  return withinBudget(
    outcomes.map((o) => {
      if (o.ok) return { status: o.status, issue: o.issue };
      const response = errorResponse(o.error);
      return { status: response.statusCode, ...(JSON.parse(response.body) as object) };
    }),
    restItemBytes,
  );
}

/**
 * Results within the response byte budget (lib/http/byte-budget.ts): 100 updated issues with long
 * descriptions would pass Lambda's 6 MB, and the writes are done by then. Once the results so far
 * reach the budget, an issue is answered without its description (`description: null`,
 * `description_omitted: true`: read it with a GET).
 */
export function withinBudget<R extends { issue?: Issue }>(results: R[], cost: (result: R) => number): R[] {
  const trim = (r: R): R => (r.issue ? { ...r, issue: { ...r.issue, description: null }, description_omitted: true } : r);
  // What the results after each one take at least (trimmed): kept free for them.
  const least = results.map((r) => cost(trim(r)) + 1);
  let reserve = least.reduce((a, b) => a + b, 0);
  let bytes = 0;
  return results.map((result, i) => {
    reserve -= least[i]!;
    const full = cost(result) + 1;
    const kept = bytes + full + reserve <= RESPONSE_BYTE_BUDGET ? result : trim(result);
    bytes += kept === result ? full : least[i]!;
    return kept;
  });
}

import type { BulkOutcome } from '../domain/bulk.ts';
import { errorResponse } from './errors.ts';

/**
 * The answer of each item of a bulk request (docs/api.md: Bulk writes): `{status, issue}`, or the
 * status and error body the single route would answer, through the one error mapper.
 */
export function bulkResults(outcomes: BulkOutcome[]) {
  return outcomes.map((o) => {
    if (o.ok) return { status: o.status, issue: o.issue };
    const response = errorResponse(o.error);
    return { status: response.statusCode, ...(JSON.parse(response.body) as object) };
  });
}

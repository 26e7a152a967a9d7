import type { IssueListFilters } from '../schemas/issues.ts';
import { parseOrThrow } from '../schemas/validate.ts';
import type { ApiRequest } from './stack.ts';
import type { ValuesFilter } from '../services/custom-field-filter.ts';

/** Loaded on the first list request, like the pagination schemas (README: Bundles). */
const schemas = () => import('../schemas/issues.ts');

/**
 * The filters of an issue list (`status`, `assignee_id`, `q`, `updated_since`, `priority`, `type`,
 * `due_before`, `due_after`), validated (422 otherwise), and the query parameters to keep in the
 * page's links; both undefined without filters.
 */
export async function issueFilters(req: ApiRequest): Promise<{
  filters: IssueListFilters | undefined;
  params: Record<string, string> | undefined;
  values?: ValuesFilter | undefined;
}> {
  const { IssueListQuery, issueListFilters } = await schemas();
  const query = parseOrThrow(IssueListQuery, req.query, false);
  const filters = issueListFilters(query);
  const params = Object.fromEntries(Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined));
  // `fields`: the search language's custom field terms, loaded only when asked for (422 at once for one it cannot read).
  const values =
    query.fields === undefined
      ? undefined
      : (await import('../services/custom-field-filter.ts')).valuesFilter(query.fields, req.principal.accountId);
  return { filters, params: filters ? params : undefined, values };
}

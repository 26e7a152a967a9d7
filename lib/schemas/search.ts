import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, PaginationQuery } from './common.ts';
import { Issue } from './issues.ts';
import { IssueLabel } from './labels.ts';
import { Condition, SelectionSort } from './selection.ts';
import { selectionLimits } from '../vocabulary/selection.ts';

/**
 * `GET /api/v1/issues?q=` and `POST /api/v1/issues/search` (docs/search.md): a selection of the
 * organisation's issues, as a query string or as its JSON form, and one page of the answer.
 */

export const SearchQuery = z.extend(PaginationQuery, {
  q: meta(z.optional(z.string()), {
    maxLength: selectionLimits.characters,
    description:
      'The query (docs/search.md): terms ANDed, a comma inside a value is OR, `-` or `NOT` negates, `OR` between terms and ' +
      '(parentheses) as in GitHub\'s advanced search (AND binds tighter), bare words and "phrases" match the title, ' +
      '`sort:` orders. Absent or empty: every issue, most recently updated first.',
    example: 'is:open type:bug assignee:@me updated:>-7d',
  }),
});
export type SearchQuery = z.output<typeof SearchQuery>;

/** The JSON form of a selection, with the page asked for: the body of `POST /issues/search`. */
export const SearchBody = closed(
  meta(
    z.object({
      and: z
        .array(Condition)
        .check(z.maxLength(selectionLimits.terms, { error: `must hold at most ${selectionLimits.terms} conditions` })),
      sort: z.optional(SelectionSort),
      per_page: meta(
        z.optional(
          z
            .number({ error: 'must be an integer' })
            .check(z.int({ error: 'must be an integer' }))
            .check(z.minimum(1, { error: 'must be between 1 and 100' })),
        ),
        { description: 'Issues per page (default 25; more than 100 means 100).' },
      ),
      cursor: meta(z.optional(z.string().check(z.maxLength(2048))), {
        description: "The `cursor` of the previous page's `next` link.",
      }),
    }),
    {
      id: 'SearchBody',
      description:
        'A selection in its JSON form (docs/search.md: `{"and": [{"status": {"in": ["todo"]}}, {"points": {"gte": 3}}], "sort": {"field": "updated", "order": "desc"}}`), ' +
        'with `per_page` and the `cursor` of a `next` link.',
    },
  ),
);
export type SearchBody = z.output<typeof SearchBody>;

const issue = Issue.shape;

/**
 * One issue of a search's answer: what its search record holds, labels by their current names. Its
 * fields are `Issue`'s (the same schemas), but for its author, which only a search shows, and its
 * `position`, the order key of the record rather than the 1-based place (and a few shown without
 * the issue's descriptions).
 */
export const SearchIssue = meta(
  z.object({
    id: issue.id,
    project_id: issue.project_id,
    sprint_id: issue.sprint_id,
    issue_number: issue.issue_number,
    source_key: issue.source_key,
    title: issue.title,
    status: issue.status,
    state_id: issue.state_id,
    status_category: issue.status_category,
    allowed_next_states: issue.allowed_next_states,
    story_points: issue.story_points,
    position: meta(z.number().check(z.int()).check(z.minimum(0)), {
      description:
        "The issue's order key in its list (its sprint or the project backlog): a list shows its issues by increasing key. " +
        'Not its 1-based place, which `GET /api/v1/issues/{issue_key}` shows.',
    }),
    assignee_id: issue.assignee_id,
    author_id: meta(z.nullable(z.number().check(z.int())), {
      description: 'The account that created it (null: created before authors were kept).',
    }),
    priority: issue.priority,
    type: issue.type,
    due_date: z.nullable(z.iso.date()),
    parent_id: z.nullable(z.number().check(z.int())),
    labels: z.array(IssueLabel),
    custom_fields: issue.custom_fields,
    blocked: z.boolean(),
    created_at: issue.created_at,
    updated_at: issue.updated_at,
  }),
  {
    id: 'SearchIssue',
    description:
      'An issue found by a search; the whole issue (description, sub-issues summary, place) is `GET /api/v1/issues/{issue_key}`.',
  },
);
/** A search's issue: the issue without what its search record does not hold, plus its author. */
export type SearchIssue = Omit<
  Issue,
  'description' | 'sub_issues_summary' | 'started_at' | 'completed_at' | 'links' | 'watchers'
> & {
  author_id: number | null;
};
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The schema answers exactly that type: this fails to compile when the two drift apart. */
export const searchIssueSchemaIsDerived: Same<z.infer<typeof SearchIssue>, SearchIssue> = true;

import * as z from 'zod';
import { parseSelection } from '../../model/selection.ts';
import { searchIssues } from '../../services/search.ts';
import { filteredPage, listInput } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';
import { SearchIssue } from '../../schemas/search.ts';

/** The search of the whole organisation in the query grammar (docs/search.md), as `GET /api/v1/issues?q=` answers it. */
export const searchTools: Tool[] = [
  defineTool(
    'search_issues',
    {
      description:
        'Issues of all projects matching q: is:open type:bug assignee:@me updated:>-7d label:ui sort:due-asc ' +
        '(also project:, sprint:active, status:, priority:>=high, points:1..5, due:, cf.<key>:, no:assignee, has:pr, -x, OR, ()).',
      input: z.object({
        q: z.string().max(1000),
        ...listInput,
      }),
      output: { issues: z.array(SearchIssue), total: z.number().int(), next_cursor: z.string().nullable() },
      annotations: annotations.read,
    },
    async (caller, { q, limit, cursor }) => {
      // A page looks through at most 1,000 issues: it may hold fewer than `limit`, even none, with a next_cursor.
      const found = await searchIssues(caller, parseSelection(q), { perPage: limit, cursor });
      const page = { items: found.items, nextCursor: found.nextCursor, cursorAfter: found.cursorAfter };
      const { items, ...info } = filteredPage({ page, items: found.items, total: found.matched });
      return { issues: items, ...info };
    },
  ),
];

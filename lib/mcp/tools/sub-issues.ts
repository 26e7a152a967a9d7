import * as z from 'zod';
import { listSubIssues } from '../../services/sub-issues.ts';
import { SubIssue } from '../../schemas/issues.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

/** Sub-issues: a parent is set with `parent_id` on create_issue and update_issue, and filtered on by list_issues and my_issues. */
export const subIssueTools: Tool[] = [
  defineTool(
    'list_sub_issues',
    {
      description: "An issue's sub-issues (issue: its number), oldest first.",
      input: z.object({
        issue: z.string(),
        ...listInput,
      }),
      output: { sub_issues: z.array(SubIssue), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { issue, ...args }) => {
      const { items, ...info } = await listThrough(args, (page) => listSubIssues(caller, issue, page));
      return { sub_issues: items, ...info };
    },
  ),
];

import * as z from 'zod';
import { getWorkspace, WORKSPACE_LIMITS } from '../../services/workspace.ts';
import { IssuePriority, IssueStatus, IssueType } from '../../schemas/issues.ts';
import { Role } from '../../schemas/accounts.ts';
import { limitInput } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

const named = { id: z.number().int(), name: z.string() };
const sprint = z.object({ ...named, start_date: z.string().nullable(), end_date: z.string().nullable() });

/** One call to orient an agent (lib/services/workspace.ts says what, how bounded, at what cost). */
export const workspaceTools: Tool[] = [
  defineTool(
    'get_workspace',
    {
      description: 'Start here: you, projects (prefixes, sprints, labels, states, fields), accounts.',
      input: z.object({
        limit: limitInput(WORKSPACE_LIMITS.projects, WORKSPACE_LIMITS.defaultProjects),
        cursor: z.string().max(4096).optional(),
      }),
      output: {
        me: z.object({ id: z.number().int(), name: z.string().nullable(), role: Role }),
        organisation: z.object({ id: z.number().int(), name: z.string().nullable() }),
        projects: z.array(
          z.object({
            ...named,
            prefix: z.string(),
            active_sprints: z.array(sprint),
            labels: z.array(z.string()),
            labels_count: z.number().int(),
            states: z.array(z.object({ ...named, status: z.string(), category: IssueStatus })),
            fields: z.array(
              z.object({
                key: z.string(),
                name: z.string(),
                type: z.string(),
                required: z.boolean().optional(),
                options: z.array(z.string()).optional(),
              }),
            ),
          }),
        ),
        projects_count: z.number().int(),
        next_cursor: z.string().nullable(),
        accounts: z.array(z.object(named)),
        accounts_count: z.number().int(),
        statuses: z.array(IssueStatus),
        priorities: z.array(IssuePriority),
        types: z.array(IssueType),
      },
      annotations: annotations.read,
      // The instructions say what a list's cursor is.
      unlisted: ['cursor'],
    },
    async (caller, args) => getWorkspace(caller, args),
  ),
];

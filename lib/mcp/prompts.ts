import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ForbiddenError, NotFoundError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import type { Issue } from '../schemas/issues.ts';
import type { Connection } from './connection.ts';
import type { NameResolver } from './resolve.ts';

/**
 * MCP prompts (docs/mcp.md: Resources and prompts): a task with its data already in it, so that
 * the agent starts from the facts rather than from lookups. Both read only (the `read` scope);
 * the agent then acts through the tools, as the person approves.
 *
 * - `plan_sprint` (project): the backlog's first `BACKLOG` issues in order, with the project's
 *   velocity, and how to turn a plan into a sprint;
 * - `sprint_review` (project, sprint: name, id or none for the last completed): the sprint's report.
 */
const BACKLOG = 50;

/** What the prompts read with, loaded on the first prompt (lib/mcp/domain.ts). */
const domain = () => import('./domain.ts');

/** Prompt arguments are strings: an all-digit one is an id. */
const idOrName = (text: string): number | string => (/^\d{1,15}$/.test(text) ? Number(text) : text);

const userText = (description: string, text: string): GetPromptResult => ({
  description,
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

const line = (i: Issue) =>
  `- ${i.issue_number} [${i.type}, ${i.priority}${i.story_points === null ? '' : `, ${i.story_points} pt`}${
    i.labels.length ? `, ${i.labels.map((l) => l.name).join('/')}` : ''
  }${i.blocked ? ', blocked' : ''}] ${i.title}`;

/** What a prompt reads with: the caller, the name resolver, and the check that the connection may read. */
interface PromptScope {
  caller: Principal;
  resolve: NameResolver;
  readable: () => void;
}

export function registerPrompts(server: McpServer, caller: Principal, connection: Connection, resolve: NameResolver) {
  const readable = () => {
    if (!connection.allowed.includes('read')) throw new ForbiddenError(connection.refusal('read'));
  };
  const scope: PromptScope = { caller, resolve, readable };
  registerPlanSprint(server, scope);
  registerSprintReview(server, scope);
}

/** `plan_sprint`: the next sprint, planned from the backlog and the velocity. */
function registerPlanSprint(server: McpServer, { caller, resolve, readable }: PromptScope) {
  server.registerPrompt(
    'plan_sprint',
    {
      title: 'Plan the next sprint',
      description: "Plan a project's next sprint from its backlog and velocity.",
      argsSchema: { project: z.string().describe('Prefix (APL), name or id.') },
    },
    async ({ project }) => {
      readable();
      const { project_id } = await resolve({ project_id: idOrName(project) });
      const { listIssues, getVelocity } = await domain();
      const [backlog, velocity] = await Promise.all([
        listIssues(caller, { projectId: project_id, sprintId: null }, { page: 1, perPage: BACKLOG }),
        getVelocity(caller, project_id, 6),
      ]);
      const average = velocity.average_completed_story_points;
      const lines = backlog.items.map(line).join('\n') || '(the backlog is empty)';
      return userText(
        'Plan the next sprint',
        [
          `Plan the next sprint of project ${project} (project_id ${project_id}).`,
          average === null
            ? 'No sprint has been completed yet: there is no velocity to go by; propose a modest scope.'
            : `Velocity: ${average} story points done per sprint on average over the last ${velocity.sprints.length} completed sprints (committed: ${velocity.average_committed_story_points}).`,
          `Backlog, in priority order (${backlog.items.length} of ${backlog.total} issues):`,
          lines,
          'Propose a sprint goal and the issues to take, about the velocity in story points, in backlog order unless ' +
            'priority, blockers or sub-issues argue otherwise; say what you leave out and why, and flag issues without ' +
            'story points. Once the person agrees: create_sprint, then move_issue for each issue (to_sprint_id: the new ' +
            'sprint), then activate_sprint when they say so.',
        ].join('\n'),
      );
    },
  );
}

/** `sprint_review`: a sprint's review, written from its report. */
function registerSprintReview(server: McpServer, { caller, resolve, readable }: PromptScope) {
  server.registerPrompt(
    'sprint_review',
    {
      title: 'Write a sprint review',
      description: "Write a sprint's review from its report (the last completed sprint by default).",
      argsSchema: {
        project: z.string().describe('Prefix (APL), name or id.'),
        sprint: z.string().optional().describe('Name or id; default: the last completed.'),
      },
    },
    async ({ project, sprint }) => {
      readable();
      const { project_id } = await resolve({ project_id: idOrName(project) });
      const { sprintNames, getSprintReport } = await domain();
      let sprintId: number;
      if (sprint !== undefined && sprint !== '') {
        sprintId = (await resolve({ project_id, sprint_id: idOrName(sprint) })).sprint_id;
      } else {
        const completed = (await sprintNames(caller.orgId, project_id)).filter((s) => s.status === 'completed');
        const last = completed.sort((a, b) => b.id - a.id)[0];
        if (!last) throw new NotFoundError('Completed sprint', 'the project has none yet');
        sprintId = last.id;
      }
      const report = await getSprintReport(caller, project_id, sprintId);
      return userText(
        'Write a sprint review',
        [
          `Write the review of sprint "${report.name}" of project ${project} from its report below (JSON; story points and issue counts).`,
          'Cover: the goal and what was delivered (completed against committed), scope change (added, removed), ' +
            'what was carried over and where, and two or three points for the retrospective. Use get_sprint_report, ' +
            'list_issues or get_issue_activity if a detail is needed. Keep it short, for the team and stakeholders.',
          JSON.stringify(report),
        ].join('\n'),
      );
    },
  );
}

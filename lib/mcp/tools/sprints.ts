import * as z from 'zod';
import { listIssues } from '../../domain/issues.ts';
import type { Principal } from '../../domain/principal.ts';
import {
  activateSprint,
  completeSprint,
  createSprint,
  deleteSprint,
  getSprint,
  listSprints,
  updateSprint,
} from '../../domain/sprints.ts';
import { issueStatuses, type Issue } from '../../schemas/issues.ts';
import { Sprint, SprintCreateFields, SprintStatus, SprintUpdateFields } from '../../schemas/sprints.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, id, type Tool } from '../tool.ts';

const projectId = () => id('Id of the project (see list_projects).');
const sprintId = () => id('Id of the sprint (see list_sprints).');
const sprintAt = { project_id: projectId(), sprint_id: sprintId() };
const one = { sprint: Sprint };

const tally = z.object({ issues: z.number().int(), story_points: z.number().int() });
const SprintSummary = {
  project_id: z.number().int(),
  sprint_id: z.number().int(),
  issues_count: z.number().int(),
  total_story_points: z.number().int(),
  completed_story_points: z.number().int().describe('Story points of done issues.'),
  by_status: z
    .object(Object.fromEntries(issueStatuses.map((s) => [s, tally])) as Record<(typeof issueStatuses)[number], typeof tally>)
    .describe('Issues and story points per issue status.'),
  by_assignee: z
    .array(tally.extend({ assignee_id: z.number().int().nullable(), done_story_points: z.number().int() }))
    .describe('Issues and story points per assignee (null: unassigned), most story points first.'),
  open_issues: z.number().int().describe('Issues not done or cancelled: what completing the sprint returns to the backlog.'),
  unestimated_issues: z.number().int().describe('Issues without story points.'),
  percent_done: z.number().int().describe('Story points done / all story points, in whole percent (0 without points).'),
};

export const sprintTools: Tool[] = [
  defineTool(
    'list_sprints',
    {
      title: 'List sprints',
      description:
        "List a project's sprints, oldest first, with status (planning, active, completed), dates and story point totals. Optionally only those with some statuses.",
      input: z.object({
        project_id: projectId(),
        status: z.array(SprintStatus).min(1).optional().describe('Only sprints with one of these statuses, e.g. ["active"].'),
        ...listInput,
      }),
      output: { sprints: z.array(Sprint), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { project_id, status, ...args }) => {
      const filter = status && ((s: Sprint) => status.includes(s.status));
      const { items, ...info } = await listThrough(args, (page) => listSprints(caller, project_id, page), filter);
      return { sprints: items, ...info };
    },
  ),

  defineTool(
    'get_sprint',
    {
      title: 'Get a sprint',
      description: 'Get one sprint with its status, dates, issue count and story points (total and done).',
      input: z.object(sprintAt),
      output: one,
      annotations: annotations.read,
    },
    async (caller, args) => ({ sprint: await getSprint(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'get_sprint_summary',
    {
      title: 'Sprint summary',
      description:
        'Where a sprint stands: issues and story points by status and by assignee, open and unestimated issues, percent done. Reads every issue of the sprint (see get_sprint for its name, status and dates).',
      input: z.object(sprintAt),
      output: SprintSummary,
      annotations: annotations.read,
    },
    async (caller, args) => summarise(caller, args.project_id, args.sprint_id),
  ),

  defineTool(
    'create_sprint',
    {
      title: 'Create a sprint',
      description:
        'Create a sprint in a project. It starts in `planning`; add issues with create_issue or move_issue, then activate_sprint. Dates are YYYY-MM-DD.',
      input: SprintCreateFields.safeExtend({ project_id: projectId() }),
      output: one,
      annotations: annotations.create,
    },
    async (caller, { project_id, ...input }) => ({ sprint: await createSprint(caller, project_id, input) }),
  ),

  defineTool(
    'update_sprint',
    {
      title: 'Update a sprint',
      description:
        'Change some fields of a sprint (name, description, dates, sprint lead); fields left out keep their value, null clears an optional one. Status changes through activate_sprint and complete_sprint.',
      input: SprintUpdateFields.safeExtend(sprintAt),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { project_id, sprint_id, ...changes }) => ({
      sprint: await updateSprint(caller, project_id, sprint_id, changes),
    }),
  ),

  defineTool(
    'activate_sprint',
    {
      title: 'Activate a sprint',
      description:
        'Start a sprint: planning -> active. Its start_date becomes today if it had none. Fails unless the sprint is in planning.',
      input: z.object(sprintAt),
      output: one,
      annotations: annotations.update,
    },
    async (caller, args) => ({ sprint: await activateSprint(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'complete_sprint',
    {
      title: 'Complete a sprint',
      description:
        'Finish an active sprint: active -> completed, actual_end_date today. Its open issues (backlog, todo, in_progress) go back to the project backlog; done and cancelled ones stay. Fails unless the sprint is active.',
      input: z.object(sprintAt),
      output: one,
      annotations: annotations.update,
    },
    async (caller, args) => ({ sprint: await completeSprint(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'delete_sprint',
    {
      title: 'Delete a sprint',
      description:
        'Permanently delete a sprint with its issues and their comments (to keep issues, move them to the backlog first with move_issue). Admins only. Cannot be undone: confirm with the user first.',
      input: z.object(sprintAt),
      output: { deleted: z.literal(true), sprint_id: z.number().int() },
      annotations: annotations.delete,
    },
    async (caller, args) => {
      await deleteSprint(caller, args.project_id, args.sprint_id);
      return { deleted: true as const, sprint_id: args.sprint_id };
    },
  ),
];

/** Counts from the sprint's issues, read page by page through the domain (which checks the sprint exists). */
async function summarise(caller: Principal, projectId: number, sprintId: number) {
  const issues: Issue[] = [];
  let cursor: string | undefined;
  do {
    const { page, items } = await listIssues(caller, { projectId, sprintId }, { page: 1, perPage: 100, cursor });
    issues.push(...items);
    cursor = page.nextCursor;
  } while (cursor);

  const byStatus = Object.fromEntries(issueStatuses.map((s) => [s, { issues: 0, story_points: 0 }])) as Record<
    Issue['status'],
    { issues: number; story_points: number }
  >;
  const byAssignee = new Map<
    number | null,
    { assignee_id: number | null; issues: number; story_points: number; done_story_points: number }
  >();
  for (const issue of issues) {
    const points = issue.story_points ?? 0;
    byStatus[issue.status].issues++;
    byStatus[issue.status].story_points += points;
    const a = byAssignee.get(issue.assignee_id) ?? {
      assignee_id: issue.assignee_id,
      issues: 0,
      story_points: 0,
      done_story_points: 0,
    };
    a.issues++;
    a.story_points += points;
    if (issue.status === 'done') a.done_story_points += points;
    byAssignee.set(issue.assignee_id, a);
  }
  const total = issues.reduce((sum, i) => sum + (i.story_points ?? 0), 0);
  return {
    project_id: projectId,
    sprint_id: sprintId,
    issues_count: issues.length,
    total_story_points: total,
    completed_story_points: byStatus.done.story_points,
    by_status: byStatus,
    by_assignee: [...byAssignee.values()].sort((x, y) => y.story_points - x.story_points || y.issues - x.issues),
    open_issues: issues.filter((i) => i.status !== 'done' && i.status !== 'cancelled').length,
    unestimated_issues: issues.filter((i) => i.story_points === null).length,
    percent_done: total > 0 ? Math.floor((byStatus.done.story_points * 100) / total) : 0,
  };
}

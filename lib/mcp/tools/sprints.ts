import * as z from 'zod';
import * as zm from 'zod/mini';
import {
  activateSprint,
  completeSprint,
  createSprint,
  deleteSprint,
  getBurndown,
  getSprint,
  getSprintReport,
  getVelocity,
  listSprints,
  sprintSummary,
  updateSprint,
} from '../../services/sprints.ts';
import {
  Burndown,
  Sprint,
  SprintCreateFields,
  SprintReport,
  SprintStatus,
  SprintUpdateFields,
  Velocity,
} from '../../schemas/sprints.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { projectRef, sprintRef } from '../resolve.ts';
import { annotations, defineTool, deleteTool, id, type Tool } from '../tool.ts';

const projectId = () => projectRef();
const sprintId = () => sprintRef();
/** Its description is the instructions' (ids of accounts). */
const lead = { sprint_lead_id: id().nullable().optional() };
const sprintAt = { project_id: projectId(), sprint_id: sprintId() };
const one = { sprint: Sprint };

const tally = z.object({ issues: z.number().int(), story_points: z.number().int() });
const SprintSummary = {
  project_id: z.number().int(),
  sprint_id: z.number().int(),
  status: SprintStatus,
  issues_count: z.number().int(),
  total_story_points: z.number().int(),
  completed_story_points: z.number().int().describe('Story points of done issues.'),
  open: tally.describe('Not done or cancelled: what completing the sprint carries over.'),
  done: tally,
  cancelled: tally,
  percent_done: z.number().int().describe('Done story points / all story points, in whole percent.'),
};

export const sprintTools: Tool[] = [
  defineTool(
    'list_sprints',
    {
      description: "A project's sprints, oldest first.",
      input: z.object({
        project_id: projectId(),
        status: z.array(z.enum(SprintStatus.options)).min(1).optional(),
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
      description: 'One sprint.',
      input: z.object(sprintAt),
      output: one,
      annotations: annotations.read,
    },
    async (caller, args) => ({ sprint: await getSprint(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'get_sprint_summary',
    {
      description: "A sprint's issues and points by status; percent done.",
      input: z.object(sprintAt),
      output: SprintSummary,
      annotations: annotations.read,
    },
    async (caller, args) => sprintSummary(caller, args.project_id, args.sprint_id),
  ),

  defineTool(
    'create_sprint',
    {
      description: 'Create a sprint in planning.',
      input: zm.safeExtend(SprintCreateFields, { ...lead, project_id: projectId() }),
      output: one,
      annotations: annotations.create,
    },
    async (caller, { project_id, ...input }) => ({ sprint: await createSprint(caller, project_id, input) }),
  ),

  defineTool(
    'update_sprint',
    {
      description: "Change a sprint's fields (not its status).",
      input: zm.safeExtend(SprintUpdateFields, { ...lead, ...sprintAt }),
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
      description: 'Start a sprint in planning (start_date: today if unset).',
      input: z.object(sprintAt),
      output: one,
      annotations: annotations.update,
    },
    async (caller, args) => ({ sprint: await activateSprint(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'complete_sprint',
    {
      description: 'Complete an active sprint; open issues go to the backlog or carry_over_sprint_id.',
      input: z.object({
        ...sprintAt,
        carry_over_sprint_id: sprintRef().nullable().optional(),
      }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { project_id, sprint_id, carry_over_sprint_id }) => ({
      sprint: await completeSprint(caller, project_id, sprint_id, { carry_over: { sprint_id: carry_over_sprint_id ?? null } }),
    }),
  ),

  defineTool(
    'get_sprint_report',
    {
      description: "A completed sprint's report: committed, added, removed, done, carried over.",
      input: z.object(sprintAt),
      output: { report: SprintReport },
      annotations: annotations.read,
    },
    async (caller, args) => ({ report: await getSprintReport(caller, args.project_id, args.sprint_id) }),
  ),

  defineTool(
    'get_velocity',
    {
      description: "Committed and done points of a project's last completed sprints (default 6).",
      input: z.object({
        project_id: projectId(),
        sprints: z.number().int().min(1).max(50).optional(),
      }),
      output: Velocity.shape,
      annotations: annotations.read,
    },
    async (caller, args) => getVelocity(caller, args.project_id, args.sprints ?? 6),
  ),

  defineTool(
    'get_burndown',
    {
      description: "A started sprint's open points each day, with the ideal line.",
      input: z.object(sprintAt),
      output: Burndown.shape,
      annotations: annotations.read,
    },
    async (caller, args) => getBurndown(caller, args.project_id, args.sprint_id),
  ),

  deleteTool(
    'delete_sprint',
    'sprint_id',
    {
      description: 'Delete a sprint and its issues (move_issue keeps them).',
      input: z.object(sprintAt),
      adminOnly: true,
    },
    async (caller, args) => {
      await deleteSprint(caller, args.project_id, args.sprint_id);
      return args.sprint_id;
    },
  ),
];

import * as z from 'zod';
import { listIssueActivity } from '../../domain/activity.ts';
import { Activity } from '../../schemas/activity.ts';
import { createIssue, deleteIssue, getIssue, listIssues, updateIssue } from '../../domain/issues.ts';
import { listMyIssues } from '../../domain/my-issues.ts';
import { Issue, IssueCreateFields, IssueStatus, IssueUpdateFields } from '../../schemas/issues.ts';
import { filteredPage, listInfo, listInput, listThrough } from '../list.ts';
import { issueRef, locateIssue } from '../locate.ts';
import { annotations, defineTool, id, type Tool } from '../tool.ts';

const projectId = () => id('Id of the project (see list_projects).');
const one = { issue: Issue };
const place = () =>
  z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .describe('Place in the list, from 1 (the top); a number past the end means last.');

export const issueTools: Tool[] = [
  defineTool(
    'list_issues',
    {
      title: 'List issues',
      description:
        'List the issues of a sprint, or of the project backlog (sprint_id null), in list order (position 1..n). With filters, each call looks through the next 1,000 issues and returns the matches: follow next_cursor until it is null.',
      input: z.object({
        project_id: projectId(),
        sprint_id: id('The sprint whose issues to list, or null for the project backlog.').nullable(),
        status: z
          .array(IssueStatus)
          .min(1)
          .optional()
          .describe('Only issues with one of these statuses, e.g. ["todo", "in_progress"].'),
        assignee_id: id('Only issues assigned to this account; null for unassigned issues.').nullable().optional(),
        q: z.string().min(1).max(255).optional().describe('Only issues whose title contains this text (any case).'),
        updated_since: z.iso.datetime({ offset: true }).optional().describe('Only issues updated at or after this date-time.'),
        ...listInput,
      }),
      output: {
        issues: z.array(Issue),
        ...listInfo,
        total: z
          .number()
          .int()
          .describe('Issues in the list; with filters, the matches found so far (all once next_cursor is null).'),
      },
      annotations: annotations.read,
    },
    async (caller, { project_id, sprint_id, status, assignee_id, q, updated_since, ...args }) => {
      const at = { projectId: project_id, sprintId: sprint_id };
      const filters =
        status || assignee_id !== undefined || q !== undefined || updated_since !== undefined
          ? { status, assigneeId: assignee_id, q, updatedSince: updated_since && new Date(updated_since).toISOString() }
          : undefined;
      if (!filters) {
        const { items, ...info } = await listThrough(args, (page) => listIssues(caller, at, page));
        return { issues: items, ...info };
      }
      // A filtered page's cursor carries the places and matches before it: passed through as is.
      const { items, ...info } = filteredPage(
        await listIssues(caller, at, { page: 1, perPage: args.limit, cursor: args.cursor }, filters),
      );
      return { issues: items, ...info };
    },
  ),

  defineTool(
    'my_issues',
    {
      title: 'My issues',
      description:
        'The caller\'s assigned issues across all projects, most recently updated first. Use it for "what am I working on".',
      input: z.object({
        status: z.array(IssueStatus).min(1).optional().describe('Only issues with one of these statuses.'),
        ...listInput,
      }),
      output: { issues: z.array(Issue), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { status, ...args }) => {
      if (!status) {
        const { items, ...info } = await listThrough(args, (page) => listMyIssues(caller, page));
        return { issues: items, ...info };
      }
      const { items, ...info } = filteredPage(
        await listMyIssues(caller, { page: 1, perPage: args.limit, cursor: args.cursor }, status),
      );
      return { issues: items, ...info };
    },
  ),

  defineTool(
    'get_issue',
    {
      title: 'Get an issue',
      description:
        'Get one issue by its number ("APL-12"), or by project_id and issue_id: title, markdown description, status, story points, assignee, sprint.',
      input: z.object(issueRef),
      output: one,
      annotations: annotations.read,
    },
    async (caller, ref) => {
      const located = await locateIssue(caller, ref);
      return { issue: located.found ?? (await getIssue(caller, located.at, located.issueId)) };
    },
  ),

  defineTool(
    'get_issue_activity',
    {
      title: 'Get the activity of an issue',
      description:
        'Who changed what on an issue, oldest first: its creation, each changed field with from and to, and comments added, edited and deleted, with the acting account and time.',
      input: z.object({ ...issueRef, ...listInput }),
      output: { activity: z.array(Activity), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { limit, cursor, ...ref }) => {
      const { at, issueId } = await locateIssue(caller, ref);
      const where = { ...at, issueId };
      const { items, ...info } = await listThrough({ limit, cursor }, (page) => listIssueActivity(caller, where, page));
      return { activity: items, ...info };
    },
  ),

  defineTool(
    'create_issue',
    {
      title: 'Create an issue',
      description:
        'Create an issue at the end of a sprint (sprint_id) or of the project backlog (sprint_id null or left out). Default status: todo in a sprint, backlog in the backlog. The result carries its number (PREFIX-n).',
      input: z.object({
        project_id: projectId(),
        sprint_id: id('The sprint to create the issue in; null or left out for the project backlog.').nullable().optional(),
        ...IssueCreateFields.shape,
      }),
      output: one,
      annotations: annotations.create,
    },
    async (caller, { project_id, sprint_id, ...input }) => ({
      issue: await createIssue(caller, { projectId: project_id, sprintId: sprint_id ?? null }, input),
    }),
  ),

  defineTool(
    'update_issue',
    {
      title: 'Update an issue',
      description:
        'Change some fields of an issue: title, description (markdown), status, story_points, assignee_id. Fields left out keep their value; null clears an optional one. Entering in_progress sets started_at; entering done or cancelled sets completed_at. To move it use move_issue, to reorder reorder_issue.',
      input: z.object({ ...issueRef, ...IssueUpdateFields.omit({ sprint_id: true, position: true }).shape }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { issue_number, project_id, issue_id, sprint_id, ...changes }) => {
      const { at, issueId } = await locateIssue(caller, { issue_number, project_id, issue_id, sprint_id });
      return { issue: await updateIssue(caller, at, issueId, changes) };
    },
  ),

  defineTool(
    'move_issue',
    {
      title: 'Move an issue',
      description:
        'Move an issue to another sprint of its project (to_sprint_id), or to the project backlog (to_sprint_id null). It goes to the end of that list unless position says where.',
      input: z.object({
        ...issueRef,
        to_sprint_id: id('The sprint to move the issue into; null for the project backlog.').nullable(),
        position: place().optional(),
      }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { to_sprint_id, position, ...ref }) => {
      const { at, issueId } = await locateIssue(caller, ref);
      return { issue: await updateIssue(caller, at, issueId, { sprint_id: to_sprint_id, position }) };
    },
  ),

  defineTool(
    'reorder_issue',
    {
      title: 'Reorder an issue',
      description: 'Put an issue at another place within its sprint or backlog: position 1 is the top; the others shift.',
      input: z.object({ ...issueRef, position: place() }),
      output: one,
      annotations: annotations.update,
    },
    async (caller, { position, ...ref }) => {
      const { at, issueId } = await locateIssue(caller, ref);
      return { issue: await updateIssue(caller, at, issueId, { position }) };
    },
  ),

  defineTool(
    'delete_issue',
    {
      title: 'Delete an issue',
      description:
        'Permanently delete an issue and its comments. Cannot be undone: confirm with the user first (to shelve an issue, set its status to cancelled or move it to the backlog).',
      input: z.object(issueRef),
      output: { deleted: z.literal(true), issue_id: z.number().int() },
      annotations: annotations.delete,
    },
    async (caller, ref) => {
      const { at, issueId } = await locateIssue(caller, ref);
      await deleteIssue(caller, at, issueId);
      return { deleted: true as const, issue_id: issueId };
    },
  ),
];

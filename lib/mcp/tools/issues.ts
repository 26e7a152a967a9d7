import * as z from 'zod';
import * as zm from 'zod/mini';
import { listIssueActivity } from '../../services/activity.ts';
import { Activity } from '../../schemas/activity.ts';
import { createIssue, deleteIssue, getIssue, listIssues, updateIssue } from '../../services/issues.ts';
import { listMyIssues } from '../../services/my-issues.ts';
import { linksOfIssue } from '../../services/github-links.ts';
import { IssueLink } from '../../schemas/github.ts';
import { Issue, IssueCreateFields, IssuePriority, IssueStatus, IssueType, IssueUpdateFields } from '../../schemas/issues.ts';
import { IssueLabelsField } from '../../schemas/labels.ts';
import { meta } from '../../schemas/zod.ts';
import { ValidationError } from '../../vocabulary/errors.ts';
import { filteredPage, listInfo, listInput, listThrough } from '../list.ts';
import { issueRef, issueRefUnlisted as unlisted, onIssueRef } from '../locate.ts';
import { accountRef, projectRef, sprintRef } from '../resolve.ts';
import { annotations, defineTool, deleteTool, id, type Tool } from '../tool.ts';

const projectId = () => projectRef();
const one = { issue: Issue };
/**
 * Filters on priority, type and due date, as the REST lists take them (both due bounds inclusive;
 * an issue without a due date matches neither). Undescribed: the tools list pays for every byte.
 */
const classification = {
  priority: z.array(IssuePriority).min(1).optional(),
  type: z.array(IssueType).min(1).optional(),
  due_before: z.iso.date().optional(),
  due_after: z.iso.date().optional(),
};
type Classification = { [K in keyof typeof classification]?: z.output<(typeof classification)[K]> };
const classificationFilters = ({ priority, type, due_before, due_after }: Classification) =>
  priority || type || due_before !== undefined || due_after !== undefined
    ? { priority, type, dueBefore: due_before, dueAfter: due_after }
    : undefined;

/** A REST field without its description, which the instructions give once. */
const undescribed = <T extends zm.ZodMiniType>(schema: T): T => meta(schema, { description: undefined });
/**
 * The labels filter: names (any case); an issue must carry all of them. What `labels` means, here
 * and in writes, is said once in the server's instructions (lib/mcp/server.ts), as are `status`,
 * `q` and `description` (Markdown: the REST field's description, left out of the tools' schemas).
 */
const labelNames = () => z.array(z.string().trim().min(1).max(50)).min(1).max(20).optional();
/** An issue's labels as create_issue and update_issue take them (the REST field, described in the instructions). */
const labelRefs = () => z.optional(undescribed(IssueLabelsField()));
/**
 * A status as a write names it: a state of the issue's project by name (unique in a project, so
 * the tools take no `state_id`), or a category. Which
 * names the project has is the write's to check (a 422 listing them, lib/model/workflow.ts), as
 * the REST routes do once they have read the project (lib/http/project-statuses.ts).
 */
const stateName = () => z.string().trim().min(1).max(50).optional();
/** A place in a list: what it means (1 the top, past the end last) is said once in the instructions. */
const place = () => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const issueTools: Tool[] = [
  defineTool(
    'list_issues',
    {
      description: "A sprint's or the backlog's issues in order; a filter looks through 1,000.",
      input: z.object({
        project_id: projectId(),
        sprint_id: sprintRef().nullable(),
        status: z.array(IssueStatus).min(1).optional(),
        assignee_id: accountRef().nullable().optional(),
        parent_id: id().nullable().optional(),
        q: z.string().min(1).max(255).optional(),
        updated_since: z.iso.datetime({ offset: true }).optional(),
        ...classification,
        labels: labelNames(),
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
    async (
      caller,
      {
        project_id,
        sprint_id,
        status,
        assignee_id,
        parent_id,
        q,
        updated_since,
        priority,
        type,
        due_before,
        due_after,
        labels,
        ...args
      },
    ) => {
      const at = { projectId: project_id, sprintId: sprint_id };
      const classified = classificationFilters({ priority, type, due_before, due_after });
      const filters =
        status ||
        assignee_id !== undefined ||
        parent_id !== undefined ||
        q !== undefined ||
        updated_since !== undefined ||
        classified ||
        labels
          ? {
              status,
              assigneeId: assignee_id,
              parentId: parent_id,
              q,
              updatedSince: updated_since && new Date(updated_since).toISOString(),
              ...classified,
              labels,
            }
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
      description: 'Issues assigned to you, latest update first.',
      input: z.object({
        status: z.array(IssueStatus).min(1).optional(),
        ...classification,
        labels: labelNames(),
        ...listInput,
      }),
      output: { issues: z.array(Issue), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { status, priority, type, due_before, due_after, labels, ...args }) => {
      const classified = classificationFilters({ priority, type, due_before, due_after });
      const filters = status || classified || labels ? { status, ...classified, labels } : undefined;
      if (!filters) {
        const { items, ...info } = await listThrough(args, (page) => listMyIssues(caller, page));
        return { issues: items, ...info };
      }
      const { items, ...info } = filteredPage(
        await listMyIssues(caller, { page: 1, perPage: args.limit, cursor: args.cursor }, filters),
      );
      return { issues: items, ...info };
    },
  ),

  defineTool(
    'get_issue',
    {
      description: 'One issue and its links.',
      input: z.object(issueRef),
      unlisted,
      output: { ...one, links: meta(zm.array(IssueLink), { description: 'Its links to GitHub, the latest changed first.' }) },
      versioned: 'issue',
      annotations: annotations.read,
    },
    async (caller, ref) => {
      const issue = await onIssueRef(
        caller,
        ref,
        async (located) => located.found ?? getIssue(caller, located.at, located.issueId, located.position),
      );
      return { issue, links: await linksOfIssue(caller, issue) };
    },
  ),

  defineTool(
    'get_issue_activity',
    {
      description: "An issue's history, oldest first: changes (who, from, to), comments.",
      input: z.object({ ...issueRef, ...listInput }),
      unlisted,
      output: { activity: z.array(Activity), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { limit, cursor, ...ref }) => {
      const { items, ...info } = await onIssueRef(caller, ref, ({ at, issueId }) =>
        listThrough({ limit, cursor }, (page) => listIssueActivity(caller, { ...at, issueId }, page)),
      );
      return { activity: items, ...info };
    },
  ),

  defineTool(
    'create_issue',
    {
      description: 'Create an issue at the end of a sprint or the backlog.',
      input: z.object({
        project_id: projectId(),
        sprint_id: sprintRef().nullable().optional(),
        ...zm.omit(IssueCreateFields, { state_id: true }).shape,
        description: undescribed(IssueCreateFields.shape.description),
        custom_fields: undescribed(IssueCreateFields.shape.custom_fields),
        status: stateName(),
        assignee_id: accountRef().nullable().optional(),
        labels: labelRefs(),
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
      description: "Change an issue's fields.",
      input: z.object({
        ...issueRef,
        ...zm.omit(IssueUpdateFields, { sprint_id: true, position: true, state_id: true }).shape,
        description: undescribed(IssueUpdateFields.shape.description),
        custom_fields: undescribed(IssueUpdateFields.shape.custom_fields),
        status: stateName(),
        assignee_id: accountRef().nullable().optional(),
        labels: labelRefs(),
      }),
      unlisted,
      output: one,
      annotations: annotations.update,
    },
    async (caller, { issue_number, project_id, issue_id, sprint_id, ...changes }) => {
      const ref = { issue_number, project_id, issue_id, sprint_id };
      return { issue: await onIssueRef(caller, ref, ({ at, issueId }) => updateIssue(caller, at, issueId, changes)) };
    },
  ),

  defineTool(
    'move_issue',
    {
      description: 'Move an issue to a sprint or the backlog (null), or to position in its list (default: its end).',
      input: z.object({
        ...issueRef,
        to_sprint_id: sprintRef().nullable().optional(),
        position: place().optional(),
      }),
      unlisted,
      output: one,
      annotations: annotations.update,
    },
    async (caller, { to_sprint_id, position, ...ref }) => {
      if (to_sprint_id === undefined && position === undefined) {
        throw new ValidationError(['to_sprint_id or position is required: where the issue goes']);
      }
      const to = to_sprint_id === undefined ? { position } : { sprint_id: to_sprint_id, position };
      return { issue: await onIssueRef(caller, ref, ({ at, issueId }) => updateIssue(caller, at, issueId, to)) };
    },
  ),

  deleteTool(
    'delete_issue',
    'issue_id',
    {
      description: 'Delete an issue and its comments.',
      input: z.object(issueRef),
      unlisted,
    },
    async (caller, ref) => {
      return onIssueRef(caller, ref, async ({ at, issueId }) => {
        await deleteIssue(caller, at, issueId);
        return issueId;
      });
    },
  ),
];

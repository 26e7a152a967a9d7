import * as z from 'zod';
import { dateTime, descriptionField, idField, integer, limits, nameField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const issueStatuses = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'] as const;
export const IssueStatus = z
  .enum(issueStatuses, { error: `must be one of: ${issueStatuses.join(', ')}` })
  .meta({ id: 'IssueStatus' });
export type IssueStatus = z.infer<typeof IssueStatus>;

const storyPoints = () =>
  z
    .number({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer or null') })
    .int({ error: 'must be an integer' })
    .min(0, { error: `must be between 0 and ${limits.storyPoints}` })
    .max(limits.storyPoints, { error: `must be between 0 and ${limits.storyPoints}` })
    .nullable();

const issueFields = {
  description: descriptionField().optional().meta({ description: 'Markdown.' }),
  status: IssueStatus.optional(),
  story_points: storyPoints().optional(),
  assignee_id: idField().nullable().optional().meta({ description: 'An account of the organisation.' }),
  // Described on the objects (IssueCreate, IssueUpdate), not here: the MCP tools list these fields.
  parent_id: idField().nullable().optional(),
};

export const IssueCreateFields = z.object({ title: nameField(), ...issueFields }, objectError).meta({
  id: 'IssueCreate',
  description:
    'Default status: `todo` in a sprint, `backlog` in the project backlog. The issue is appended at the end. ' +
    '`parent_id`: another issue of the same project (any list), or null; no cycle, at most 5 levels, at most 100 sub-issues per parent.',
});

export const IssueUpdateFields = z
  .object(
    {
      title: nameField().optional(),
      ...issueFields,
      position: integer()
        .min(1, { error: 'must be 1 or more' })
        .max(Number.MAX_SAFE_INTEGER, { error: 'is out of range' })
        .optional()
        .meta({
          description:
            'Place (1-based) to put the issue at in its list (or in the list `sprint_id` moves it to): ' +
            'the others shift by one; larger than the list means last. Its own place leaves it where it is. ' +
            'The same number a read shows.',
        }),
      sprint_id: idField().nullable().optional().meta({
        description:
          'Moves the issue to that sprint of the project (at its end unless `position` says where), or to the backlog with null.',
      }),
    },
    objectError,
  )
  .meta({
    id: 'IssueUpdate',
    description:
      '`parent_id`: another issue of the same project (any list), or null; no cycle, at most 5 levels deep counting ' +
      "the issue's own sub-issues, at most 100 sub-issues per parent.",
  });

export const IssueCreateBody = wrapped('issue', IssueCreateFields);
export const IssueUpdateBody = wrapped('issue', IssueUpdateFields);
export type IssueCreate = z.output<typeof IssueCreateFields>;
export type IssueUpdate = z.output<typeof IssueUpdateFields>;

export const SubIssuesSummary = z
  .object({
    total: z.number().int(),
    done: z.number().int(),
    story_points: z.number().int(),
    completed_story_points: z.number().int(),
  })
  .meta({
    id: 'SubIssuesSummary',
    description:
      "The issue's sub-issues (direct children): how many, how many done, their story points and those of the done ones. " +
      'Kept exact by the transactions that change a child; zeros for an issue without sub-issues.',
  });
export type SubIssuesSummary = z.infer<typeof SubIssuesSummary>;

export const Issue = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    sprint_id: z.number().int().nullable().meta({ description: 'null for an issue of the project backlog.' }),
    issue_number: z.string().meta({ example: 'SPR-42' }),
    title: z.string(),
    description: z.string().nullable(),
    status: IssueStatus,
    story_points: z.number().int().nullable(),
    position: z.number().int().min(1).meta({
      description: 'Place (1-based) of the issue in its sprint or in the project backlog: the lists read 1..n, no gaps.',
    }),
    assignee_id: z.number().int().nullable(),
    parent_id: z.number().int().nullable().meta({ description: 'The parent issue (same project), or null.' }),
    sub_issues_summary: SubIssuesSummary,
    started_at: dateTime().nullable(),
    completed_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Issue' });
export type Issue = z.infer<typeof Issue>;

export const SubIssue = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    sprint_id: z.number().int().nullable().meta({ description: 'null for an issue of the project backlog.' }),
    parent_id: z.number().int(),
    issue_number: z.string().meta({ example: 'SPR-43' }),
    title: z.string(),
    status: IssueStatus,
    story_points: z.number().int().nullable(),
    assignee_id: z.number().int().nullable(),
  })
  .meta({
    id: 'SubIssue',
    description: 'A sub-issue as its parent lists it; the whole issue is `GET /issues/{issue_number}`.',
  });
export type SubIssue = z.infer<typeof SubIssue>;

const statusList = new RegExp(`^(${issueStatuses.join('|')})(,(${issueStatuses.join('|')}))*$`);

/** Filters of the issue lists (sprint issues, backlog), combined with AND. */
export const IssueListQuery = z.object({
  status: z
    .string()
    .regex(statusList, { error: `must be one or more of ${issueStatuses.join(', ')}, separated by commas` })
    .optional()
    .meta({ description: 'Only issues with one of these statuses, comma-separated: `todo,in_progress`.' }),
  assignee_id: z
    .string()
    .regex(/^(none|[1-9]\d{0,15})$/, { error: 'must be an account id, or none' })
    .optional()
    .meta({ description: 'Only issues assigned to this account; `none` for unassigned issues.' }),
  parent_id: z
    .string()
    .regex(/^(none|[1-9]\d{0,15})$/, { error: 'must be an issue id, or none' })
    .optional()
    .meta({ description: 'Only sub-issues of this issue (its id); `none` for issues without a parent.' }),
  q: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(limits.name, { error: `must be at most ${limits.name} characters` })
    .optional()
    .meta({ description: 'Only issues whose title contains this text (case-insensitive).' }),
  updated_since: z.iso
    .datetime({ offset: true, error: 'must be a date-time such as 2026-11-21T09:30:00Z' })
    .optional()
    .meta({ description: 'Only issues updated at or after this date-time.' }),
});
export type IssueListQuery = z.output<typeof IssueListQuery>;

/** The filters as the domain takes them. */
export interface IssueListFilters {
  status?: IssueStatus[] | undefined;
  /** An account id, or null for unassigned issues. */
  assigneeId?: number | null | undefined;
  /** A parent issue's id, or null for issues without a parent. */
  parentId?: number | null | undefined;
  q?: string | undefined;
  /** ISO date-time (UTC, as stored). */
  updatedSince?: string | undefined;
}

/** Validated query parameters to filters; undefined when none is given. */
export function issueListFilters(query: IssueListQuery): IssueListFilters | undefined {
  const filters: IssueListFilters = {
    status: query.status === undefined ? undefined : (query.status.split(',') as IssueStatus[]),
    assigneeId: query.assignee_id === undefined ? undefined : query.assignee_id === 'none' ? null : Number(query.assignee_id),
    parentId: query.parent_id === undefined ? undefined : query.parent_id === 'none' ? null : Number(query.parent_id),
    q: query.q,
    updatedSince: query.updated_since === undefined ? undefined : new Date(query.updated_since).toISOString(),
  };
  return Object.values(filters).some((v) => v !== undefined) ? filters : undefined;
}

/** Query parameters of `GET /me/issues`. */
export const MyIssuesQuery = IssueListQuery.pick({ status: true, parent_id: true });
export type MyIssuesQuery = z.output<typeof MyIssuesQuery>;

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
};

export const IssueCreateFields = z.object({ title: nameField(), ...issueFields }, objectError).meta({
  id: 'IssueCreate',
  description: 'Default status: `todo` in a sprint, `backlog` in the project backlog. The issue is appended at the end.',
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
  .meta({ id: 'IssueUpdate' });

export const IssueCreateBody = wrapped('issue', IssueCreateFields);
export const IssueUpdateBody = wrapped('issue', IssueUpdateFields);
export type IssueCreate = z.output<typeof IssueCreateFields>;
export type IssueUpdate = z.output<typeof IssueUpdateFields>;

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
    started_at: dateTime().nullable(),
    completed_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
    blocked: z.boolean().meta({
      description: 'True while a `blocked_by` relation names an issue that is not done or cancelled (GET …/relations for which).',
    }),
  })
  .meta({ id: 'Issue' });
export type Issue = z.infer<typeof Issue>;

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
  q?: string | undefined;
  /** ISO date-time (UTC, as stored). */
  updatedSince?: string | undefined;
}

/** Validated query parameters to filters; undefined when none is given. */
export function issueListFilters(query: IssueListQuery): IssueListFilters | undefined {
  const filters: IssueListFilters = {
    status: query.status === undefined ? undefined : (query.status.split(',') as IssueStatus[]),
    assigneeId: query.assignee_id === undefined ? undefined : query.assignee_id === 'none' ? null : Number(query.assignee_id),
    q: query.q,
    updatedSince: query.updated_since === undefined ? undefined : new Date(query.updated_since).toISOString(),
  };
  return Object.values(filters).some((v) => v !== undefined) ? filters : undefined;
}

/** Query parameters of `GET /me/issues`. */
export const MyIssuesQuery = IssueListQuery.pick({ status: true });
export type MyIssuesQuery = z.output<typeof MyIssuesQuery>;

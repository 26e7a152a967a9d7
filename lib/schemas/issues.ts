import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, descriptionField, idField, integer, limits, nameField, wrapped } from './common.ts';
import { IssueLinksSummary } from './github.ts';
import { IssueWatchers } from './notifications.ts';
import { IssueLabel, IssueLabelsField, labelFilter, labelFilterNames } from './labels.ts';
import { CustomFieldsInput, CustomFieldValues, customFieldsFilter } from './custom-fields.ts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { issuePriorities, issueStatuses, issueTypes } from '../vocabulary/values.ts';
import { STATUS_REFUSED, statusKey } from '../vocabulary/workflow.ts';

export { issuePriorities, issueStatuses, issueTypes };

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const IssueStatus = meta(z.enum(issueStatuses, { error: `must be one of: ${issueStatuses.join(', ')}` }), {
  id: 'IssueStatus',
});
export type IssueStatus = z.infer<typeof IssueStatus>;

/**
 * The statuses a write may name in the project it writes to (its states' `status` keys and the five
 * categories), while its body is validated again after the first pass refused a status that is no
 * category (lib/http/stack.ts reads the project's workflow only then): without it, the categories.
 */
export const workflowStatuses = new AsyncLocalStorage<readonly string[]>();

/**
 * The status a write asks for: a state of the project's workflow by name (any case, spaces or
 * punctuation: "In review", `in_review`), or a category's name (that category's first state).
 */
export const IssueStatusName = meta(
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string (a state or category name)') })
    .check(z.trim())
    .check(
      z.superRefine((value, ctx) => {
        const known = workflowStatuses.getStore() ?? issueStatuses;
        if (!known.includes(statusKey(value))) ctx.addIssue({ code: 'custom', message: `${STATUS_REFUSED}${known.join(', ')}` });
      }),
    ),
  {
    id: 'IssueStatusName',
    description: "A state's name (`In review`), or a category's (its first state).",
  },
);

const storyPoints = () =>
  z.nullable(
    z
      .number({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be an integer or null') })
      .check(z.int({ error: 'must be an integer' }))
      .check(z.minimum(0, { error: `must be between 0 and ${limits.storyPoints}` }))
      .check(z.maximum(limits.storyPoints, { error: `must be between 0 and ${limits.storyPoints}` })),
  );

export const IssuePriority = meta(z.enum(issuePriorities, { error: `must be one of: ${issuePriorities.join(', ')}` }), {
  id: 'IssuePriority',
});
export type IssuePriority = z.infer<typeof IssuePriority>;

export const IssueType = meta(z.enum(issueTypes, { error: `must be one of: ${issueTypes.join(', ')}` }), { id: 'IssueType' });
export type IssueType = z.infer<typeof IssueType>;

/** A calendar date, `YYYY-MM-DD`, that exists (2026-02-30 does not). */
const calendarDate = () =>
  z.iso.date({
    error: (iss) =>
      iss.input === undefined ? 'is required' : 'must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)',
  });

const issueFields = {
  description: meta(z.optional(descriptionField()), { description: 'Markdown.' }),
  status: z.optional(IssueStatusName),
  // Described on the objects (IssueCreate, IssueUpdate): the MCP tools list these fields.
  state_id: z.optional(z.nullable(idField())),
  story_points: z.optional(storyPoints()),
  assignee_id: meta(z.optional(z.nullable(idField())), { description: 'An account of the organisation.' }),
  // Their defaults are said once, on IssueCreate: the MCP tools list these fields, where every byte counts.
  priority: z.optional(IssuePriority),
  type: z.optional(IssueType),
  due_date: z.optional(z.nullable(calendarDate())),
  // Described on the objects (IssueCreate, IssueUpdate), not here: the MCP tools list these fields.
  parent_id: z.optional(z.nullable(idField())),
  labels: z.optional(IssueLabelsField()),
  custom_fields: z.optional(CustomFieldsInput()),
};

export const IssueCreateFields = meta(z.object({ title: nameField(), ...issueFields }, objectError), {
  id: 'IssueCreate',
  description:
    'Default status: `todo` in a sprint, `backlog` in the project backlog (`state_id` names a state instead); default priority `none`, type `task`, ' +
    '`due_date` null (a day, `YYYY-MM-DD`). The issue is appended at the end. ' +
    '`parent_id`: another issue of the same project (any list), or null; no cycle, at most 5 levels, at most 100 sub-issues per parent.',
});

export const IssueUpdateFields = meta(
  z.object(
    {
      title: z.optional(nameField()),
      ...issueFields,
      position: meta(
        z.optional(
          integer()
            .check(z.minimum(1, { error: 'must be 1 or more' }))
            .check(z.maximum(Number.MAX_SAFE_INTEGER, { error: 'is out of range' })),
        ),
        {
          description:
            'Place (1-based) to put the issue at in its list (or in the list `sprint_id` moves it to): ' +
            'the others shift by one; larger than the list means last. Its own place leaves it where it is. ' +
            'The same number a read shows.',
        },
      ),
      sprint_id: meta(z.optional(z.nullable(idField())), {
        description:
          'Moves the issue to that sprint of the project (at its end unless `position` says where), or to the backlog with null.',
      }),
    },
    objectError,
  ),
  {
    id: 'IssueUpdate',
    description:
      '`parent_id`: another issue of the same project (any list), or null; no cycle, at most 5 levels deep counting ' +
      "the issue's own sub-issues, at most 100 sub-issues per parent.",
  },
);

export type IssueCreate = z.output<typeof IssueCreateFields>;
export type IssueUpdate = z.output<typeof IssueUpdateFields>;

/** The key an imported issue had in its source (docs/import-export.md), or null. */
export const sourceKeyField = () =>
  meta(z.nullable(z.string()), {
    description:
      'The key the issue had in the tracker it was imported from (a Jira key `DI-127`, `owner/repo#12` for GitHub), kept as it was; ' +
      'null for an issue created here. A search for the key as text finds the issue (docs/search.md).',
    example: 'DI-127',
  });

export const SubIssuesSummary = meta(
  z.object({
    total: z.number().check(z.int()),
    done: z.number().check(z.int()),
    story_points: z.number().check(z.int()),
    completed_story_points: z.number().check(z.int()),
  }),
  {
    id: 'SubIssuesSummary',
    description:
      "The issue's sub-issues (direct children): how many, how many done, their story points and those of the done ones. " +
      'Kept exact by the transactions that change a child; zeros for an issue without sub-issues.',
  },
);
export type SubIssuesSummary = z.infer<typeof SubIssuesSummary>;

export const Issue = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    sprint_id: meta(z.nullable(z.number().check(z.int())), { description: 'null for an issue of the project backlog.' }),
    issue_number: meta(z.string(), { example: 'SPR-42' }),
    source_key: sourceKeyField(),
    title: z.string(),
    description: z.nullable(z.string()),
    status: meta(z.string(), {
      example: 'in_progress',
      description:
        "Its workflow state's name in snake_case: on a project whose states were never changed, one of `backlog`, `todo`, `in_progress`, `done`, `cancelled`.",
    }),
    state_id: meta(z.nullable(z.number().check(z.int())), {
      description: 'Its workflow state (null only on a project whose workflow is not made yet).',
    }),
    status_category: IssueStatus,
    allowed_next_states: meta(z.array(z.string()), {
      description:
        "The states (as `status` names) the issue may move to now under its project's transition rules (docs/workflows.md); every other state when there are none.",
    }),
    story_points: z.nullable(z.number().check(z.int())),
    position: meta(z.number().check(z.int()).check(z.minimum(1)), {
      description: 'Place (1-based) of the issue in its sprint or in the project backlog: the lists read 1..n, no gaps.',
    }),
    assignee_id: z.nullable(z.number().check(z.int())),
    priority: IssuePriority,
    type: IssueType,
    due_date: meta(z.nullable(z.iso.date()), { description: 'A day (`YYYY-MM-DD`), or null.' }),
    parent_id: meta(z.nullable(z.number().check(z.int())), { description: 'The parent issue (same project), or null.' }),
    sub_issues_summary: SubIssuesSummary,
    labels: meta(z.array(IssueLabel), { description: "The issue's labels, by name, in the catalogue's current spelling." }),
    custom_fields: CustomFieldValues,
    started_at: z.nullable(dateTime()),
    completed_at: z.nullable(dateTime()),
    created_at: dateTime(),
    updated_at: dateTime(),
    blocked: meta(z.boolean(), {
      description: 'True while a `blocked_by` relation names an issue that is not done or cancelled (GET …/relations for which).',
    }),
    links: IssueLinksSummary,
    watchers: IssueWatchers,
  }),
  { id: 'Issue' },
);
export type Issue = z.infer<typeof Issue>;

/** The fields of the REST bodies: `labels` also as the issue answers them (lib/schemas/labels.ts). */
const answeredLabels = { labels: z.optional(IssueLabelsField({ answered: true })) };
export const IssueCreateBodyFields = z.safeExtend(IssueCreateFields, answeredLabels);
export const IssueUpdateBodyFields = z.safeExtend(IssueUpdateFields, answeredLabels);
export const IssueCreateBody = wrapped('issue', IssueCreateBodyFields, Issue, IssueCreateFields);
export const IssueUpdateBody = wrapped('issue', IssueUpdateBodyFields, Issue, IssueUpdateFields);

export const SubIssue = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    sprint_id: meta(z.nullable(z.number().check(z.int())), { description: 'null for an issue of the project backlog.' }),
    parent_id: z.number().check(z.int()),
    issue_number: meta(z.string(), { example: 'SPR-43' }),
    title: z.string(),
    status: IssueStatus,
    story_points: z.nullable(z.number().check(z.int())),
    assignee_id: z.nullable(z.number().check(z.int())),
  }),
  {
    id: 'SubIssue',
    description: 'A sub-issue as its parent lists it; the whole issue is `GET /issues/{issue_number}`.',
  },
);
export type SubIssue = z.infer<typeof SubIssue>;

/** A comma-separated list of one or more of `values`. */
const listOf = (values: readonly string[]) => new RegExp(`^(${values.join('|')})(,(${values.join('|')}))*$`);
const statusList = listOf(issueStatuses);

/** A date filter: a day that exists, `YYYY-MM-DD`. */
const dateFilter = (description: string) =>
  meta(z.optional(z.iso.date({ error: 'must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)' })), { description });

/** Filters of the issue lists (sprint issues, backlog), combined with AND. */
export const IssueListQuery = z.object({
  status: meta(
    z.optional(
      z.string().check(z.regex(statusList, { error: `must be one or more of ${issueStatuses.join(', ')}, separated by commas` })),
    ),
    { description: 'Only issues with one of these statuses, comma-separated: `todo,in_progress`.' },
  ),
  assignee_id: meta(
    z.optional(z.string().check(z.regex(/^(none|[1-9]\d{0,15})$/, { error: 'must be an account id, or none' }))),
    { description: 'Only issues assigned to this account; `none` for unassigned issues.' },
  ),
  parent_id: meta(z.optional(z.string().check(z.regex(/^(none|[1-9]\d{0,15})$/, { error: 'must be an issue id, or none' }))), {
    description: 'Only sub-issues of this issue (its id); `none` for issues without a parent.',
  }),
  q: meta(
    z.optional(
      z
        .string()
        .check(z.minLength(1, { error: 'must not be empty' }))
        .check(z.maxLength(limits.name, { error: `must be at most ${limits.name} characters` })),
    ),
    { description: 'Only issues whose title contains this text (case-insensitive).' },
  ),
  updated_since: meta(z.optional(z.iso.datetime({ offset: true, error: 'must be a date-time such as 2026-11-21T09:30:00Z' })), {
    description: 'Only issues updated at or after this date-time.',
  }),
  priority: meta(
    z.optional(
      z.string().check(
        z.regex(listOf(issuePriorities), {
          error: `must be one or more of ${issuePriorities.join(', ')}, separated by commas`,
        }),
      ),
    ),
    { description: 'Only issues with one of these priorities, comma-separated: `high,urgent`.' },
  ),
  type: meta(
    z.optional(
      z
        .string()
        .check(z.regex(listOf(issueTypes), { error: `must be one or more of ${issueTypes.join(', ')}, separated by commas` })),
    ),
    { description: 'Only issues of one of these types, comma-separated: `bug,story`.' },
  ),
  due_before: dateFilter(
    'Only issues due on or before this day (inclusive), `YYYY-MM-DD`. Issues without a due date never match.',
  ),
  due_after: dateFilter('Only issues due on or after this day (inclusive), `YYYY-MM-DD`. Issues without a due date never match.'),
  labels: labelFilter(),
  fields: customFieldsFilter(
    'Only issues whose custom fields match these terms of the search language (docs/custom-fields.md): `cf.severity:high cf.estimate:>3`, with `has:cf.<key>`, `-`, `OR` and parentheses.',
  ),
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
  priority?: IssuePriority[] | undefined;
  type?: IssueType[] | undefined;
  /** Due on or before this day (`YYYY-MM-DD`); issues without a due date never match. */
  dueBefore?: string | undefined;
  /** Due on or after this day (`YYYY-MM-DD`); issues without a due date never match. */
  dueAfter?: string | undefined;
  /** Label names (any case): an issue must carry all of them. */
  labels?: string[] | undefined;
  /** Terms of the search language on custom fields only (`cf.severity:high`). */
  fields?: string | undefined;
}

/** Validated query parameters to filters; undefined when none is given. */
export function issueListFilters(query: IssueListQuery): IssueListFilters | undefined {
  const filters: IssueListFilters = {
    status: query.status === undefined ? undefined : (query.status.split(',') as IssueStatus[]),
    assigneeId: query.assignee_id === undefined ? undefined : query.assignee_id === 'none' ? null : Number(query.assignee_id),
    parentId: query.parent_id === undefined ? undefined : query.parent_id === 'none' ? null : Number(query.parent_id),
    q: query.q,
    updatedSince: query.updated_since === undefined ? undefined : new Date(query.updated_since).toISOString(),
    ...issueFieldFilters(query),
    labels: query.labels === undefined ? undefined : labelFilterNames(query.labels),
    fields: query.fields,
  };
  return Object.values(filters).some((v) => v !== undefined) ? filters : undefined;
}

/** The filters on priority, type and due date, from validated query parameters. */
function issueFieldFilters(
  query: Pick<IssueListQuery, 'priority' | 'type' | 'due_before' | 'due_after'>,
): Pick<IssueListFilters, 'priority' | 'type' | 'dueBefore' | 'dueAfter'> {
  return {
    priority: query.priority === undefined ? undefined : (query.priority.split(',') as IssuePriority[]),
    type: query.type === undefined ? undefined : (query.type.split(',') as IssueType[]),
    dueBefore: query.due_before,
    dueAfter: query.due_after,
  };
}

/** Query parameters of `GET /me/issues`. */
export const MyIssuesQuery = z.pick(IssueListQuery, {
  status: true,
  priority: true,
  type: true,
  due_before: true,
  due_after: true,
  parent_id: true,
  labels: true,
});
export type MyIssuesQuery = z.output<typeof MyIssuesQuery>;

/** Validated query parameters of `GET /me/issues` to filters; undefined when none is given. */
export function myIssuesFilters(query: MyIssuesQuery): Omit<IssueListFilters, 'assigneeId' | 'q' | 'updatedSince'> | undefined {
  return issueListFilters(query);
}

/** Where an issue is addressed: in a sprint of a project, or (`sprintId: null`) in its backlog. */
export interface IssueLocation {
  projectId: number;
  sprintId: number | null;
}

import * as z from 'zod';
import { dateTime, integer, plainText, queryInteger, wrapped } from './common.ts';
import { requiredFields, stateCategories, stateLimits } from '../vocabulary/workflow.ts';

export { stateCategories, stateLimits } from '../vocabulary/workflow.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});

export const StateCategory = z.enum(stateCategories, { error: `must be one of: ${stateCategories.join(', ')}` }).meta({
  id: 'StateCategory',
  description:
    'One of five fixed categories: `backlog`, `todo` (unstarted), `in_progress` (started), `done` (completed), `cancelled`. ' +
    'Statistics, reports and filters read the category.',
});

/** A state's name: trimmed, 1..50 characters, one line; unique in its project ignoring case, spaces and punctuation. */
const stateName = () =>
  plainText(
    z
      .string(typed('a string'))
      .trim()
      .min(1, { error: "can't be blank" })
      .max(stateLimits.name, { error: `is too long (maximum is ${stateLimits.name} characters)` }),
    'line',
    { nonBlank: true },
  );

const stateColor = () =>
  z
    .string(typed('a colour such as #f59e0b'))
    .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour such as #f59e0b (#rrggbb)' })
    .transform((v) => v.toLowerCase())
    .meta({ example: '#f59e0b' });

const stateOrder = () =>
  integer()
    .min(0, { error: `must be between 0 and ${stateLimits.order}` })
    .max(stateLimits.order, { error: `must be between 0 and ${stateLimits.order}` });

const wipLimit = () =>
  integer()
    .min(1, { error: `must be between 1 and ${stateLimits.wipLimit}` })
    .max(stateLimits.wipLimit, { error: `must be between 1 and ${stateLimits.wipLimit}` })
    .nullable();

const ruleFields = {
  allowed_next_state_ids: z
    .array(integer().min(1, { error: 'must hold state ids' }), typed('an array of state ids or null'))
    .max(stateLimits.perProject, { error: `may list at most ${stateLimits.perProject} states` })
    .nullable()
    .optional()
    .meta({ description: 'Transition rule: the states an issue in this state may move to; null (the default): any.' }),
  required_fields: z
    .array(z.enum(requiredFields, { error: `must be one of: ${requiredFields.join(', ')}` }), typed('an array of field names'))
    .optional()
    .meta({ description: 'Transition rule: fields an issue must have set (not null) to enter this state. Default none.' }),
  refuse_blocked: z
    .boolean(typed('true or false'))
    .optional()
    .meta({ description: 'Transition rule: a blocked issue may not enter this state (set it on `done` states). Default false.' }),
};

export const StateCreateFields = z
  .object(
    {
      name: stateName(),
      category: StateCategory,
      color: stateColor().optional().meta({ description: "Default: the category's colour." }),
      order: stateOrder()
        .optional()
        .meta({ description: "Board order (states sort by it, then by id). Default: right after the category's last state." }),
      wip_limit: wipLimit()
        .optional()
        .meta({ description: 'Issues a column should hold at most, per sprint or in the backlog; null: none.' }),
      ...ruleFields,
    },
    objectError,
  )
  .meta({ id: 'StateCreate' });

export const StateUpdateFields = z
  .object(
    {
      name: stateName().optional(),
      color: stateColor().optional(),
      order: stateOrder().optional(),
      wip_limit: wipLimit().optional(),
      ...ruleFields,
    },
    objectError,
  )
  .meta({
    id: 'StateUpdate',
    description: "A state's category never changes: create a state in the other category and delete this one, moving its issues.",
  });

export type StateCreate = z.output<typeof StateCreateFields>;
export type StateUpdate = z.output<typeof StateUpdateFields>;

export const State = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    name: z.string().meta({ example: 'In review' }),
    status: z.string().meta({
      example: 'in_review',
      description:
        "What an issue in this state answers as `status`: the name in snake_case (a new project's states answer the five seed statuses).",
    }),
    category: StateCategory,
    color: z.string().meta({ example: '#f59e0b', description: '`#rrggbb`, lower case.' }),
    order: z.number().int(),
    wip_limit: z.number().int().nullable(),
    allowed_next_state_ids: z.array(z.number().int()).nullable(),
    required_fields: z.array(z.enum(requiredFields)),
    refuse_blocked: z.boolean(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'State' });
export type State = z.infer<typeof State>;

/** The whole workflow, in board order. */
export const StateList = z.array(State).meta({ id: 'StateList' });

export const StateCreateBody = wrapped('state', StateCreateFields, State);
export const StateUpdateBody = wrapped('state', StateUpdateFields, State);

export const StateDeleteQuery = z.object({
  move_to: queryInteger((n) =>
    n.min(1, { error: 'must be a state id' }).max(Number.MAX_SAFE_INTEGER, { error: 'must be a state id' }),
  )
    .optional()
    .meta({ description: "The state the deleted state's issues move to (required while it has issues)." }),
});

/** An issue as a board shows it in its column. */
export const BoardIssue = z
  .object({
    id: z.number().int(),
    issue_number: z.string(),
    title: z.string(),
    status: z.string(),
    story_points: z.number().int().nullable(),
    assignee_id: z.number().int().nullable(),
    priority: z.string(),
    type: z.string(),
    position: z.number().int().min(1).meta({ description: 'Its place (1-based) in its list, as the list shows it.' }),
  })
  .meta({ id: 'BoardIssue' });

export const BoardColumn = z
  .object({
    state: State.pick({ id: true, name: true, status: true, category: true, color: true }),
    count: z.number().int().meta({ description: 'Issues of the list in this state (exact: kept by every write).' }),
    story_points: z.number().int(),
    wip_limit: z.number().int().nullable(),
    exceeded: z.boolean().meta({ description: 'More issues than the WIP limit.' }),
    issues: z.array(BoardIssue).meta({ description: "The column's first issues, in list order (at most `per_column`)." }),
  })
  .meta({ id: 'BoardColumn' });

export const Board = z
  .object({
    project_id: z.number().int(),
    sprint_id: z.number().int().nullable().meta({ description: 'null for the backlog board.' }),
    columns: z.array(BoardColumn).meta({ description: 'One per state, in board order.' }),
    complete: z.boolean().meta({
      description:
        "Whether `issues` were read from the whole list (false past one read's worth of issues, several thousand: the counts stay exact).",
    }),
  })
  .meta({ id: 'Board' });
export type Board = z.infer<typeof Board>;

export const BoardQuery = z.object({
  per_column: queryInteger((n) =>
    n.min(1, { error: 'must be between 1 and 100' }).max(100, { error: 'must be between 1 and 100' }),
  )
    .default(10)
    .meta({ description: 'Issues shown per column, 1..100, default 10.' }),
});

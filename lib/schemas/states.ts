import * as z from 'zod/mini';
import { customFieldsFilter } from './custom-fields.ts';
import { meta } from './zod.ts';
import { dateTime, integer, plainText, queryInteger, wrapped } from './common.ts';
import { requiredFields, stateCategories, stateLimits } from '../vocabulary/workflow.ts';

export { stateCategories, stateLimits } from '../vocabulary/workflow.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});

export const StateCategory = meta(z.enum(stateCategories, { error: `must be one of: ${stateCategories.join(', ')}` }), {
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
      .check(z.trim())
      .check(z.minLength(1, { error: "can't be blank" }))
      .check(z.maxLength(stateLimits.name, { error: `is too long (maximum is ${stateLimits.name} characters)` })),
    'line',
    { nonBlank: true },
  );

const stateColor = () =>
  meta(
    z.pipe(
      z
        .string(typed('a colour such as #f59e0b'))
        .check(z.regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour such as #f59e0b (#rrggbb)' })),
      z.transform((v) => v.toLowerCase()),
    ),
    { example: '#f59e0b' },
  );

const stateOrder = () =>
  integer()
    .check(z.minimum(0, { error: `must be between 0 and ${stateLimits.order}` }))
    .check(z.maximum(stateLimits.order, { error: `must be between 0 and ${stateLimits.order}` }));

const wipLimit = () =>
  z.nullable(
    integer()
      .check(z.minimum(1, { error: `must be between 1 and ${stateLimits.wipLimit}` }))
      .check(z.maximum(stateLimits.wipLimit, { error: `must be between 1 and ${stateLimits.wipLimit}` })),
  );

const ruleFields = {
  allowed_next_state_ids: meta(
    z.optional(
      z.nullable(
        z
          .array(integer().check(z.minimum(1, { error: 'must hold state ids' })), typed('an array of state ids or null'))
          .check(z.maxLength(stateLimits.perProject, { error: `may list at most ${stateLimits.perProject} states` })),
      ),
    ),
    { description: 'Transition rule: the states an issue in this state may move to; null (the default): any.' },
  ),
  required_fields: meta(
    z.optional(
      z.array(
        z.enum(requiredFields, { error: `must be one of: ${requiredFields.join(', ')}` }),
        typed('an array of field names'),
      ),
    ),
    { description: 'Transition rule: fields an issue must have set (not null) to enter this state. Default none.' },
  ),
  refuse_blocked: meta(z.optional(z.boolean(typed('true or false'))), {
    description: 'Transition rule: a blocked issue may not enter this state (set it on `done` states). Default false.',
  }),
};

export const StateCreateFields = meta(
  z.object(
    {
      name: stateName(),
      category: StateCategory,
      color: meta(z.optional(stateColor()), { description: "Default: the category's colour." }),
      order: meta(z.optional(stateOrder()), {
        description: "Board order (states sort by it, then by id). Default: right after the category's last state.",
      }),
      wip_limit: meta(z.optional(wipLimit()), {
        description: 'Issues a column should hold at most, per sprint or in the backlog; null: none.',
      }),
      ...ruleFields,
    },
    objectError,
  ),
  { id: 'StateCreate' },
);

export const StateUpdateFields = meta(
  z.object(
    {
      name: z.optional(stateName()),
      color: z.optional(stateColor()),
      order: z.optional(stateOrder()),
      wip_limit: z.optional(wipLimit()),
      ...ruleFields,
    },
    objectError,
  ),
  {
    id: 'StateUpdate',
    description: "A state's category never changes: create a state in the other category and delete this one, moving its issues.",
  },
);

export type StateCreate = z.output<typeof StateCreateFields>;
export type StateUpdate = z.output<typeof StateUpdateFields>;

export const State = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    name: meta(z.string(), { example: 'In review' }),
    status: meta(z.string(), {
      example: 'in_review',
      description:
        "What an issue in this state answers as `status`: the name in snake_case (a new project's states answer the five seed statuses).",
    }),
    category: StateCategory,
    color: meta(z.string(), { example: '#f59e0b', description: '`#rrggbb`, lower case.' }),
    order: z.number().check(z.int()),
    wip_limit: z.nullable(z.number().check(z.int())),
    allowed_next_state_ids: z.nullable(z.array(z.number().check(z.int()))),
    required_fields: z.array(z.enum(requiredFields)),
    refuse_blocked: z.boolean(),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'State' },
);
export type State = z.infer<typeof State>;

/** The whole workflow, in board order. */
export const StateList = meta(z.array(State), { id: 'StateList' });

export const StateCreateBody = wrapped('state', StateCreateFields, State);
export const StateUpdateBody = wrapped('state', StateUpdateFields, State);

export const StateDeleteQuery = z.object({
  move_to: meta(
    z.optional(
      queryInteger((n) =>
        n
          .check(z.minimum(1, { error: 'must be a state id' }))
          .check(z.maximum(Number.MAX_SAFE_INTEGER, { error: 'must be a state id' })),
      ),
    ),
    { description: "The state the deleted state's issues move to (required while it has issues)." },
  ),
});

/** An issue as a board shows it in its column. */
export const BoardIssue = meta(
  z.object({
    id: z.number().check(z.int()),
    issue_number: z.string(),
    title: z.string(),
    status: z.string(),
    story_points: z.nullable(z.number().check(z.int())),
    assignee_id: z.nullable(z.number().check(z.int())),
    priority: z.string(),
    type: z.string(),
    position: meta(z.number().check(z.int()).check(z.minimum(1)), {
      description: 'Its place (1-based) in its list, as the list shows it.',
    }),
  }),
  { id: 'BoardIssue' },
);

export const BoardColumn = meta(
  z.object({
    state: z.pick(State, { id: true, name: true, status: true, category: true, color: true }),
    count: meta(z.number().check(z.int()), { description: 'Issues of the list in this state (exact: kept by every write).' }),
    story_points: z.number().check(z.int()),
    wip_limit: z.nullable(z.number().check(z.int())),
    exceeded: meta(z.boolean(), { description: 'More issues than the WIP limit.' }),
    issues: meta(z.array(BoardIssue), { description: "The column's first issues, in list order (at most `per_column`)." }),
  }),
  { id: 'BoardColumn' },
);

export const Board = meta(
  z.object({
    project_id: z.number().check(z.int()),
    sprint_id: meta(z.nullable(z.number().check(z.int())), { description: 'null for the backlog board.' }),
    columns: meta(z.array(BoardColumn), { description: 'One per state, in board order.' }),
    complete: meta(z.boolean(), {
      description:
        "Whether `issues` were read from the whole list (false past one read's worth of issues, several thousand: the counts stay exact).",
    }),
  }),
  { id: 'Board' },
);
export type Board = z.infer<typeof Board>;

export const BoardQuery = z.object({
  per_column: meta(
    z._default(
      queryInteger((n) =>
        n
          .check(z.minimum(1, { error: 'must be between 1 and 100' }))
          .check(z.maximum(100, { error: 'must be between 1 and 100' })),
      ),
      10,
    ),
    { description: 'Issues shown per column, 1..100, default 10.' },
  ),
  fields: customFieldsFilter(
    'Only issues whose custom fields match these search terms (`cf.severity:high`, docs/custom-fields.md); each column then counts the matching issues among those read (`complete` says whether that is the whole list).',
  ),
});

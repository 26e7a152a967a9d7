import * as z from 'zod';
import { dateField, dateTime, descriptionField, idField, nameField, queryInt, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const SprintStatus = z.enum(['planning', 'active', 'completing', 'completed']).meta({
  id: 'SprintStatus',
  description:
    '`completing`: a completion has started and is being finished (its open issues are on their way to the carry-over target); ' +
    'issue writes in the sprint answer 409 until it is `completed`, and any completion request on it finishes it. See docs/sprint-outcomes.md.',
});
export type SprintStatus = z.infer<typeof SprintStatus>;

export { endBeforeStartMessage } from './messages.ts';

/** Both dates sent (and not null): they must be in order. One of them alone is checked by the domain. */
const datesInOrder = (v: { start_date?: string | null | undefined; end_date?: string | null | undefined }) =>
  !v.start_date || !v.end_date || v.end_date >= v.start_date;

const sprintFields = {
  description: descriptionField().optional(),
  start_date: dateField().nullable().optional(),
  end_date: dateField().nullable().optional(),
  sprint_lead_id: idField().nullable().optional().meta({ description: 'An account of the organisation.' }),
};

export const SprintCreateFields = z
  .object({ name: nameField(), ...sprintFields }, objectError)
  .refine(datesInOrder, { error: 'must be on or after start_date', path: ['end_date'] })
  .meta({ id: 'SprintCreate' });

export const SprintUpdateFields = z
  .object({ name: nameField().optional(), ...sprintFields }, objectError)
  .refine(datesInOrder, { error: 'must be on or after start_date', path: ['end_date'] })
  .meta({ id: 'SprintUpdate' });

export const SprintCreateBody = wrapped('sprint', SprintCreateFields);
export const SprintUpdateBody = wrapped('sprint', SprintUpdateFields);
export type SprintCreate = z.output<typeof SprintCreateFields>;
export type SprintUpdate = z.output<typeof SprintUpdateFields>;

const tally = (what: string) =>
  z.object({ issues: z.number().int(), story_points: z.number().int() }).meta({ description: what });

/** What a sprint was, frozen when it is completed (docs/sprint-outcomes.md). */
export const SprintReport = z
  .object({
    sprint_id: z.number().int(),
    name: z.string().meta({ description: 'The name of the sprint when it was completed.' }),
    start_date: z.string().nullable().meta({ format: 'date' }),
    end_date: z.string().nullable().meta({ format: 'date', description: 'The planned end.' }),
    activated_at: dateTime().nullable(),
    completed_at: dateTime(),
    actual_end_date: z.string().meta({ format: 'date' }),
    committed: tally('In the sprint when it was activated.'),
    added: tally('Moved or created into the sprint after its activation (points at the time).'),
    removed: tally('Moved out of the sprint or deleted after its activation (points at the time).'),
    completed: tally('Done issues at completion.'),
    cancelled: tally('Cancelled issues at completion.'),
    carried_over: tally('Open issues at completion, moved to `carried_over_to`.'),
    carried_over_to: z
      .object({ sprint_id: z.number().int().nullable() })
      .meta({ description: '`sprint_id: null`: the project backlog.' }),
  })
  .meta({ id: 'SprintReport' });
export type SprintReport = z.infer<typeof SprintReport>;

export const Sprint = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    name: z.string(),
    slug: z.string().meta({ description: 'Kebab-case of the name.', example: 'sprint-12-checkout' }),
    description: z.string().nullable(),
    status: SprintStatus,
    start_date: z.string().nullable().meta({ format: 'date' }),
    end_date: z.string().nullable().meta({ format: 'date' }),
    actual_end_date: z.string().nullable().meta({ format: 'date', description: 'The day the sprint was completed.' }),
    issues_count: z.number().int(),
    total_story_points: z.number().int().meta({ description: "Sum of the story points of the sprint's issues." }),
    completed_story_points: z.number().int().meta({ description: 'Sum of the story points of its `done` issues.' }),
    report: SprintReport.nullable().meta({ description: 'Frozen at completion; null before.' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Sprint' });
export type Sprint = z.infer<typeof Sprint>;

/** `POST .../complete` body, optional: where the open issues go (absent or null: the backlog). */
export const SprintCompleteBody = z
  .object(
    {
      carry_over: z
        .object(
          {
            sprint_id: idField()
              .nullable()
              .optional()
              .meta({ description: 'A sprint of the same project in `planning`; null or absent: the project backlog.' }),
          },
          { error: 'must be an object' },
        )
        .nullable()
        .optional(),
    },
    { error: 'body must be a JSON object' },
  )
  .meta({ id: 'SprintComplete' });
export type SprintComplete = z.output<typeof SprintCompleteBody>;

export const VelocityQuery = z.object({
  sprints: z
    .preprocess(
      queryInt,
      z
        .number({ error: 'must be an integer' })
        .int({ error: 'must be an integer' })
        .min(1, { error: 'must be between 1 and 50' })
        .max(50, { error: 'must be between 1 and 50' }),
    )
    .default(6)
    .meta({ description: 'How many of the last completed sprints (1..50, default 6).' }),
});

export const VelocitySprint = z.object({
  sprint_id: z.number().int(),
  name: z.string(),
  completed_at: dateTime(),
  actual_end_date: z.string().meta({ format: 'date' }),
  committed_story_points: z.number().int(),
  completed_story_points: z.number().int(),
});

export const Velocity = z
  .object({
    project_id: z.number().int(),
    sprints: z.array(VelocitySprint).meta({ description: 'The last completed sprints, most recent first.' }),
    average_committed_story_points: z.number().nullable(),
    average_completed_story_points: z.number().nullable().meta({ description: 'null without completed sprints.' }),
  })
  .meta({ id: 'Velocity' });
export type Velocity = z.infer<typeof Velocity>;

export const Burndown = z
  .object({
    sprint_id: z.number().int(),
    status: SprintStatus,
    start_date: z.string().meta({ format: 'date' }),
    end_date: z.string().meta({ format: 'date', description: 'The last day shown.' }),
    committed_story_points: z.number().int().meta({ description: 'Open story points when the sprint was activated.' }),
    days: z.array(
      z.object({
        date: z.string().meta({ format: 'date' }),
        remaining_story_points: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'Open story points at the end of the UTC day; null for days not reached yet.' }),
        ideal_story_points: z
          .number()
          .nullable()
          .meta({ description: 'The straight line from the committed points to 0 on end_date; null without an end_date.' }),
      }),
    ),
  })
  .meta({ id: 'Burndown' });
export type Burndown = z.infer<typeof Burndown>;

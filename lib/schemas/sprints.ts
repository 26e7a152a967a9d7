import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateField, dateTime, descriptionField, idField, nameField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const SprintStatus = meta(z.enum(['planning', 'active', 'completing', 'completed']), {
  id: 'SprintStatus',
  description: '`completing`: its open issues are moving; its issue writes answer 409 until a completion request finishes it.',
});
export type SprintStatus = z.infer<typeof SprintStatus>;

export { endBeforeStartMessage } from '../vocabulary/messages.ts';

/** Both dates sent (and not null): they must be in order. One of them alone is checked by the domain. */
const datesInOrder = (v: { start_date?: string | null | undefined; end_date?: string | null | undefined }) =>
  !v.start_date || !v.end_date || v.end_date >= v.start_date;

const sprintFields = {
  description: z.optional(descriptionField()),
  start_date: z.optional(z.nullable(dateField())),
  end_date: z.optional(z.nullable(dateField())),
  sprint_lead_id: meta(z.optional(z.nullable(idField())), { description: 'An account of the organisation.' }),
};

export const SprintCreateFields = meta(
  z
    .object({ name: nameField(), ...sprintFields }, objectError)
    .check(z.refine(datesInOrder, { error: 'must be on or after start_date', path: ['end_date'] })),
  { id: 'SprintCreate' },
);

export const SprintUpdateFields = meta(
  z
    .object({ name: z.optional(nameField()), ...sprintFields }, objectError)
    .check(z.refine(datesInOrder, { error: 'must be on or after start_date', path: ['end_date'] })),
  { id: 'SprintUpdate' },
);

export type SprintCreate = z.output<typeof SprintCreateFields>;
export type SprintUpdate = z.output<typeof SprintUpdateFields>;

const tally = (what: string) =>
  meta(z.object({ issues: z.number().check(z.int()), story_points: z.number().check(z.int()) }), { description: what });

/** What a sprint was, frozen when it is completed (docs/sprint-outcomes.md). */
export const SprintReport = meta(
  z.object({
    sprint_id: z.number().check(z.int()),
    name: z.string(),
    start_date: meta(z.nullable(z.string()), { format: 'date' }),
    end_date: meta(z.nullable(z.string()), { format: 'date' }),
    activated_at: z.nullable(dateTime()),
    completed_at: dateTime(),
    actual_end_date: meta(z.string(), { format: 'date' }),
    committed: tally('At activation.'),
    added: tally('Created or moved in after activation.'),
    removed: tally('Moved out or deleted after activation.'),
    completed: tally('Done at completion.'),
    cancelled: tally('Cancelled at completion.'),
    carried_over: tally('Open at completion.'),
    carried_over_to: meta(z.object({ sprint_id: z.nullable(z.number().check(z.int())) }), { description: 'null: the backlog.' }),
  }),
  { id: 'SprintReport' },
);
export type SprintReport = z.infer<typeof SprintReport>;

export const Sprint = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    name: z.string(),
    slug: meta(z.string(), { description: 'Kebab-case of the name.', example: 'sprint-12-checkout' }),
    description: z.nullable(z.string()),
    status: SprintStatus,
    start_date: meta(z.nullable(z.string()), { format: 'date' }),
    end_date: meta(z.nullable(z.string()), { format: 'date' }),
    actual_end_date: meta(z.nullable(z.string()), { format: 'date', description: 'The day the sprint was completed.' }),
    issues_count: z.number().check(z.int()),
    total_story_points: meta(z.number().check(z.int()), { description: "Sum of the story points of the sprint's issues." }),
    completed_story_points: meta(z.number().check(z.int()), { description: 'Sum of the story points of its `done` issues.' }),
    report: z.nullable(SprintReport),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Sprint' },
);
export type Sprint = z.infer<typeof Sprint>;

export const SprintCreateBody = wrapped('sprint', SprintCreateFields, Sprint);
export const SprintUpdateBody = wrapped('sprint', SprintUpdateFields, Sprint);

export const VelocitySprint = z.object({
  sprint_id: z.number().check(z.int()),
  name: z.string(),
  completed_at: dateTime(),
  actual_end_date: meta(z.string(), { format: 'date' }),
  committed_story_points: z.number().check(z.int()),
  completed_story_points: z.number().check(z.int()),
});

export const Velocity = meta(
  z.object({
    project_id: z.number().check(z.int()),
    sprints: meta(z.array(VelocitySprint), { description: 'Most recent first.' }),
    average_committed_story_points: z.nullable(z.number()),
    average_completed_story_points: z.nullable(z.number()),
  }),
  { id: 'Velocity' },
);
export type Velocity = z.infer<typeof Velocity>;

export const Burndown = meta(
  z.object({
    sprint_id: z.number().check(z.int()),
    status: SprintStatus,
    start_date: meta(z.string(), { format: 'date' }),
    end_date: meta(z.string(), { format: 'date' }),
    committed_story_points: meta(z.number().check(z.int()), { description: 'Open at activation.' }),
    days: z.array(
      z.object({
        date: meta(z.string(), { format: 'date' }),
        remaining_story_points: meta(z.nullable(z.number().check(z.int())), {
          description: 'Open at the end of the UTC day; null: not reached.',
        }),
        ideal_story_points: meta(z.nullable(z.number()), { description: 'Straight to 0 on end_date; null without one.' }),
      }),
    ),
  }),
  { id: 'Burndown' },
);
export type Burndown = z.infer<typeof Burndown>;

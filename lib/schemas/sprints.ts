import * as z from 'zod';
import { dateField, dateTime, descriptionField, idField, nameField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const SprintStatus = z.enum(['planning', 'active', 'completing', 'completed']).meta({
  id: 'SprintStatus',
  description: '`completing`: its open issues are moving; its issue writes answer 409 until a completion request finishes it.',
});
export type SprintStatus = z.infer<typeof SprintStatus>;

export { endBeforeStartMessage } from '../vocabulary/messages.ts';

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

export type SprintCreate = z.output<typeof SprintCreateFields>;
export type SprintUpdate = z.output<typeof SprintUpdateFields>;

const tally = (what: string) =>
  z.object({ issues: z.number().int(), story_points: z.number().int() }).meta({ description: what });

/** What a sprint was, frozen when it is completed (docs/sprint-outcomes.md). */
export const SprintReport = z
  .object({
    sprint_id: z.number().int(),
    name: z.string(),
    start_date: z.string().nullable().meta({ format: 'date' }),
    end_date: z.string().nullable().meta({ format: 'date' }),
    activated_at: dateTime().nullable(),
    completed_at: dateTime(),
    actual_end_date: z.string().meta({ format: 'date' }),
    committed: tally('At activation.'),
    added: tally('Created or moved in after activation.'),
    removed: tally('Moved out or deleted after activation.'),
    completed: tally('Done at completion.'),
    cancelled: tally('Cancelled at completion.'),
    carried_over: tally('Open at completion.'),
    carried_over_to: z.object({ sprint_id: z.number().int().nullable() }).meta({ description: 'null: the backlog.' }),
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
    report: SprintReport.nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Sprint' });
export type Sprint = z.infer<typeof Sprint>;

export const SprintCreateBody = wrapped('sprint', SprintCreateFields, Sprint);
export const SprintUpdateBody = wrapped('sprint', SprintUpdateFields, Sprint);

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
    sprints: z.array(VelocitySprint).meta({ description: 'Most recent first.' }),
    average_committed_story_points: z.number().nullable(),
    average_completed_story_points: z.number().nullable(),
  })
  .meta({ id: 'Velocity' });
export type Velocity = z.infer<typeof Velocity>;

export const Burndown = z
  .object({
    sprint_id: z.number().int(),
    status: SprintStatus,
    start_date: z.string().meta({ format: 'date' }),
    end_date: z.string().meta({ format: 'date' }),
    committed_story_points: z.number().int().meta({ description: 'Open at activation.' }),
    days: z.array(
      z.object({
        date: z.string().meta({ format: 'date' }),
        remaining_story_points: z
          .number()
          .int()
          .nullable()
          .meta({ description: 'Open at the end of the UTC day; null: not reached.' }),
        ideal_story_points: z.number().nullable().meta({ description: 'Straight to 0 on end_date; null without one.' }),
      }),
    ),
  })
  .meta({ id: 'Burndown' });
export type Burndown = z.infer<typeof Burndown>;

import * as z from 'zod';
import { dateField, dateTime, descriptionField, idField, nameField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const SprintStatus = z.enum(['planning', 'active', 'completed']).meta({ id: 'SprintStatus' });
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
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Sprint' });
export type Sprint = z.infer<typeof Sprint>;

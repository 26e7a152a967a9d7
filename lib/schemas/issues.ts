import * as z from 'zod';
import { dateTime, descriptionField, idField, limits, nameField, wrapped } from './common.ts';

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
      position: z
        .number({ error: 'must be an integer' })
        .int({ error: 'must be an integer' })
        .min(1, { error: 'must be 1 or more' })
        .max(Number.MAX_SAFE_INTEGER, { error: 'is out of range' })
        .optional()
        .meta({
          description:
            'Place (1-based) among the issues of the list; larger than the list means last. ' +
            'The current `position` value leaves the issue where it is.',
        }),
      sprint_id: idField()
        .nullable()
        .optional()
        .meta({ description: 'Moves the issue to that sprint of the project (at its end), or to the backlog with null.' }),
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
    position: z.number().int().meta({ description: 'Order within its sprint or backlog (sparse; smaller first).' }),
    assignee_id: z.number().int().nullable(),
    started_at: dateTime().nullable(),
    completed_at: dateTime().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Issue' });
export type Issue = z.infer<typeof Issue>;

import * as z from 'zod';
import { dateTime, descriptionField, nameField, urlField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const prefixField = () =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .regex(/^[A-Z0-9]{2,4}$/, { error: 'must be 2 to 4 uppercase letters or digits' })
    .meta({ pattern: '^[A-Z0-9]{2,4}$', example: 'SPR' });

export const ProjectCreateFields = z
  .object(
    {
      name: nameField(),
      prefix: prefixField(),
      description: descriptionField().optional(),
      documentation_url: urlField().optional(),
      production_url: urlField().optional(),
    },
    objectError,
  )
  .meta({ id: 'ProjectCreate' });

export const ProjectUpdateFields = z
  .object(
    {
      name: nameField().optional(),
      prefix: prefixField().optional(),
      description: descriptionField().optional(),
      documentation_url: urlField().optional(),
      production_url: urlField().optional(),
    },
    objectError,
  )
  .meta({ id: 'ProjectUpdate' });

export type ProjectCreate = z.output<typeof ProjectCreateFields>;
export type ProjectUpdate = z.output<typeof ProjectUpdateFields>;

export const Project = z
  .object({
    id: z.number().int(),
    name: z.string(),
    prefix: z.string().meta({ pattern: '^[A-Z0-9]{2,4}$' }),
    description: z.string().nullable(),
    documentation_url: z.string().nullable(),
    production_url: z.string().nullable(),
    github_repo_owner: z.string().nullable(),
    github_repo_name: z.string().nullable(),
    sprints_count: z.number().int(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Project' });
export type Project = z.infer<typeof Project>;

export const ProjectCreateBody = wrapped('project', ProjectCreateFields, Project);
export const ProjectUpdateBody = wrapped('project', ProjectUpdateFields, Project);

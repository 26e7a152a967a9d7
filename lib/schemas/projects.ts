import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, descriptionField, nameField, urlField, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

export const prefixField = () =>
  meta(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .check(z.regex(/^[A-Z0-9]{2,4}$/, { error: 'must be 2 to 4 uppercase letters or digits' })),
    { pattern: '^[A-Z0-9]{2,4}$', example: 'SPR' },
  );

export const ProjectCreateFields = meta(
  z.object(
    {
      name: nameField(),
      prefix: prefixField(),
      description: z.optional(descriptionField()),
      documentation_url: z.optional(urlField()),
      production_url: z.optional(urlField()),
    },
    objectError,
  ),
  { id: 'ProjectCreate' },
);

export const ProjectUpdateFields = meta(
  z.object(
    {
      name: z.optional(nameField()),
      prefix: z.optional(prefixField()),
      description: z.optional(descriptionField()),
      documentation_url: z.optional(urlField()),
      production_url: z.optional(urlField()),
    },
    objectError,
  ),
  { id: 'ProjectUpdate' },
);

export type ProjectCreate = z.output<typeof ProjectCreateFields>;
export type ProjectUpdate = z.output<typeof ProjectUpdateFields>;

export const Project = meta(
  z.object({
    id: z.number().check(z.int()),
    name: z.string(),
    prefix: meta(z.string(), { pattern: '^[A-Z0-9]{2,4}$' }),
    description: z.nullable(z.string()),
    documentation_url: z.nullable(z.string()),
    production_url: z.nullable(z.string()),
    github_repo_owner: z.nullable(z.string()),
    github_repo_name: z.nullable(z.string()),
    sprints_count: z.number().check(z.int()),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Project' },
);
export type Project = z.infer<typeof Project>;

export const ProjectCreateBody = wrapped('project', ProjectCreateFields, Project);
export const ProjectUpdateBody = wrapped('project', ProjectUpdateFields, Project);

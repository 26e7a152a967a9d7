import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, integer, wrapped } from './common.ts';
import { TRASH_RETENTION } from '../vocabulary/trash.ts';

const { minDays, maxDays } = TRASH_RETENTION;

/** The organisation and its settings (`GET /organisation`, docs/api.md). */
export const OrganisationSettings = meta(
  z.object({
    id: z.number().check(z.int()),
    name: z.string(),
    created_at: dateTime(),
    trash_retention_days: meta(z.nullable(z.number().check(z.int())), {
      description:
        "The organisation's own setting: days a deleted item stays in the trash (docs/trash.md); null: the stage's default.",
    }),
    effective_trash_retention_days: meta(z.number().check(z.int()), {
      description:
        "Days an item deleted now stays in the trash: the organisation's setting, else the stage's default (read-only).",
    }),
  }),
  { id: 'OrganisationSettings' },
);
export type OrganisationSettings = z.infer<typeof OrganisationSettings>;

export const OrganisationUpdateFields = meta(
  z.object(
    {
      trash_retention_days: meta(
        z.optional(
          z.nullable(
            integer()
              .check(z.minimum(minDays, { error: `must be from ${minDays} to ${maxDays}` }))
              .check(z.maximum(maxDays, { error: `must be from ${minDays} to ${maxDays}` })),
          ),
        ),
        {
          description: `Days (${minDays} to ${maxDays}) an item deleted from now on stays in the trash; null: the stage's default. Items already in the trash keep their expiry.`,
        },
      ),
    },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  ),
  { id: 'OrganisationUpdate' },
);
export type OrganisationUpdate = z.output<typeof OrganisationUpdateFields>;

export const OrganisationUpdateBody = wrapped('organisation', OrganisationUpdateFields, OrganisationSettings);

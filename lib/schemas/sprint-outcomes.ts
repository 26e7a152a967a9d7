import * as z from 'zod';
import { idField, queryInteger } from './common.ts';

/*
 * Inputs of the REST routes of sprint outcomes (docs/sprint-outcomes.md), apart from the resource
 * schemas in sprints.ts: the MCP server builds its own inputs, so its bundle leaves these out.
 */

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
              .meta({ description: 'A sprint of the project in planning; null: the backlog.' }),
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
  sprints: queryInteger((n) => n.min(1, { error: 'must be between 1 and 50' }).max(50, { error: 'must be between 1 and 50' }))
    .default(6)
    .meta({ description: '1..50, default 6.' }),
});

import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, idField, queryInteger } from './common.ts';

/*
 * Inputs of the REST routes of sprint outcomes (docs/sprint-outcomes.md), apart from the resource
 * schemas in sprints.ts: the MCP server builds its own inputs, so its bundle leaves these out.
 */

/**
 * `POST .../complete` body, optional: where the open issues go. Absent, or no `carry_over`: the
 * backlog. `carry_over` names its target, `sprint_id` (null: the backlog): an empty `{}` is
 * refused rather than read as the backlog. Closed (lib/schemas/common.ts): an unknown key, at the
 * top or in `carry_over` (`{"carry_over": {"sprint": 3}}`), is a 422 and completes nothing.
 */
export const SprintCompleteBody = closed(
  meta(
    z.object({
      carry_over: z.optional(
        z.nullable(
          closed(
            z.object({
              sprint_id: meta(z.nullable(idField()), { description: 'A sprint of the project in planning; null: the backlog.' }),
            }),
          ),
        ),
      ),
    }),
    { id: 'SprintComplete' },
  ),
  undefined,
  { notAnObject: 'body must be a JSON object' },
);
export type SprintComplete = z.output<typeof SprintCompleteBody>;

export const VelocityQuery = z.object({
  sprints: meta(
    z._default(
      queryInteger((n) =>
        n.check(z.minimum(1, { error: 'must be between 1 and 50' })).check(z.maximum(50, { error: 'must be between 1 and 50' })),
      ),
      6,
    ),
    { description: '1..50, default 6.' },
  ),
});

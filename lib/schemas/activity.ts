import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime } from './common.ts';

export const ActivityChange = meta(
  z.object({
    field: meta(z.string(), {
      description:
        'title, description, status, story_points, assignee_id, priority, type, due_date, parent_id, ' +
        'sprint_id (a move between sprints and the backlog), ' +
        'position (a reorder; the place is not recorded), body (a comment), labels (label ids; with added and removed), ' +
        'relations (a relation added: `from` null, `to` the relation `{id, type, issue}` as this issue sees it; removed: the other way round), ' +
        'source_key (`issue.imported`: `to` the key the issue had in the file it was imported from).',
    }),
    from: meta(z.optional(z.unknown()), { description: 'The value before; absent for description, position and body.' }),
    to: meta(z.optional(z.unknown()), { description: 'The value after; absent for description, position and body.' }),
    added: meta(z.optional(z.array(z.number().check(z.int()))), {
      description: '`labels`: the ids of the labels the change added.',
    }),
    removed: meta(z.optional(z.array(z.number().check(z.int()))), {
      description: '`labels`: the ids of the labels the change removed.',
    }),
  }),
  { id: 'ActivityChange' },
);

export const Activity = meta(
  z.object({
    id: meta(z.string(), {
      description:
        'Opaque; increases with time within an issue or sprint. Names the entry in `POST /api/v1/activity/{activity_id}/revert`.',
    }),
    event: meta(z.string(), {
      description:
        'issue.created, issue.updated, issue.imported, comment.created, comment.updated, comment.deleted, attachment.added, attachment.removed (an issue), ' +
        'sprint.activated, sprint.completed (a sprint).',
    }),
    actor_id: meta(z.nullable(z.number().check(z.int())), {
      description: 'The account that made the change (deleting a comment too); null only for a delete made outside a request.',
    }),
    at: dateTime(),
    issue_id: z.nullable(z.number().check(z.int())),
    sprint_id: z.nullable(z.number().check(z.int())),
    comment_id: z.nullable(z.number().check(z.int())),
    changes: z.array(ActivityChange),
    reverts: meta(z.optional(z.string()), {
      description:
        'The id of the entry this change reverted (`POST /api/v1/activity/{activity_id}/revert`); absent on any other change.',
    }),
    via: meta(z.optional(z.string()), {
      description:
        "What made the change, for a change made by an integration: the pull request's URL, when GitHub's status automation moved the issue (docs/github.md).",
    }),
  }),
  { id: 'Activity' },
);
export type Activity = z.infer<typeof Activity>;

/** One field that changed since the entry a revert was asked for, with its value now. */
export const RevertConflictField = meta(
  z.object({
    field: meta(z.string(), { description: 'The field as the entry names it (`status`, `sprint_id`, `labels`, `relations`…).' }),
    value: meta(z.unknown(), {
      description:
        'Its value now, as the entry would show it (`labels`: ids; `description`: the text; `relations`: the relation or null).',
    }),
  }),
  { id: 'RevertConflictField' },
);

/** 409 of a revert: the fields the entry wrote that hold other values now. */
export const RevertConflict = meta(
  z.object({
    error: z.string(),
    changed: z.array(RevertConflictField),
  }),
  {
    id: 'RevertConflict',
    description: 'The fields the entry changed that were changed again since, with their current values: nothing was written.',
  },
);

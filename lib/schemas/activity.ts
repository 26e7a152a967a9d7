import * as z from 'zod';
import { dateTime } from './common.ts';

export const ActivityChange = z
  .object({
    field: z.string().meta({
      description:
        'title, description, status, story_points, assignee_id, priority, type, due_date, parent_id, ' +
        'sprint_id (a move between sprints and the backlog), ' +
        'position (a reorder; the place is not recorded), body (a comment), labels (label ids; with added and removed), ' +
        'relations (a relation added: `from` null, `to` the relation `{id, type, issue}` as this issue sees it; removed: the other way round), ' +
        'source_key (`issue.imported`: `to` the key the issue had in the file it was imported from).',
    }),
    from: z.unknown().optional().meta({ description: 'The value before; absent for description, position and body.' }),
    to: z.unknown().optional().meta({ description: 'The value after; absent for description, position and body.' }),
    added: z.array(z.number().int()).optional().meta({ description: '`labels`: the ids of the labels the change added.' }),
    removed: z.array(z.number().int()).optional().meta({ description: '`labels`: the ids of the labels the change removed.' }),
  })
  .meta({ id: 'ActivityChange' });

export const Activity = z
  .object({
    id: z.string().meta({
      description:
        'Opaque; increases with time within an issue or sprint. Names the entry in `POST /api/v1/activity/{activity_id}/revert`.',
    }),
    event: z.string().meta({
      description:
        'issue.created, issue.updated, issue.imported, comment.created, comment.updated, comment.deleted, attachment.added, attachment.removed (an issue), ' +
        'sprint.activated, sprint.completed (a sprint).',
    }),
    actor_id: z.number().int().nullable().meta({
      description: 'The account that made the change (deleting a comment too); null only for a delete made outside a request.',
    }),
    at: dateTime(),
    issue_id: z.number().int().nullable(),
    sprint_id: z.number().int().nullable(),
    comment_id: z.number().int().nullable(),
    changes: z.array(ActivityChange),
    reverts: z.string().optional().meta({
      description:
        'The id of the entry this change reverted (`POST /api/v1/activity/{activity_id}/revert`); absent on any other change.',
    }),
  })
  .meta({ id: 'Activity' });
export type Activity = z.infer<typeof Activity>;

/** One field that changed since the entry a revert was asked for, with its value now. */
export const RevertConflictField = z
  .object({
    field: z.string().meta({ description: 'The field as the entry names it (`status`, `sprint_id`, `labels`, `relations`…).' }),
    value: z.unknown().meta({
      description:
        'Its value now, as the entry would show it (`labels`: ids; `description`: the text; `relations`: the relation or null).',
    }),
  })
  .meta({ id: 'RevertConflictField' });

/** 409 of a revert: the fields the entry wrote that hold other values now. */
export const RevertConflict = z
  .object({
    error: z.string(),
    changed: z.array(RevertConflictField),
  })
  .meta({
    id: 'RevertConflict',
    description: 'The fields the entry changed that were changed again since, with their current values: nothing was written.',
  });

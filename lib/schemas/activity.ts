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
    id: z.string().meta({ description: 'Opaque; increases with time within an issue or sprint.' }),
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
  })
  .meta({ id: 'Activity' });
export type Activity = z.infer<typeof Activity>;

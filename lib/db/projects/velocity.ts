import type { VelocityEntry } from '../../model/completion.ts';
import { queryPages } from '../core/query.ts';
import { attribute, itemKind } from '../core/item.ts';
import { keys, projectPk, velocityPrefix } from '../core/keys.ts';
import { putItem } from '../core/transactions.ts';
import { getProjectItem } from './projects.ts';

/**
 * A completed sprint's summary, written once by its completion (or an import of a completed
 * sprint) beside its sprint: what the velocity endpoint lists, newest first by its key
 * (`VELOCITY#<completed_at>#<sprint>`), without reading the sprints themselves.
 */
export const velocityItem = itemKind({
  type: 'velocity',
  key: keys.velocity.placement,
  about: "completed sprint's summary (velocity)",
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    sprintId: attribute.number('sprint_id'),
    name: attribute.string('name'),
    completedAt: attribute.string('completed_at'),
    actualEndDate: attribute.string('actual_end_date'),
    committedStoryPoints: attribute.number('committed_story_points'),
    completedStoryPoints: attribute.number('completed_story_points'),
  },
});

/** The put of a completed sprint's summary, keyed by its completion's time. */
export const velocityPut = (orgId: number, projectId: number, completedAt: string, v: VelocityEntry) =>
  putItem({
    ...keys.velocity(orgId, projectId, completedAt, v.sprint_id),
    type: velocityItem.type,
    ...velocityItem.encode({
      orgId,
      projectId,
      sprintId: v.sprint_id,
      name: v.name,
      completedAt: v.completed_at,
      actualEndDate: v.actual_end_date,
      committedStoryPoints: v.committed_story_points,
      completedStoryPoints: v.completed_story_points,
    }),
  });

/** The entry the velocity endpoint lists, from a stored summary. */
export function velocityEntryOf(item: object): VelocityEntry {
  const v = velocityItem.decode(item);
  return {
    sprint_id: v.sprintId,
    name: v.name,
    completed_at: v.completedAt,
    actual_end_date: v.actualEndDate,
    committed_story_points: v.committedStoryPoints,
    completed_story_points: v.completedStoryPoints,
  };
}

/**
 * The last `count` completed sprints of a project, most recent first, with the project (undefined
 * if it is gone): one Query of the summaries and one GetItem, in parallel.
 */
export async function lastCompleted(orgId: number, projectId: number, count: number) {
  const entries: VelocityEntry[] = [];
  const summaries = {
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':prefix': velocityPrefix },
    ScanIndexForward: false,
  };
  const [, project] = await Promise.all([
    queryPages(summaries, { limit: () => count }, (items) => {
      entries.push(...items.map(velocityEntryOf));
      return false; // One page of `count`: no more.
    }),
    getProjectItem(orgId, projectId),
  ]);
  return { project, entries };
}

import { issueNotHere } from './issue-keys.ts';
import * as store from '../db/issues/activity.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { sprintItem } from '../db/projects/sprints.ts';
import type { PageRequest } from '../db/core/list.ts';
import type { Activity } from '../schemas/activity.ts';
import { NotFoundError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import { activityIdOf } from '../vocabulary/ids.ts';

/** Where an issue is addressed: in a sprint, or (`sprintId: null`) in the project backlog. */
export interface IssueAt {
  projectId: number;
  sprintId: number | null;
  issueId: number;
}

/** Sprint transitions are a sprint's own entries; every other event is an issue's. */
export const isSprintEntry = (event: string) => event.startsWith('sprint.');

/**
 * An entry as the API shows it: its id says where it lives (lib/vocabulary/ids.ts), so that the id
 * alone finds it again (a revert).
 */
export const toActivity = (item: object): Activity => {
  const e = store.entryOf(item);
  return {
    id: activityIdOf(
      e.projectId,
      isSprintEntry(e.event) ? { sprintId: Number(e.sprintId) } : { issueId: Number(e.issueId) },
      e.sequence,
    ),
    event: e.event,
    actor_id: e.actorId,
    at: e.at,
    issue_id: e.issueId,
    sprint_id: e.sprintId,
    comment_id: e.commentId,
    changes: e.changes ?? [],
    ...(e.reverts === undefined ? {} : { reverts: e.reverts }),
    ...(e.via === undefined ? {} : { via: e.via }),
  };
};

/**
 * An issue's activity, oldest first, under the path the issue is addressed by: 404 unless the
 * project, the sprint of the path and the issue exist and the issue is in that list (as a GET of
 * the issue). The total is the issue's count of entries.
 */
export async function listIssueActivity(caller: Principal, at: IssueAt, page: PageRequest) {
  const { page: result, related } = await store.listActivity(caller.orgId, at.projectId, at, page);
  const [project, ...rest] = related;
  if (!project) throw new NotFoundError('Project');
  const sprint = at.sprintId === null ? undefined : rest.shift();
  const issue = rest[0];
  if (at.sprintId !== null && !sprint) throw issueNotHere(issue, at.sprintId, new NotFoundError('Sprint'));
  if (!issue || issueItem.field(issue, 'sprintId') !== at.sprintId) throw issueNotHere(issue, at.sprintId);
  return { page: result, items: result.items.map(toActivity), total: issueItem.field(issue, 'activityCount') };
}

/** A sprint's own activity (activated, completed), oldest first. */
export async function listSprintActivity(caller: Principal, projectId: number, sprintId: number, page: PageRequest) {
  const { page: result, related } = await store.listActivity(caller.orgId, projectId, { sprintId }, page);
  const [project, sprint] = related;
  if (!project) throw new NotFoundError('Project');
  if (!sprint) throw new NotFoundError('Sprint');
  return { page: result, items: result.items.map(toActivity), total: sprintItem.field(sprint, 'activityCount') };
}

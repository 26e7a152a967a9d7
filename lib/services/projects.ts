import type { PageRequest } from '../db/core/list.ts';
import * as store from '../db/projects/projects.ts';
import type { Project, ProjectCreate, ProjectUpdate } from '../schemas/projects.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../vocabulary/errors.ts';

import type { Principal } from '../model/principal.ts';
import { refusedAs, type Meanings } from './refusals.ts';

import { type ProjectRefusal } from '../db/core/refusals.ts';
import { toProject } from '../../lib/resources/projects.ts';

/** What a refused project write means. */
const refusals = {
  [store.projectRefusals.project]: () => new NotFoundError('Project'),
  [store.projectRefusals.prefixTaken]: () => new ValidationError(['prefix has already been taken']),
  [store.projectRefusals.organisation]: () => new NotFoundError('Organisation'),
} satisfies Meanings<ProjectRefusal>;

export async function listProjects(caller: Principal, page: PageRequest) {
  const { page: result, org } = await store.listProjects(caller.orgId, page);
  return { page: result, items: result.items.map(toProject), total: org?.projectsCount ?? 0 };
}

export async function getProject(caller: Principal, projectId: number): Promise<Project> {
  const item = await store.getProjectItem(caller.orgId, projectId);
  if (!item) throw new NotFoundError('Project');
  return toProject(item);
}

export async function createProject(caller: Principal, input: ProjectCreate, restored?: store.RestoredProject): Promise<Project> {
  return refusedAs(refusals, () => store.insertProject(caller.orgId, input, restored));
}

export async function updateProject(caller: Principal, projectId: number, changes: ProjectUpdate): Promise<Project> {
  return toProject(await refusedAs(refusals, () => store.updateProject(caller.orgId, projectId, changes)));
}

/**
 * Only admins may delete projects, into the organisation's trash (docs/trash.md): its sprints,
 * issues, comments and everything else under it go with it, until it is restored. Existence is
 * decided before the role: a project the caller cannot see (another organisation's, or none)
 * answers 404 to a member too, never 403.
 */
export async function deleteProject(caller: Principal, projectId: number): Promise<void> {
  if (caller.role !== 'admin') {
    if (!(await store.getProjectItem(caller.orgId, projectId))) throw new NotFoundError('Project');
    throw new ForbiddenError('Only admins may delete projects');
  }
  await refusedAs(refusals, () => store.deleteProject(caller.orgId, projectId, caller.accountId));
}

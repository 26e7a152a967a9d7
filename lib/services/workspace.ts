import { fieldsOf } from '../db/projects/custom-fields.ts';
import { catalogueOf } from '../db/issues/labels.ts';

import { accountNames, sprintNames } from '../db/projects/names.ts';

import * as projects from '../db/projects/projects.ts';
import { issuePriorities, issueStatuses, issueTypes } from '../schemas/issues.ts';

import type { Principal } from '../model/principal.ts';
import { workflowOf } from '../db/projects/workflow.ts';

import { statusKey } from '../vocabulary/workflow.ts';
import { toProject } from '../../lib/resources/projects.ts';

/**
 * What an agent needs to orient itself in one call (the MCP tool `get_workspace`, docs/mcp.md):
 * the caller, a page of the organisation's projects, each with its active sprints and label names,
 * its workflow's states, the accounts (names and ids), and the issues' status categories, priorities and types.
 *
 * Bounded: `limit` projects a page (`WORKSPACE_LIMITS`; the rest by `next_cursor`), the first
 * `labelsPerProject` label names of each (with `labels_count`: list_labels has them all), the
 * first `accounts` accounts (with `accounts_count`: list_accounts has them all), so that the
 * answer's size has a bound whatever the organisation holds.
 *
 * Cost, the authorizer aside: one round of 3 calls in parallel (the projects' page Query with the
 * organisation's item, the accounts' Query), then one of one Query per project on the page (its
 * sprints: only the active are shown, and a project's partition is where they are): 2 serial
 * rounds, 3 + projects calls.
 */
export const WORKSPACE_LIMITS = { defaultProjects: 10, projects: 25, labelsPerProject: 10, accounts: 50 } as const;

export async function getWorkspace(caller: Principal, page: { limit: number; cursor?: string | undefined }) {
  const [{ page: listed, org }, accounts] = await Promise.all([
    projects.listProjects(caller.orgId, { page: 1, perPage: page.limit, cursor: page.cursor }),
    accountNames(caller.orgId, WORKSPACE_LIMITS.accounts),
  ]);
  const shown = await Promise.all(
    listed.items.map(async (item) => {
      const project = toProject(item);
      const sprints = await sprintNames(caller.orgId, project.id);
      const labels = [...catalogueOf(item).values()].map((l) => l.name);
      return {
        id: project.id,
        prefix: project.prefix,
        name: project.name,
        active_sprints: sprints
          .filter((s) => s.status === 'active')
          .map(({ id, name, start_date, end_date }) => ({ id, name, start_date, end_date })),
        labels: labels.slice(0, WORKSPACE_LIMITS.labelsPerProject),
        labels_count: labels.length,
        // Its workflow, on the project item already read (docs/workflows.md): what `status` may name.
        states: workflowOf(item).states.map((s) => ({ id: s.id, name: s.name, status: statusKey(s.name), category: s.category })),
        // Its custom fields, on the same item (docs/custom-fields.md): what `custom_fields` and `cf.<key>` name.
        fields: fieldsOf(item).map((f) => ({
          key: f.key,
          name: f.name,
          type: f.type,
          ...(f.required && { required: true }),
          ...(f.options.length > 0 && { options: f.options.map((o) => o.name) }),
        })),
      };
    }),
  );
  const self = accounts.find((a) => a.id === caller.accountId);
  return {
    me: { id: caller.accountId, name: self?.name ?? caller.name ?? null, role: caller.role },
    organisation: { id: caller.orgId, name: org ? org.name : null },
    projects: shown,
    projects_count: org?.projectsCount ?? 0,
    next_cursor: listed.nextCursor ?? null,
    accounts: accounts.map(({ id, name }) => ({ id, name })),
    accounts_count: org?.accountsCount ?? accounts.length,
    statuses: [...issueStatuses],
    priorities: [...issuePriorities],
    types: [...issueTypes],
  };
}

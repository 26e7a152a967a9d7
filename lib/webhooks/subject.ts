import { getIssueFamily } from '../db/issues/issues.ts';
import { catalogueOf } from '../db/issues/labels.ts';
import type { ProjectItem } from '../db/projects/projects.ts';
import type { SprintItem } from '../db/projects/sprints.ts';
import { labelIdsOf, type ChangeEvent } from '../feed/events.ts';
import { toIssue } from '../resources/issues.ts';
import { fieldsOf } from '../db/projects/custom-fields.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { selectableValues, type StoredValues } from '../model/custom-fields.ts';
import { filterContext, selectableIssueOf, sprintActiveAt, type FilterNeeds, type ShownIssue } from './filter.ts';

/**
 * The issue an event's filtered endpoints are matched against (docs/change-feed.md#filters), and
 * its context; undefined when there is none (a comment whose issue is gone). An issue event
 * carries its issue (after the change; as it was, for a delete) and reads only what the filters
 * need: one BatchGet of the project (prefix, label names) and the issue's sprint (was it active
 * at the change), or nothing. A comment event reads its issue as it is when the feed handles it,
 * with the project and the sprint the comment recorded, in one BatchGet, and the issue's sprint
 * in a second only if the issue has moved since and a filter asks for `sprint:active`. Once per
 * event, whatever the endpoints.
 */
export async function filterSubject(event: ChangeEvent, needs: FilterNeeds) {
  const { orgId, projectId } = event;
  let shown: ShownIssue & { issue_number?: unknown };
  let project: ProjectItem | undefined;
  let sprint: SprintItem | undefined;
  /** The issue's custom field values as stored (by field id), named by key through the project's fields. */
  let stored: StoredValues | undefined;
  if (event.type.startsWith('issue.')) {
    shown = event.resource as unknown as ShownIssue;
    stored = event.customFieldValues;
    const sprintId = shown.sprint_id;
    const readSprint = needs.activeSprint && sprintId !== null;
    if (needs.project || readSprint) {
      const family = await getIssueFamily(orgId, projectId, readSprint ? [sprintId] : []);
      project = family.project;
      sprint = readSprint ? family.sprints.get(sprintId) : undefined;
    }
  } else {
    if (event.issueId === undefined) return undefined;
    const recorded = needs.activeSprint && event.sprintId !== undefined ? [event.sprintId] : [];
    const family = await getIssueFamily(orgId, projectId, recorded, event.issueId);
    if (!family.issue) return undefined;
    project = family.project;
    stored = issueItem.decode(family.issue).customFields;
    shown = { ...toIssue(family.issue, 0), label_ids: labelIdsOf(family.issue as object as Record<string, unknown>) };
    const sprintId = shown.sprint_id;
    if (needs.activeSprint && sprintId !== null) {
      sprint = family.sprints.has(sprintId)
        ? family.sprints.get(sprintId)
        : (await getIssueFamily(orgId, projectId, [sprintId])).sprints.get(sprintId);
    }
  }
  const issue = selectableIssueOf(shown, {
    prefix: project?.prefix,
    labelNames: catalogueOf(project),
    author: event.type === 'issue.created' ? event.actorId : undefined,
    customFields: project ? selectableValues(stored, fieldsOf(project)) : undefined,
  });
  return {
    issue,
    context: filterContext(event.at, sprintActiveAt(sprint, event.at) ? shown.sprint_id : null),
    head: { issueKey: String(shown.issue_number), title: shown.title },
  };
}

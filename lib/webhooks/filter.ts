import type { Selection } from '../schemas/selection.ts';
import type { EventType } from '../vocabulary/event-types.ts';
import type { SelectableIssue, SelectionContext } from '../model/selection/evaluate.ts';
import { selectionMatcher } from '../model/selection/evaluate.ts';
import { fieldConditions } from '../model/selection/conditions.ts';
import { storedLabelIds } from '../db/issues/labels.ts';
import type { SelectableValue } from '../model/custom-fields.ts';

/**
 * Webhook filters at the fan-out (docs/change-feed.md#filters): which events a filter applies to,
 * what it needs read besides the event, the issue it is matched against, and the decision. Pure:
 * the reads are the fan-out's (lib/webhooks/fanout.ts).
 */

/**
 * Whether an endpoint's filter decides on events of this type: issue events (their issue) and
 * comment and attachment events (the issue commented on, or whose file it is). Sprint and project events are about no one issue and
 * go to every endpoint that subscribes to them, filtered or not.
 */
export const filterApplies = (type: EventType): boolean =>
  type.startsWith('issue.') || type.startsWith('comment.') || type.startsWith('attachment.');

/** What the filters of an event's endpoints need besides the issue itself. */
export interface FilterNeeds {
  /** The project item: its prefix (`project:`), label catalogue (`label:` names) and custom fields (`cf.<key>:`). */
  project: boolean;
  /** Whether the issue's sprint was active (`sprint:active`). */
  activeSprint: boolean;
}

/** What `selections` need read to be evaluated: only what their qualifiers test, wherever they stand (groups, negations). */
export function filterNeeds(selections: readonly Selection[]): FilterNeeds {
  const needs: FilterNeeds = { project: false, activeSprint: false };
  for (const s of selections) {
    for (const c of fieldConditions(s.and)) {
      // `no:label` too: the labels an issue has are those of its ids the catalogue still holds.
      if (c.project !== undefined || c.label !== undefined || c.cf !== undefined) needs.project = true;
      if (c.sprint?.in.includes('active')) needs.activeSprint = true;
    }
  }
  return needs;
}

/** The issue as a webhook payload shows it (lib/feed/events.ts): the resource, labels as `label_ids`. */
export interface ShownIssue {
  id: number;
  title: string;
  sprint_id: number | null;
  /** Its state's name (its category's, in a payload written before workflows). */
  status: string;
  /** Its state's category: what `is:open`, `status:` and the rest read. */
  status_category?: SelectableIssue['status'] | undefined;
  assignee_id: number | null;
  priority: SelectableIssue['priority'];
  type: SelectableIssue['type'];
  parent_id: number | null;
  story_points: number | null;
  created_at: string;
  updated_at: string;
  due_date: string | null;
  blocked: boolean;
  label_ids?: unknown;
  /** The account that created the issue, where the issue records it. */
  author_id?: unknown;
  /** The key of an imported issue in its source. */
  source_key?: string | null | undefined;
  /**
   * What GitHub holds for the issue (`Issue.links`): its linked pull requests counted by state
   * (`has:pr`, `pr:`), where the resource shows them; absent: none.
   */
  links?: { count?: number; pull_requests?: SelectableIssue['pull_requests'] } | null | undefined;
}

/** What the filter reads besides the issue: its project's prefix and label names (absent: not read). */
export interface IssueSurroundings {
  prefix?: string | undefined;
  /** The issue's author where the issue records none: the actor of its `issue.created`. */
  author?: number | null | undefined;
  /** Label id -> name, the project's catalogue. */
  labelNames?: ReadonlyMap<number, { name: string }> | undefined;
  /** Its values by key through its project's fields (`cf.<key>:`; lib/model/custom-fields.ts: `selectableValues`). */
  customFields?: Readonly<Record<string, SelectableValue>> | undefined;
}

/**
 * The issue a filter is matched against, from the issue a payload shows: label ids named through
 * the project's catalogue (a label deleted meanwhile has no name and matches no `label:`).
 */
export function selectableIssueOf(issue: ShownIssue, around: IssueSurroundings): SelectableIssue {
  const labels = storedLabelIds(issue.label_ids).flatMap((id) => {
    const entry = around.labelNames?.get(id);
    return entry ? [entry.name] : [];
  });
  return {
    id: issue.id,
    title: issue.title,
    project_prefix: around.prefix ?? '',
    sprint_id: issue.sprint_id,
    status: issue.status_category ?? (issue.status as SelectableIssue['status']),
    state: issue.status,
    assignee_id: issue.assignee_id,
    // 0: no account, so that `author:` never holds for an issue whose author is not known.
    author_id: typeof issue.author_id === 'number' ? issue.author_id : (around.author ?? 0),
    labels,
    priority: issue.priority,
    type: issue.type,
    parent_id: issue.parent_id,
    story_points: issue.story_points,
    created_at: issue.created_at,
    updated_at: issue.updated_at,
    due_date: issue.due_date,
    blocked: issue.blocked,
    source_key: issue.source_key ?? null,
    pull_requests: issue.links?.pull_requests ?? undefined,
    custom_fields: around.customFields,
  };
}

/** What `sprintActiveAt` reads of a sprint item. */
export interface SprintTimes {
  status: string;
  activated_at?: string | undefined;
  report?: { completed_at: string } | null | undefined;
  completion?: { completed_at: string } | undefined;
}

/**
 * Whether a sprint was active at the time `at` (ISO): activated at or before it, not completed by
 * then. Read from the sprint's activation and completion times, not its status now, so that a
 * change made before an activation (or after a completion) that the feed handles after it is
 * judged as it was. A sprint without an activation time (activated before they were kept)
 * answers its status.
 */
export function sprintActiveAt(sprint: SprintTimes | undefined, at: string): boolean {
  if (!sprint) return false;
  if (sprint.activated_at === undefined) return sprint.status === 'active';
  const completed = sprint.report?.completed_at ?? sprint.completion?.completed_at;
  return sprint.activated_at <= at && (completed === undefined || at < completed);
}

/**
 * The context of a filter: relative times count from the change (`at`, so that a replayed stream
 * record decides as the first reading did), the issue's sprint is active or not, and `@me` stands
 * for no one (a stored filter holds account ids, lib/model/webhook-filters.ts).
 */
export function filterContext(at: string, activeSprintId: number | null): SelectionContext {
  return { me: 0, now: new Date(at), activeSprintIds: new Set(activeSprintId === null ? [] : [activeSprintId]) };
}

/** Whether an endpoint's stored filter lets the event of `issue` through (no filter: always). */
export function filterAdmits(
  filter: Selection | null | undefined,
  subject: { issue: SelectableIssue; context: SelectionContext } | undefined,
): boolean {
  if (filter === null || filter === undefined) return true;
  return subject !== undefined && selectionMatcher(filter, subject.context)(subject.issue);
}

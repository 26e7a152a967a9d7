import { selectableValues, shownValues, type FieldSet } from '../model/custom-fields.ts';
import { fieldsOf } from '../db/projects/custom-fields.ts';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  placeOfRecord,
  readProjects,
  readSearchRecords,
  readSprints,
  SEARCH_SCAN,
  searchRange,
  type SearchCursor,
} from '../db/issues/search.ts';
import { catalogueOf, issueLabels } from '../db/issues/labels.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import { statusAnswer, unknownStateNames, type Workflow } from '../model/workflow.ts';
import { isFilledSearchRecord, searchRecordItem } from '../db/issues/issue-item.ts';
import { ValidationError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import {
  defaultSort,
  issueComparator,
  selectionMatcher,
  type Condition,
  type FieldCondition,
  type SelectableIssue,
  type Selection,
  type SelectionSort,
} from '../model/selection.ts';
import { relativeOffsetMs } from '../vocabulary/selection.ts';
import { fieldConditions, nodeOf } from '../model/selection/conditions.ts';
import type { SearchIssue } from '../schemas/search.ts';

/**
 * A search of the organisation's issues (`GET /api/v1/issues?q=`, `POST /api/v1/issues/search`;
 * docs/search.md, "How the service answers it"). One round of DynamoDB calls, in parallel: a Query
 * of the organisation's search partition (lib/db/issues/search.ts; at most SEARCH_SCAN records, in
 * `updated_at` order, the range of `updated:` as its key condition) and a Query of its projects
 * (prefixes for `project:`, label catalogues for `label:`); a second round only for `sprint:active`:
 * one BatchGet of the sprints the records read name. Every record read is tested by the one
 * evaluator (lib/model/selection/); what passes is the page.
 *
 * Order: `sort:updated-*` (and no `sort:`) is the index's own order, so a page is the matches among
 * the next SEARCH_SCAN records and a `next` cursor where it stopped, whatever the organisation's
 * size. The other orders (created, priority, due, points) are exact when every record the query's
 * `updated:` range holds fits in one read (SEARCH_SCAN): they are then sorted and paged by offset;
 * beyond that the search is refused (422) with how to narrow it, never answered in a wrong order.
 */

export interface SearchPage {
  items: SearchIssue[];
  nextCursor?: string | undefined;
  /** The cursor right after `items[index]` (a page cut by the response byte budget goes on from there). */
  cursorAfter: (index: number) => string;
  /** Matches up to where this page stopped looking (all of them when there is no `next`). */
  matched: number;
}

const DAY_MS = 86_400_000;

/**
 * The `updated_at` interval [from, to) every match lies in, from the query's `updated:`
 * conditions that must hold: those ANDed at the top and in its AND groups, not negated and not
 * under an OR (each a superset of what it selects; the evaluator decides). A query whose
 * `updated:` stands in an OR reads the whole partition, and the evaluator answers it exactly.
 */
export function updatedInterval(selection: Selection, now: number): { from?: number; to?: number } {
  let from: number | undefined;
  let to: number | undefined;
  const start = (v: string) => {
    const offset = relativeOffsetMs(v);
    return offset !== undefined ? now + offset : Date.parse(`${v}T00:00:00.000Z`);
  };
  const end = (v: string) => start(v) + (relativeOffsetMs(v) !== undefined ? 1 : DAY_MS);
  const atLeast = (ms: number) => (from = from === undefined ? ms : Math.max(from, ms));
  const below = (ms: number) => (to = to === undefined ? ms : Math.min(to, ms));
  for (const c of conjuncts(selection.and)) {
    const t = c.updated;
    if (!t) continue;
    if (t.eq !== undefined) {
      atLeast(start(t.eq));
      below(end(t.eq));
    }
    if (t.gt !== undefined) atLeast(end(t.gt));
    if (t.gte !== undefined) atLeast(start(t.gte));
    if (t.lt !== undefined) below(start(t.lt));
    if (t.lte !== undefined) below(end(t.lte));
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** The conditions on a field that every match meets: those ANDed, at the top and in AND groups. */
function conjuncts(conditions: readonly Condition[]): FieldCondition[] {
  return conditions.flatMap((c) => {
    const node = nodeOf(c);
    if (node.kind === 'field') return [node.condition];
    return node.kind === 'and' ? conjuncts(node.conditions) : [];
  });
}

/** Whether the selection asks for the active sprints (`sprint:active`, anywhere, negated or not). */
const needsActiveSprints = (selection: Selection) => fieldConditions(selection.and).some((c) => c.sprint?.in.includes('active'));

/** 422 for a `status:` that names no state of the organisation's projects (docs/search.md). */
function refuseUnknownStates(selection: Selection, workflows: readonly Workflow[]): void {
  const names = fieldConditions(selection.and).flatMap((c) => c.status?.in ?? []);
  if (names.length === 0) return;
  const { unknown, known } = unknownStateNames(names, workflows);
  if (unknown.length === 0) return;
  const shown = known.length > 20 ? [...known.slice(0, 20), '…'] : known;
  throw new ValidationError(unknown.map((name) => `status: no project has a state named '${name}' (known: ${shown.join(', ')})`));
}

/** The texts a query looks for as a whole term (`SD-5`, `"fix login"`), lower-cased: an issue whose key is one comes first. */
const termsOf = (selection: Selection): string[] =>
  selection.and.flatMap((c) => {
    const node = nodeOf(c);
    return node.kind === 'field' && node.condition.title ? [node.condition.title.contains.toLowerCase()] : [];
  });

/** `found` with the issues a query names by their own key (or their key in their source) first, else in order. */
function namedFirst(selection: Selection, found: Found[]): Found[] {
  const terms = new Set(termsOf(selection));
  if (terms.size === 0) return found;
  const named = (f: Found) =>
    terms.has(f.shown.issue_number.toLowerCase()) || (f.shown.source_key !== null && terms.has(f.shown.source_key.toLowerCase()));
  return [...found.filter(named), ...found.filter((f) => !named(f))];
}

/** A search record with what it is tested and shown by; undefined for a partial one (not reindexed yet). */
interface Found {
  item: Record<string, unknown>;
  issue: SelectableIssue;
  shown: SearchIssue;
}

/** What each project's records are shown with (worked out once per project, not per record). */
interface ProjectView {
  project: Awaited<ReturnType<typeof readProjects>>[number];
  workflow: ReturnType<typeof workflowOf>;
  catalogue: ReturnType<typeof catalogueOf>;
  fields: FieldSet;
}

/**
 * A search record as it is tested and shown; undefined for a record of a deleted project (its
 * cascade running) or one not filled yet (not reindexed).
 */
function foundOf(item: Record<string, unknown>, byId: Map<number, ProjectView>): Found | undefined {
  const record = searchRecordItem.decode(item);
  const known = byId.get(record.projectId);
  if (!known || !isFilledSearchRecord(item)) return undefined;
  const { project, workflow, catalogue, fields } = known;
  const labels = issueLabels(record.labelIds, catalogue);
  const shown: SearchIssue = {
    id: record.issueId,
    project_id: record.projectId,
    sprint_id: record.sprintId,
    issue_number: record.number,
    source_key: record.sourceKey,
    title: record.title,
    ...statusAnswer(workflow, record.stateId, record.status, record.openBlockers > 0),
    story_points: record.storyPoints,
    position: record.position,
    assignee_id: record.assigneeId,
    author_id: record.authorId,
    priority: record.priority,
    type: record.type,
    due_date: record.dueDate,
    parent_id: record.parentId,
    labels,
    custom_fields: shownValues(record.customFields, fields),
    blocked: record.openBlockers > 0,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
  return {
    item,
    shown,
    issue: {
      id: shown.id,
      title: shown.title,
      project_prefix: String(project.prefix),
      sprint_id: shown.sprint_id,
      status: record.status,
      state: shown.status,
      assignee_id: shown.assignee_id,
      // An issue created before authors were kept: no account's id, so `author:` never holds for it.
      author_id: shown.author_id ?? -1,
      labels: labels.map((l) => l.name),
      priority: shown.priority,
      type: shown.type,
      parent_id: shown.parent_id,
      story_points: shown.story_points,
      created_at: shown.created_at,
      updated_at: shown.updated_at,
      due_date: shown.due_date,
      blocked: shown.blocked,
      source_key: shown.source_key,
      issue_number: shown.issue_number,
      pull_requests: { open: record.prsOpen, draft: record.prsDraft, merged: record.prsMerged, closed: record.prsClosed },
      custom_fields: selectableValues(record.customFields, fields),
    },
  };
}

/** The active ones among the sprints the found issues are in (`sprint:active`): one BatchGetItem. */
async function activeSprintsAmong(orgId: number, found: Found[]): Promise<Set<number>> {
  const named = new Map<number, { projectId: number; sprintId: number }>();
  for (const f of found) {
    if (f.shown.sprint_id !== null) named.set(f.shown.sprint_id, { projectId: f.shown.project_id, sprintId: f.shown.sprint_id });
  }
  const active = new Set<number>();
  for (const sprint of await readSprints(orgId, [...named.values()])) {
    if (sprint.status === 'active') active.add(Number(sprint.id));
  }
  return active;
}

/** The issues of one page of a search for `caller` (see the module comment). */
export async function searchIssues(
  caller: Principal,
  selection: Selection,
  page: { perPage: number; cursor?: string | undefined; pageNumber?: number },
): Promise<SearchPage> {
  const sort: SelectionSort = selection.sort ?? defaultSort;
  const keyed = sort.field === 'updated';
  const cursor = searchCursorOf(page, keyed);
  const now = Date.now();
  const interval = updatedInterval(selection, now);
  if (interval.from !== undefined && interval.to !== undefined && interval.from >= interval.to) {
    return { items: [], cursorAfter: () => '', matched: 0 };
  }
  const range = { ...searchRange(interval.from, interval.to), descending: keyed ? sort.order === 'desc' : true };
  const after = cursor?.kind === 'key' ? cursor.at : undefined;

  const [read, projects] = await Promise.all([
    readSearchRecords(caller.orgId, range, after, SEARCH_SCAN),
    readProjects(caller.orgId),
  ]);
  if (!keyed && read.more) {
    throw new ValidationError([
      `sort:${sort.field}-${sort.order} orders at most ${SEARCH_SCAN.toLocaleString('en')} issues, and more than that were updated in this query's range: ` +
        `narrow it with updated: (e.g. updated:>-30d), or sort by updated (sort:updated-desc pages through any number)`,
    ]);
  }
  // What each project's records are shown with, worked out once per project rather than per record.
  const byId = new Map(
    projects.map((project) => [
      Number(project.id),
      { project, workflow: workflowOf(project), catalogue: catalogueOf(project), fields: fieldsOf(project) },
    ]),
  );
  refuseUnknownStates(
    selection,
    [...byId.values()].map((p) => p.workflow),
  );
  const found = read.items.flatMap((item) => foundOf(item, byId) ?? []);
  const activeSprintIds = needsActiveSprints(selection) ? await activeSprintsAmong(caller.orgId, found) : new Set<number>();
  const test = selectionMatcher(selection, { me: caller.accountId, now: new Date(now), activeSprintIds });
  const matches = found.filter((f) => test(f.issue));

  return keyed
    ? keyedPage(selection, matches, read, cursor, page.perPage)
    : sortedPage(selection, sort, matches, cursor, page.perPage);
}

/** The page's cursor, if any, refused when it is not one of this search's (or a page number is given instead). */
function searchCursorOf(page: { cursor?: string | undefined; pageNumber?: number }, keyed: boolean): SearchCursor | undefined {
  const cursor: SearchCursor | undefined = page.cursor === undefined ? undefined : decodeSearchCursor(page.cursor);
  if (cursor && (cursor.kind === 'key') !== keyed) {
    throw new ValidationError(['cursor is not a cursor of this search: follow the next link as it is']);
  }
  if (!cursor && (page.pageNumber ?? 1) > 1) {
    throw new ValidationError(['page cannot be used with a search: follow the next link of the first page']);
  }
  return cursor;
}

/** A page of matches sorted by another field than `updated`: all of them sorted, the page cut at an offset. */
function sortedPage(
  selection: Selection,
  sort: SelectionSort,
  matches: Found[],
  cursor: SearchCursor | undefined,
  perPage: number,
): SearchPage {
  const sorted = namedFirst(
    selection,
    matches.sort((a, b) => issueComparator(sort)(a.issue, b.issue)),
  );
  const from = cursor?.kind === 'offset' ? cursor.o : 0;
  const taken = sorted.slice(from, from + perPage);
  const end = from + taken.length;
  return {
    items: taken.map((f) => f.shown),
    nextCursor: end < sorted.length ? encodeSearchCursor({ kind: 'offset', o: end }) : undefined,
    cursorAfter: (index) => encodeSearchCursor({ kind: 'offset', o: from + index + 1 }),
    matched: sorted.length,
  };
}

/** A page of matches in the index's order (by `updated`): the next page starts where this one's last record lies. */
function keyedPage(
  selection: Selection,
  matches: Found[],
  read: Awaited<ReturnType<typeof readSearchRecords>>,
  cursor: SearchCursor | undefined,
  perPage: number,
): SearchPage {
  const before = cursor?.kind === 'key' ? cursor.m : 0;
  const taken = matches.slice(0, perPage);
  const full = taken.length === perPage;
  const lastRead = read.items.at(-1);
  const resume = full ? taken.at(-1)?.item : lastRead;
  const more = read.more || (full && resume !== lastRead);
  const keyOf = (item: Record<string, unknown>, m: number) => encodeSearchCursor({ kind: 'key', at: placeOfRecord(item), m });
  return {
    // Reordered on the page only: where the next page starts is the index's order.
    items: namedFirst(selection, taken).map((f) => f.shown),
    nextCursor: more && resume ? keyOf(resume, before + taken.length) : undefined,
    cursorAfter: (index) => keyOf((taken[index] as Found).item, before + index + 1),
    matched: before + matches.length,
  };
}

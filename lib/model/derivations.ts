import { BACKLOG_COUNT, burndownCounter, noCounters, type SprintCounters } from './sprint-counters.ts';
import type { IssuePriority, IssueStatus, IssueType } from '../schemas/issues.ts';
import type { RelationType } from '../schemas/relations.ts';
import { today } from './clock.ts';
import { blockOf, RANK_PREFIX } from './positions.ts';
import { sameValues, type StoredValues } from './custom-fields.ts';

/**
 * What every issue write keeps true beside the issue itself, declared once. Each derivation is one
 * named unit that says, from an issue's state before and after a change (undefined: not there), what
 * it changes (`changes`: counters added to a holder, records put or removed) and, from the issues
 * alone, what it holds (`rebuild`). Every issue write path turns its changes into one transaction
 * through lib/db/issues/issue-write.ts, which asks every derivation here (none builds derived items of
 * its own), and `issues:reindex` (lib/jobs/reindex.ts) writes what `rebuild` computes. The property
 * test (test/integration/derivations.property.test.ts) checks the first against the second.
 *
 * A derivation added here (a label index, a parent's summary) is kept by every path at once.
 * Nothing here knows DynamoDB: holders and records are named by what they are, and lib/db maps them
 * to keys and expressions.
 */

/** What the derivations read of an issue. */
export interface IssueState {
  orgId: number;
  projectId: number;
  id: number;
  /** `<prefix>-<n>`; never changes. */
  number: string;
  /** Its list: a sprint, or null for the backlog. */
  sprintId: number | null;
  /** Its stored sort key in the list (lib/model/positions.ts). */
  position: number;
  /** Its workflow state's category. */
  status: IssueStatus;
  /** Its workflow state (null: its category's home, lib/model/workflow.ts); absent where a path does not read it (never changed there). */
  stateId?: number | null | undefined;
  storyPoints: number | null;
  assigneeId: number | null;
  updatedAt: string;
  priority: IssuePriority;
  type: IssueType;
  /** `YYYY-MM-DD`, or null. */
  dueDate: string | null;
  /** Its parent issue (same project), or null; absent where a path does not read it (never changed there). */
  parentId?: number | null | undefined;
  /** The parent's number: the children index lives under it (`GET /issues/{number}/sub_issues`). */
  parentNumber?: string | null | undefined;
  /** Its title, as the children index shows it; absent where a path does not read it (never changed there). */
  title?: string | undefined;
  /**
   * Its relations to other issues (lib/services/relations.ts), as seen from it; absent where a path
   * does not know them (a move of other issues, a renumbering): such a change leaves them alone.
   */
  relations?: readonly RelationRef[] | undefined;
  /** Its labels' ids, ascending; absent where a path does not read them (never changed there). */
  labelIds?: readonly number[] | undefined;
  /** Its custom fields' values by field id (lib/model/custom-fields.ts); absent where a path does not read them (never changed there). */
  customFields?: StoredValues | undefined;
  /** The account that created it (null: created before authors were kept); absent where not read. */
  authorId?: number | null | undefined;
  /** When it was created (ISO 8601 UTC); absent where not read (never changes). */
  createdAt?: string | undefined;
  /** The key it had in the source it was imported from (null: none); absent where not read (never changes). */
  sourceKey?: string | null | undefined;
}

/** One relation of an issue, as stored on it: its id, its type seen from the issue, the other issue. */
export interface RelationRef {
  id: string;
  type: RelationType;
  projectId: number;
  issueId: number;
}

/**
 * The classification of an issue that says none: the defaults of priority, type and due date, which
 * issues written before these fields existed answer too.
 */
export const unclassified = { priority: 'none', type: 'task', dueDate: null } as const satisfies Pick<
  IssueState,
  'priority' | 'type' | 'dueDate'
>;

/** Stored label ids (a number set, an array, or absent / null: none), ascending. */
export function labelIdsOf(stored: unknown): number[] {
  if (stored === null || stored === undefined) return [];
  return [...(stored as Iterable<unknown>)].map(Number).sort((a, b) => a - b);
}

/** One issue's change: created (no `before`), changed, or deleted (no `after`). */
export interface IssueChange {
  before?: IssueState | undefined;
  after?: IssueState | undefined;
}

/**
 * A neighbour renumbered by a move (lib/model/positions.ts): only its position is known, and only
 * its position changes, so no derivation but the rank index and the search record see a
 * difference. Its number is not known (''): its pointer keeps the key it had (`numberPointer`).
 */
export function repositioned(
  at: { orgId: number; projectId: number; sprintId: number | null },
  r: { id: number; from: number; to: number },
): IssueChange {
  const same = {
    ...at,
    id: r.id,
    number: '',
    status: 'todo',
    storyPoints: null,
    assigneeId: null,
    updatedAt: '',
    ...unclassified,
  } as const;
  return { before: { ...same, position: r.from }, after: { ...same, position: r.to } };
}

/**
 * An item that keeps counters of derived values: a list's owner (a sprint, or the project for its
 * backlog), an account, or another issue (a parent's summary of its children, say).
 */
export type Holder =
  | { kind: 'list'; orgId: number; projectId: number; sprintId: number | null }
  | { kind: 'account'; orgId: number; accountId: number }
  | { kind: 'issue'; orgId: number; projectId: number; issueId: number }
  /** An issue's search record (it keeps the issue's count of open blockers beside the issue). */
  | { kind: 'search'; orgId: number; projectId: number; issueId: number };

/**
 * An issue's entry in its organisation's search partition (`GET /api/v1/issues?q=`, docs/search.md):
 * what the selection evaluator reads of it, and what a search result shows. Labels are ids (their
 * names, which may change, are read from the project's catalogue); the project by id (its prefix
 * may change too).
 */
export interface SearchRecord {
  kind: 'search';
  orgId: number;
  projectId: number;
  issueId: number;
  number: string;
  title: string;
  sprintId: number | null;
  position: number;
  status: IssueStatus;
  /** Its workflow state (null: its category's home; absent in a record written before workflows: none). */
  stateId?: number | null;
  priority: IssuePriority;
  type: IssueType;
  labelIds: number[];
  /** Its custom fields' values by field id: `cf.<key>` reads them through the project's definitions (absent: none). */
  customFields?: StoredValues;
  assigneeId: number | null;
  authorId: number | null;
  storyPoints: number | null;
  dueDate: string | null;
  parentId: number | null;
  createdAt: string;
  updatedAt: string;
  /** The issue's key in the source it was imported from, or null: a text search finds it by it. */
  sourceKey: string | null;
}

/** The fields of a search record a change may move, in the order they are stored and compared. */
export const searchFields = [
  'number',
  'title',
  'sprintId',
  'position',
  'status',
  'stateId',
  'priority',
  'type',
  'labelIds',
  'customFields',
  'assigneeId',
  'authorId',
  'storyPoints',
  'dueDate',
  'parentId',
  'createdAt',
  'updatedAt',
  'sourceKey',
] as const satisfies readonly (keyof SearchRecord)[];

/** Some fields of a search record (the key always): what a change of the issue sets of it. */
export type SearchPatch = Pick<SearchRecord, 'kind' | 'orgId' | 'projectId' | 'issueId'> & Partial<SearchRecord>;

/** An item that exists because of one issue. */
export type DerivedRecord =
  | {
      kind: 'pointer';
      orgId: number;
      number: string;
      projectId: number;
      issueId: number;
      /** Its list (null: the backlog), so that a route by key reads the issue with its list at once. */
      sprintId: number | null;
      /**
       * Its stored list key as of this write: a hint, so that a route by key counts the issue's place
       * beside its read (`sameRecord`: any hint agrees with the rebuild); absent on a pointer written before it was kept.
       */
      position?: number | undefined;
    }
  | {
      kind: 'assigned';
      orgId: number;
      accountId: number;
      projectId: number;
      issueId: number;
      sprintId: number | null;
      status: IssueStatus;
      updatedAt: string;
      /** Carried so that `GET /me/issues` filters on them without reading the issues first. */
      priority: IssuePriority;
      type: IssueType;
      dueDate: string | null;
      /** The issue's parent, for the `parent_id` filter of `GET /me/issues`. */
      parentId: number | null;
    }
  | {
      /** A child in its parent's index, under the parent's number; what `GET /issues/{number}/sub_issues` lists. */
      kind: 'sub_issue';
      orgId: number;
      parentNumber: string;
      parentId: number;
      projectId: number;
      issueId: number;
      number: string;
      title: string;
      sprintId: number | null;
      status: IssueStatus;
      storyPoints: number | null;
      assigneeId: number | null;
    }
  | SearchRecord;

export type Effect =
  /** `ifPresent`: a holder that is gone (a deleted issue) needs no count; its add is dropped, never refused. */
  | { kind: 'add'; holder: Holder; attr: string; by: number; ifPresent?: true }
  /** Another issue's side of a relation taken away (an issue deleted with its relations). */
  | { kind: 'unlink'; holder: Holder & { kind: 'issue' }; relationId: string }
  | { kind: 'put'; record: DerivedRecord }
  | { kind: 'remove'; record: DerivedRecord }
  /** Fields of a record set, the others left as they are (a search record: what the change moved). */
  | { kind: 'patch'; record: SearchPatch };

/** How a path's changes count. */
export interface ChangeContext {
  /** The UTC day a sprint's burndown change is written to. */
  day: string;
  /**
   * Whether a sprint's history moves too: issues entering or leaving it count as added or removed
   * scope, and its open points as the day's burndown change. False when rebuilding (history is
   * not a function of the issues) and for the sprint a completion takes its open issues from.
   */
  history: boolean;
  /** Sprint completion: leaving the sprint being completed is neither removed scope nor progress. */
  completing?: number | undefined;
  /**
   * A restore from the trash (docs/trash.md) into a sprint whose history counted its delete (not
   * activated since): the issue's return takes back the scope its delete removed, rather than
   * adding scope.
   */
  restoring?: boolean | undefined;
}

export interface Derivation {
  /** Named in failures of the property test and in docs/data-model.md. */
  name: string;
  /** The fields it reads: a change that moves none of them changes nothing of it. */
  reads: readonly (keyof IssueState)[];
  /** What a change of one issue changes of it. */
  changes(before: IssueState | undefined, after: IssueState | undefined, ctx: ChangeContext): Effect[];
  /** Whether a holder's attribute is one it keeps (compared and rebuilt). */
  owns(holder: Holder, attr: string): boolean;
  /** The record kinds it keeps. */
  records: readonly DerivedRecord['kind'][];
  /** What it holds, from the issues alone. */
  rebuild(issues: IssueState[]): Derived;
}

/** Statuses of work not finished: what sprint completion sends back to the backlog. */
export const openStatuses = ['backlog', 'todo', 'in_progress'] as const satisfies readonly IssueStatus[];
export const isClosed = (status: IssueStatus) => status === 'done' || status === 'cancelled';

/** What one issue adds to its sprint's counters. */
export function contributionOf(issue: { status: IssueStatus; story_points: number | null }): SprintCounters {
  const points = issue.story_points ?? 0;
  const done = issue.status === 'done';
  const open = !isClosed(issue.status);
  return {
    issuesCount: 1,
    totalStoryPoints: points,
    completedStoryPoints: done ? points : 0,
    openIssuesCount: open ? 1 : 0,
    openStoryPoints: open ? points : 0,
    doneIssuesCount: done ? 1 : 0,
  };
}

const combine = (a: SprintCounters, b: SprintCounters, sign: 1 | -1): SprintCounters =>
  Object.fromEntries(Object.entries(a).map(([k, v]) => [k, v + sign * b[k as keyof SprintCounters]])) as SprintCounters;

export const negate = (c: SprintCounters): SprintCounters => combine(noCounters, c, -1);

export const sumCounters = (all: SprintCounters[]): SprintCounters => all.reduce((a, b) => combine(a, b, 1), noCounters);

const COUNTERS = Object.keys(noCounters);

/**
 * The counters of a list's owner: the backlog keeps only its issue count; a sprint keeps its
 * counters, and with them (`history`) what its report and burndown need (docs/sprint-outcomes.md):
 * issues entering or leaving it count as added or removed (with their points at that moment), and
 * a change of its open story points is added to the UTC day's burndown change. Activation
 * restarts both (lib/db/projects/sprints.ts), so only what happens after it counts.
 */
export function listDelta(sprintId: number | null, delta: SprintCounters, day = today(), history = true): Record<string, number> {
  if (sprintId === null) return { [BACKLOG_COUNT]: delta.issuesCount };
  const out: Record<string, number> = { ...delta };
  if (!history) return out;
  if (delta.issuesCount > 0) Object.assign(out, { addedIssues: delta.issuesCount, addedPoints: delta.totalStoryPoints });
  if (delta.issuesCount < 0) Object.assign(out, { removedIssues: -delta.issuesCount, removedPoints: -delta.totalStoryPoints });
  if (delta.openStoryPoints) out[burndownCounter(day)] = delta.openStoryPoints;
  return out;
}

/** A list delta's added scope as its removal taken back (a restore: `ChangeContext.restoring`). */
function removalUndone(delta: Record<string, number>): Record<string, number> {
  const { addedIssues, addedPoints, ...rest } = delta;
  if (addedIssues === undefined) return delta;
  return { ...rest, removedIssues: -addedIssues, removedPoints: -(addedPoints ?? 0) };
}

const listOf = (s: IssueState): Holder => ({ kind: 'list', orgId: s.orgId, projectId: s.projectId, sprintId: s.sprintId });
const sameList = (a: IssueState, b: IssueState) => a.projectId === b.projectId && a.sprintId === b.sprintId;
const counted = (s: IssueState) => contributionOf({ status: s.status, story_points: s.storyPoints });
const adds = (holder: Holder, delta: Record<string, number>): Effect[] =>
  Object.entries(delta)
    .filter(([, by]) => by !== 0)
    .map(([attr, by]) => ({ kind: 'add', holder, attr, by }));

/** Counters of the list an issue is in: a sprint's six counters (and its history), the backlog's count. */
export const listCounters: Derivation = {
  name: 'list-counters',
  reads: ['sprintId', 'status', 'storyPoints'],
  changes(before, after, ctx) {
    if (before && after && sameList(before, after)) {
      const net = sumCounters([counted(after), negate(counted(before))]);
      return adds(listOf(after), listDelta(after.sprintId, net, ctx.day, ctx.history));
    }
    const leaving = before
      ? adds(
          listOf(before),
          listDelta(before.sprintId, negate(counted(before)), ctx.day, ctx.history && ctx.completing !== before.sprintId),
        )
      : [];
    const joined = after && listDelta(after.sprintId, counted(after), ctx.day, ctx.history);
    const joining = after && joined ? adds(listOf(after), ctx.restoring && !before ? removalUndone(joined) : joined) : [];
    return [...leaving, ...joining];
  },
  owns: (holder, attr) => holder.kind === 'list' && (holder.sprintId === null ? attr === BACKLOG_COUNT : COUNTERS.includes(attr)),
  records: [],
  rebuild: (issues) => rebuildFrom(listCounters, issues),
};

/**
 * The board's column counters of a list (docs/workflows.md: the board): how many issues each
 * workflow state holds in the list, and their story points, on the list's owner (a sprint, or the
 * project for the backlog). An issue without a state (written before workflows) counts under its
 * category's home (`h_<category>`): the board adds it to that state's column.
 */
export const stateColumns: Derivation = {
  name: 'state-columns',
  reads: ['sprintId', 'stateId', 'status', 'storyPoints'],
  changes(before, after) {
    const column = (s: IssueState) => columnKey(s.stateId ?? null, s.status);
    const counts = (s: IssueState, sign: 1 | -1): Record<string, number> => ({
      [`${COLUMN_COUNT}${column(s)}`]: sign,
      [`${COLUMN_POINTS}${column(s)}`]: sign * (s.storyPoints ?? 0),
    });
    const out: Effect[] = [];
    if (before) out.push(...adds(listOf(before), counts(before, -1)));
    if (after) out.push(...adds(listOf(after), counts(after, 1)));
    // A change within one column of one list nets out: one add per attribute.
    return netted(out);
  },
  owns: (holder, attr) => holder.kind === 'list' && (attr.startsWith(COLUMN_COUNT) || attr.startsWith(COLUMN_POINTS)),
  records: [],
  rebuild: (issues) => rebuildFrom(stateColumns, issues),
};

/** The attribute prefixes of a list's column counters (`state-columns`). */
export const COLUMN_COUNT = 'bc_';
export const COLUMN_POINTS = 'bp_';
/** The column an issue counts in: its state, or its category's home when it has none (`h_<category>`). */
export const columnKey = (stateId: number | null, category: IssueStatus) =>
  stateId === null ? `h_${category}` : String(stateId);

/** The states (by id) that the column counters of list owners (`owners`, as stored) count issues in. */
export function statesCounted(owners: readonly Record<string, unknown>[]): Set<number> {
  const states = new Set<number>();
  for (const owner of owners)
    for (const [attribute, value] of Object.entries(owner)) {
      const m = /^bc_(\d+)$/.exec(attribute);
      if (m && attribute.startsWith(COLUMN_COUNT) && Number(value) > 0) states.add(Number(m[1]));
    }
  return states;
}

function netted(effects: Effect[]): Effect[] {
  const sums = new Map<string, Effect & { kind: 'add' }>();
  for (const e of effects) {
    if (e.kind !== 'add') continue;
    const id = `${holderId(e.holder)}|${e.attr}`;
    const seen = sums.get(id);
    if (seen) seen.by += e.by;
    else sums.set(id, { ...e });
  }
  return [...sums.values()].filter((e) => e.by !== 0);
}

/** The rank index of the list an issue is in: how many of its issues each block of sort keys holds. */
export const rankBlocks: Derivation = {
  name: 'rank-blocks',
  reads: ['sprintId', 'position'],
  changes(before, after) {
    const out: Effect[] = [];
    const block = (s: IssueState) => `${RANK_PREFIX}${blockOf(s.position)}`;
    if (before && after && sameList(before, after) && block(before) === block(after)) return out;
    if (before) out.push({ kind: 'add', holder: listOf(before), attr: block(before), by: -1 });
    if (after) out.push({ kind: 'add', holder: listOf(after), attr: block(after), by: 1 });
    return out;
  },
  owns: (holder, attr) => holder.kind === 'list' && attr.startsWith(RANK_PREFIX),
  records: [],
  rebuild: (issues) => rebuildFrom(rankBlocks, issues),
};

const pointerOf = (s: IssueState): DerivedRecord => ({
  kind: 'pointer',
  orgId: s.orgId,
  number: s.number.toUpperCase(),
  projectId: s.projectId,
  issueId: s.id,
  sprintId: s.sprintId,
  position: s.position,
});

/**
 * The pointer from an issue's number to the issue, its list and its list key (the routes by key,
 * `/issues/{number}`). Put when the issue moves, to another list or within its own (one more item
 * in that write's transaction, no more calls). A neighbour renumbered by a move (`repositioned`)
 * has no number here, so its pointer keeps the key it had: the one way a hint goes stale.
 */
export const numberPointer: Derivation = {
  name: 'number-pointer',
  reads: ['number', 'sprintId', 'position'],
  changes(before, after) {
    if (before && after) {
      const moved = before.sprintId !== after.sprintId || (after.number !== '' && before.position !== after.position);
      return moved ? [{ kind: 'put', record: pointerOf(after) }] : [];
    }
    if (after) return [{ kind: 'put', record: pointerOf(after) }];
    return before ? [{ kind: 'remove', record: pointerOf(before) }] : [];
  },
  owns: () => false,
  records: ['pointer'],
  rebuild: (issues) => rebuildFrom(numberPointer, issues),
};

const entryOf = (s: IssueState & { assigneeId: number }): DerivedRecord => ({
  kind: 'assigned',
  orgId: s.orgId,
  accountId: s.assigneeId,
  projectId: s.projectId,
  issueId: s.id,
  sprintId: s.sprintId,
  status: s.status,
  updatedAt: s.updatedAt,
  priority: s.priority,
  type: s.type,
  dueDate: s.dueDate,
  parentId: s.parentId ?? null,
});
const account = (orgId: number, accountId: number): Holder => ({ kind: 'account', orgId, accountId });
const assigned = (s: IssueState | undefined): (IssueState & { assigneeId: number }) | undefined =>
  s && s.assigneeId !== null ? (s as IssueState & { assigneeId: number }) : undefined;

/** An account's count of the issues assigned to it: the total of `GET /me/issues`. */
export const ASSIGNED_COUNT = 'assignedCount';

/**
 * The index of `GET /me/issues`: an entry per assigned issue in its assignee's partition (sorted
 * by `updated_at`, carrying the issue's list, status, priority, type and due date: what the list
 * filters on), and each account's count of them (`ASSIGNED_COUNT`).
 */
export const assigneeIndex: Derivation = {
  name: 'assignee-index',
  reads: ['assigneeId', 'updatedAt', 'status', 'sprintId', 'priority', 'type', 'dueDate', 'parentId'],
  changes(before, after) {
    const from = assigned(before);
    const to = assigned(after);
    const out: Effect[] = [];
    if (from && from.assigneeId !== to?.assigneeId) {
      out.push({ kind: 'remove', record: entryOf(from) });
      out.push({ kind: 'add', holder: account(from.orgId, from.assigneeId), attr: ASSIGNED_COUNT, by: -1 });
    }
    if (to) {
      out.push({ kind: 'put', record: entryOf(to) });
      if (to.assigneeId !== from?.assigneeId) {
        out.push({ kind: 'add', holder: account(to.orgId, to.assigneeId), attr: ASSIGNED_COUNT, by: 1 });
      }
    }
    return out;
  },
  owns: (holder, attr) => holder.kind === 'account' && attr === ASSIGNED_COUNT,
  records: ['assigned'],
  rebuild: (issues) => rebuildFrom(assigneeIndex, issues),
};

/**
 * The counters of a parent's `sub_issues_summary`, kept on the parent issue, by the names the
 * model gives them (lib/db stores each under its own name: `issueCounterStored`).
 */
export const SUMMARY = {
  total: 'subIssuesTotal',
  done: 'subIssuesDone',
  storyPoints: 'subIssuesPoints',
  completedStoryPoints: 'subIssuesDonePoints',
} as const;
const summaryAttrs: readonly string[] = Object.values(SUMMARY);

/**
 * A blocked issue's count of open blockers, kept on the issue and on its search record (`blocked`
 * is it > 0; the `open-blockers` derivation).
 */
export const OPEN_BLOCKERS = 'openBlockers';

/**
 * The counters an issue keeps for others (a parent's summary of its children, a blocked issue's
 * open blockers), by their model names; lists keep theirs by the names lib/model/sprint-counters.ts
 * gives them (`issuesCount`, `backlogCount`), accounts theirs as `ASSIGNED_COUNT`. lib/db maps each to
 * where it is stored (lib/db/issues/counters.ts).
 */
export type IssueCounter = (typeof SUMMARY)[keyof typeof SUMMARY] | typeof OPEN_BLOCKERS;
export const issueCounters: readonly IssueCounter[] = [...Object.values(SUMMARY), OPEN_BLOCKERS];

const parentOf = (s: IssueState | undefined) => (s?.parentId === undefined || s.parentId === null ? undefined : s.parentId);
const parentHolder = (s: IssueState, parentId: number): Holder => ({
  kind: 'issue',
  orgId: s.orgId,
  projectId: s.projectId,
  issueId: parentId,
});
const summaryOf = (s: IssueState): Record<string, number> => {
  const points = s.storyPoints ?? 0;
  const done = s.status === 'done';
  return {
    [SUMMARY.total]: 1,
    [SUMMARY.done]: done ? 1 : 0,
    [SUMMARY.storyPoints]: points,
    [SUMMARY.completedStoryPoints]: done ? points : 0,
  };
};
const scaled = (delta: Record<string, number>, sign: 1 | -1) =>
  Object.fromEntries(Object.entries(delta).map(([k, v]) => [k, sign * v]));

/**
 * A parent's `sub_issues_summary`: its children's count, done count, story points and done story
 * points, as counters on the parent issue, moved in the same transaction as the child. A child
 * whose parent is gone (its delete's cascade not yet run) counts nowhere.
 */
export const parentSummary: Derivation = {
  name: 'parent-summary',
  reads: ['parentId', 'status', 'storyPoints'],
  changes(before, after) {
    const from = parentOf(before);
    const to = parentOf(after);
    if (before && after && from !== undefined && from === to) {
      const net = summaryOf(after);
      for (const [k, v] of Object.entries(summaryOf(before))) net[k] = (net[k] ?? 0) - v;
      return adds(parentHolder(after, from), net);
    }
    return [
      ...(before && from !== undefined ? adds(parentHolder(before, from), scaled(summaryOf(before), -1)) : []),
      ...(after && to !== undefined ? adds(parentHolder(after, to), summaryOf(after)) : []),
    ];
  },
  owns: (holder, attr) => holder.kind === 'issue' && summaryAttrs.includes(attr),
  records: [],
  rebuild: (issues) => rebuildFrom(parentSummary, withLiveParents(issues)),
};

/** Issues as if each whose parent is not among them had none (a parent deleted, its cascade pending). */
function withLiveParents(issues: IssueState[]): IssueState[] {
  const ids = new Set(issues.map((s) => `${s.orgId}:${s.projectId}:${s.id}`));
  return issues.map((s) =>
    s.parentId !== undefined && s.parentId !== null && !ids.has(`${s.orgId}:${s.projectId}:${s.parentId}`)
      ? { ...s, parentId: null, parentNumber: null }
      : s,
  );
}

const subIssueOf = (s: IssueState): DerivedRecord | undefined =>
  s.parentId === undefined || s.parentId === null || !s.parentNumber
    ? undefined
    : {
        kind: 'sub_issue',
        orgId: s.orgId,
        parentNumber: s.parentNumber.toUpperCase(),
        parentId: s.parentId,
        projectId: s.projectId,
        issueId: s.id,
        number: s.number,
        title: s.title ?? '',
        sprintId: s.sprintId,
        status: s.status,
        storyPoints: s.storyPoints,
        assigneeId: s.assigneeId,
      };

/**
 * The children index of a parent: one record per child under the parent's number (in the
 * organisation's partition, beside the number's pointer), carrying what the children list shows,
 * so that `GET /issues/{number}/sub_issues` reads the pointer and the children in one Query.
 */
export const subIssueIndex: Derivation = {
  name: 'sub-issue-index',
  reads: ['parentId', 'parentNumber', 'number', 'title', 'sprintId', 'status', 'storyPoints', 'assigneeId'],
  changes(before, after) {
    const from = before ? subIssueOf(before) : undefined;
    const to = after ? subIssueOf(after) : undefined;
    const out: Effect[] = [];
    if (from && (!to || recordId(from) !== recordId(to))) out.push({ kind: 'remove', record: from });
    if (to) out.push({ kind: 'put', record: to });
    return out;
  },
  owns: () => false,
  records: ['sub_issue'],
  // A child of a deleted parent keeps its record until the parent's cascade clears its parent_id.
  rebuild: (issues) => rebuildFrom(subIssueIndex, issues),
};

const issueHolder = (orgId: number, r: RelationRef) =>
  ({ kind: 'issue', orgId, projectId: r.projectId, issueId: r.issueId }) as const;
/** The issues an issue holds back while it is open: those it `blocks`. */
const heldBack = (s: IssueState | undefined): RelationRef[] =>
  s && !isClosed(s.status) ? (s.relations ?? []).filter((r) => r.type === 'blocks') : [];

/**
 * A blocked issue's count of open blockers (`OPEN_BLOCKERS` on the blocked issue; `blocked` is
 * it > 0): an issue that `blocks` others adds 1 to each of them while it is open (not done or
 * cancelled). A change of its status or of its `blocks` relations moves the counts in the same
 * transaction. An issue deleted with its relations takes its side off the other issues (their
 * counts with it) in its delete's transaction; a blocked issue that is gone needs no count, so
 * an add to it is dropped rather than refused (`ifPresent`). Issues removed by a sprint's or a
 * project's cascade are taken off the others by the cascade (lib/jobs/cascade.ts).
 */
export const openBlockers: Derivation = {
  name: 'open-blockers',
  reads: ['status', 'relations'],
  changes(before, after) {
    const out: Effect[] = [];
    const from = heldBack(before);
    const to = heldBack(after);
    const s = (after ?? before) as IssueState;
    const key = (r: RelationRef) => `${r.projectId}:${r.issueId}`;
    const counts = new Map<string, { r: RelationRef; by: number }>();
    for (const r of from) counts.set(key(r), { r, by: (counts.get(key(r))?.by ?? 0) - 1 });
    for (const r of to) counts.set(key(r), { r, by: (counts.get(key(r))?.by ?? 0) + 1 });
    for (const { r, by } of counts.values()) {
      if (by === 0) continue;
      out.push({ kind: 'add', holder: issueHolder(s.orgId, r), attr: OPEN_BLOCKERS, by, ifPresent: true });
      // Its search record keeps the same count, for `is:blocked` (the `search-index` derivation).
      out.push({
        kind: 'add',
        holder: { ...issueHolder(s.orgId, r), kind: 'search' },
        attr: OPEN_BLOCKERS,
        by,
        ifPresent: true,
      });
    }
    // Deleted with its relations: the other issues' sides go with it.
    if (before && !after) {
      for (const r of before.relations ?? []) out.push({ kind: 'unlink', holder: issueHolder(s.orgId, r), relationId: r.id });
    }
    return out;
  },
  owns: (holder, attr) => (holder.kind === 'issue' || holder.kind === 'search') && attr === OPEN_BLOCKERS,
  records: [],
  rebuild: (issues) => rebuildFrom(openBlockers, issues),
};

/** An issue's full search record (a state read from its stored item: every field known). */
export function searchRecordOf(s: IssueState): SearchRecord {
  return {
    kind: 'search',
    orgId: s.orgId,
    projectId: s.projectId,
    issueId: s.id,
    number: s.number,
    title: s.title ?? '',
    sprintId: s.sprintId,
    position: s.position,
    status: s.status,
    stateId: s.stateId ?? null,
    priority: s.priority,
    type: s.type,
    labelIds: [...(s.labelIds ?? [])],
    customFields: s.customFields ?? {},
    assigneeId: s.assigneeId,
    authorId: s.authorId ?? null,
    storyPoints: s.storyPoints,
    dueDate: s.dueDate,
    parentId: s.parentId ?? null,
    createdAt: s.createdAt ?? '',
    updatedAt: s.updatedAt,
    sourceKey: s.sourceKey ?? null,
  };
}

const sameValue = (a: unknown, b: unknown) =>
  Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((v, i) => v === b[i])
    : isValues(a) && isValues(b)
      ? sameValues(a, b)
      : a === b;
const isValues = (v: unknown): v is StoredValues => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The organisation's search partition (docs/search.md): one record per issue, sorted by
 * `updated_at`, carrying what the selection evaluator reads. A created issue puts its whole
 * record; a change sets only the fields it moved (so a path that knows only some of an issue's
 * fields, a move of its neighbours, never writes the others); a delete removes it. Its count of open
 * blockers is kept by `open-blockers`, as the issue's own is.
 */
export const searchIndex: Derivation = {
  name: 'search-index',
  // Every field its record keeps: a change of any of them sets it.
  reads: searchFields,
  changes(before, after) {
    if (!after) return before ? [{ kind: 'remove', record: searchRecordOf(before) }] : [];
    if (!before) return [{ kind: 'put', record: searchRecordOf(after) }];
    const from = searchRecordOf(before);
    const to = searchRecordOf(after);
    const patch: SearchPatch = { kind: 'search', orgId: to.orgId, projectId: to.projectId, issueId: to.issueId };
    let moved = false;
    for (const field of searchFields) {
      // A field the path does not know (absent on both sides) is left as it is.
      const known = after[stateField[field]] !== undefined;
      if (known && !sameValue(from[field], to[field])) {
        (patch as unknown as Record<string, unknown>)[field] = to[field];
        moved = true;
      }
    }
    return moved ? [{ kind: 'patch', record: patch }] : [];
  },
  owns: () => false,
  records: ['search'],
  rebuild: (issues) => rebuildFrom(searchIndex, issues),
};

/** The issue state field each search record field comes from. */
const stateField: Record<(typeof searchFields)[number], keyof IssueState> = {
  number: 'number',
  title: 'title',
  sprintId: 'sprintId',
  position: 'position',
  status: 'status',
  stateId: 'stateId',
  priority: 'priority',
  type: 'type',
  labelIds: 'labelIds',
  customFields: 'customFields',
  assigneeId: 'assigneeId',
  authorId: 'authorId',
  storyPoints: 'storyPoints',
  dueDate: 'dueDate',
  parentId: 'parentId',
  createdAt: 'createdAt',
  updatedAt: 'updatedAt',
  sourceKey: 'sourceKey',
};

/** Every derivation of an issue, in the order their items go into a transaction. */
export const derivations: readonly Derivation[] = [
  listCounters,
  stateColumns,
  rankBlocks,
  numberPointer,
  assigneeIndex,
  parentSummary,
  subIssueIndex,
  openBlockers,
  searchIndex,
];

/** The effects of a batch of changes on every derivation (or the ones named in `only`). */
export function effectsOf(changes: IssueChange[], ctx: ChangeContext, only?: readonly string[]): Effect[] {
  const out: Effect[] = [];
  for (const d of derivations) {
    if (only && !only.includes(d.name)) continue;
    for (const { before, after } of changes) {
      // Inputs unchanged: nothing of it changes (a renumbered neighbour moves only the rank index).
      if (before && after && d.reads.every((f) => before[f] === after[f])) continue;
      out.push(...d.changes(before, after, ctx));
    }
  }
  return out;
}

export const holderId = (h: Holder) =>
  h.kind === 'list'
    ? `list:${h.orgId}:${h.projectId}:${h.sprintId ?? 'backlog'}`
    : h.kind === 'account'
      ? `account:${h.orgId}:${h.accountId}`
      : h.kind === 'issue'
        ? `issue:${h.orgId}:${h.projectId}:${h.issueId}`
        : `search:${h.orgId}:${h.projectId}:${h.issueId}`;

export const recordId = (r: DerivedRecord) =>
  r.kind === 'pointer'
    ? `pointer:${r.orgId}:${r.number}`
    : r.kind === 'assigned'
      ? `assigned:${r.orgId}:${r.accountId}:${r.projectId}:${r.issueId}`
      : r.kind === 'search'
        ? `search:${r.orgId}:${r.projectId}:${r.issueId}`
        : `sub_issue:${r.orgId}:${r.parentNumber}:${r.projectId}:${r.issueId}`;

/** Derived state: counters per holder, and records by id. */
export interface Derived {
  holders: Map<string, { holder: Holder; attrs: Record<string, number> }>;
  records: Map<string, DerivedRecord>;
}

export const emptyDerived = (): Derived => ({ holders: new Map(), records: new Map() });

/** Applies effects to derived state (counters summed, records put or removed). */
export function fold(effects: Effect[], into: Derived = emptyDerived()): Derived {
  for (const e of effects) {
    if (e.kind === 'add') {
      const id = holderId(e.holder);
      const entry = into.holders.get(id) ?? { holder: e.holder, attrs: {} };
      entry.attrs[e.attr] = (entry.attrs[e.attr] ?? 0) + e.by;
      into.holders.set(id, entry);
    } else if (e.kind === 'put') into.records.set(recordId(e.record), e.record);
    else if (e.kind === 'patch') {
      const id = recordId(e.record as SearchRecord);
      into.records.set(id, { ...(into.records.get(id) ?? {}), ...e.record } as SearchRecord);
    } else if (e.kind === 'remove') into.records.delete(recordId(e.record));
    // An unlink changes the other issue's relations, which are stored state, not derived.
  }
  return into;
}

/** A derivation's state rebuilt as if every issue had just been created, without history. */
function rebuildFrom(d: Derivation, issues: IssueState[]): Derived {
  const ctx: ChangeContext = { day: '', history: false };
  return fold(issues.flatMap((issue) => d.changes(undefined, issue, ctx)));
}

/**
 * Whether a stored record is what its rebuild says. A pointer's `position` is a hint, which a
 * neighbour's respace leaves behind (`numberPointer`): any hint agrees, none (a pointer written
 * before it was kept) differs.
 */
export function sameRecord(want: DerivedRecord | undefined, got: DerivedRecord | undefined): boolean {
  const compared = (r: DerivedRecord | undefined) =>
    JSON.stringify(r?.kind === 'pointer' ? { ...r, position: r.position !== undefined } : r);
  return compared(want) === compared(got);
}

/**
 * Where derived state `observed` differs from `expected` for one derivation: its counters (an
 * attribute absent and one at zero are the same) and its records, each difference one line.
 */
export function differences(d: Derivation, expected: Derived, observed: Derived): string[] {
  const out: string[] = [];
  const ids = new Set([...expected.holders.keys(), ...observed.holders.keys()]);
  for (const id of [...ids].sort()) {
    const want = expected.holders.get(id);
    const got = observed.holders.get(id);
    const holder = (want ?? got)?.holder as Holder;
    const attrs = new Set([...Object.keys(want?.attrs ?? {}), ...Object.keys(got?.attrs ?? {})]);
    for (const attr of [...attrs].sort()) {
      if (!d.owns(holder, attr)) continue;
      const a = want?.attrs[attr] ?? 0;
      const b = got?.attrs[attr] ?? 0;
      if (a !== b) out.push(`${d.name}: ${id} ${attr} is ${b}, rebuild says ${a}`);
    }
  }
  const records = new Set([...expected.records.keys(), ...observed.records.keys()]);
  for (const id of [...records].sort()) {
    const want = expected.records.get(id);
    const got = observed.records.get(id);
    if (!d.records.includes((want ?? got)?.kind as DerivedRecord['kind'])) continue;
    if (!sameRecord(want, got)) {
      out.push(`${d.name}: ${id} is ${JSON.stringify(got) ?? 'missing'}, rebuild says ${JSON.stringify(want) ?? 'none'}`);
    }
  }
  return out;
}

import * as store from '../db/issues/issues.ts';
import type { IssueItem, IssueMatch } from '../db/issues/issues.ts';
import { classificationFilter } from '../model/classification.ts';
import { unclassified, type IssueState } from '../model/derivations.ts';
import { issueItem, issueStateOf } from '../db/issues/issue-item.ts';
import { listLength, rankIndex } from '../db/issues/counters.ts';
import type { PageRequest } from '../db/core/list.ts';
import { projectItem, type ProjectItem } from '../db/projects/projects.ts';
import { Refused, rereadOnStale, STALE, type GuardedItem, type RetryBudget, isRefused } from '../db/core/transactions.ts';
import { listRevisionOf, type ParentGuard } from '../db/issues/issue-write.ts';
import { childrenRoom, decideParent, type ParentDecision } from './sub-issues.ts';
import type { Issue, IssueCreate, IssueListFilters, IssueLocation, IssueUpdate } from '../schemas/issues.ts';
import { NotFoundError, SprintBusyError, UnavailableError, ValidationError } from '../vocabulary/errors.ts';
import {
  appendedPosition,
  blockOf,
  countBefore,
  defaultPlacementOptions,
  gapFor,
  planPlacement,
  windowAtStart,
  type ListWindow,
  type RankIndex,
  type Renumbering,
} from '../model/positions.ts';
import type { Principal } from '../model/principal.ts';
import { versionOf, withVersion } from '../db/core/versions.ts';
import { catalogueOf, carriesAll, issueLabels, labelFilterIds, resolveLabels } from '../db/issues/labels.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import {
  liveState,
  stateOnCreate,
  stateOnUpdate,
  statusAnswer,
  transitionProblems,
  type StateWrite,
  type Workflow,
} from '../model/workflow.ts';
import { readIssueItem, writtenIssue } from '../db/issues/issue-refs.ts';
import { issueNotHere } from './issue-keys.ts';

/** The counting of issues belongs to the `list-counters` derivation; exported here as before. */
export { contributionOf, listDelta, negate, openStatuses, sumCounters } from '../model/derivations.ts';

/**
 * How far an issue write goes on losing races (a concurrent write changed what it decided on)
 * before answering 503. Computed places in one list are serialised by the list's revision, so N
 * moves into one list at once commit one after another and the last may lose N - 1 races: up to
 * 60 attempts, each after a jittered wait of at most 320 ms, but none started 8 s after the first
 * (the function's timeout is 10 s: a 503 with Retry-After, never a timeout's 500).
 * docs/issue-lists.md has the measurement.
 */
export const ISSUE_WRITE_BUDGET: RetryBudget = { attempts: 60, withinMs: 8_000, baseMs: 10, capMs: 320 };
/** Neighbours read beyond the target place: the largest renumbering window, plus its bound. */
const WINDOW_MARGIN = defaultPlacementOptions.maxWindow + 1;
/** Renumbered neighbours that fit in the issue's own transaction next to its other items (two items each: it and its search record). */
const RENUMBER_WITH_WRITE = 44;
/** Renumbered neighbours per transaction when a packed run is re-appended (two items each, plus the list's owner). */
const RENUMBER_STEP = 49;

export const assigneeMessage = 'assignee_id must be an account of this organisation';
export const targetSprintMessage = 'sprint_id must be a sprint of this project';

/** `started_at`/`completed_at` after a change of category (docs/api.md: Issue statuses): a rule of lib/model/workflow.ts. */
export { statusTimestamps } from '../model/workflow.ts';

function refusal(err: unknown): unknown {
  if (!(err instanceof Refused)) return err;
  switch (err.reason) {
    case 'project':
      return new NotFoundError('Project');
    case 'sprint':
      return new NotFoundError('Sprint');
    case 'assignee':
      return new ValidationError([assigneeMessage]);
    case 'stale':
      return new UnavailableError();
    default:
      return err;
  }
}

/** Runs a read-decide-write step of an issue write, again on a fresh read while it loses races. */
async function withRetries<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await rereadOnStale(step, ISSUE_WRITE_BUDGET);
  } catch (err) {
    throw refusal(err);
  }
}

/**
 * The issue with its ancestors, in one BatchGet; 404 unless the project, the sprint of the path and
 * the issue exist and the issue is in that very list (a sprint issue is not found under the
 * backlog path nor under another sprint). `otherSprint` is read in the same call.
 */
async function loadIssue(
  caller: Principal,
  at: IssueLocation,
  issueId: number,
  otherSprint?: number | null,
  parentId?: number,
  /** Its organisation too, in the same call (a delete's trash retention). */
  withOrganisation = false,
) {
  const sprintIds = [at.sprintId, otherSprint].filter((s): s is number => typeof s === 'number');
  const family = await store.getIssueFamily(
    caller.orgId,
    at.projectId,
    sprintIds,
    issueId,
    parentId === undefined ? [] : [parentId],
    withOrganisation,
  );
  if (!family.project) throw new NotFoundError('Project');
  if (at.sprintId !== null && !family.sprints.get(at.sprintId)) {
    throw issueNotHere(family.issue, at.sprintId, new NotFoundError('Sprint'));
  }
  if (!family.issue || (family.issue.sprint_id ?? null) !== at.sprintId) throw issueNotHere(family.issue, at.sprintId);
  if ([...family.sprints.values()].some((s) => s?.status === 'completing')) throw new SprintBusyError();
  const project = family.project;
  const owner = at.sprintId === null ? project : family.sprints.get(at.sprintId);
  const parent = parentId === undefined ? undefined : family.others.get(parentId);
  return {
    project,
    sprints: family.sprints,
    issue: family.issue,
    index: rankIndex(owner),
    parent,
    retentionDays: family.retentionDays,
  };
}

/** An issue's rank in its block, its Query sent before the issue is read, for the list key it is expected at. */
interface RankAhead {
  position: number;
  rank: Promise<number>;
}

/** A read sent before the issue's read that decides whether it is used: awaited only then (a read that throws first leaves it unused). */
function sentAhead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** Sends the Query of an issue's rank in its block for the list key `position` (a hint), beside the issue's read. */
function rankAhead(orgId: number, at: IssueLocation, issueId: number, position: number): RankAhead {
  return { position, rank: sentAhead(store.rankInBlock(orgId, at.projectId, at.sprintId, { id: issueId, position })) };
}

/**
 * The place of an issue in its list, given the list's rank index as read: one keys-only Query, or
 * the one sent ahead (`rankAhead`) when the issue is at the key it was sent for.
 */
async function placeIn(orgId: number, projectId: number, index: RankIndex, issue: IssueItem, ahead?: RankAhead): Promise<number> {
  const inBlock =
    ahead?.position === issue.position
      ? await ahead.rank
      : await store.rankInBlock(orgId, projectId, issue.sprint_id ?? null, issue);
  return countBefore(index, blockOf(issue.position)) + inBlock;
}

/**
 * The stored issues that pass every filter given (AND). Label names are looked up in the catalogue
 * of `project` (read with the page); a name it does not hold matches no issue.
 */
export function issueFilter(filters: IssueListFilters, project?: object): IssueMatch {
  const q = filters.q?.toLowerCase();
  const classified = classificationFilter(filters);
  const labelIds = filters.labels === undefined ? undefined : labelFilterIds(project, filters.labels);
  return (item) =>
    (filters.labels === undefined || carriesAll(item, labelIds)) &&
    (filters.status === undefined || filters.status.includes(issueItem.field(item, 'status'))) &&
    (filters.assigneeId === undefined || issueItem.field(item, 'assigneeId') === filters.assigneeId) &&
    (filters.parentId === undefined || issueItem.field(item, 'parentId') === filters.parentId) &&
    (q === undefined || String(issueItem.field(item, 'title')).toLowerCase().includes(q)) &&
    (filters.updatedSince === undefined || issueItem.field(item, 'updatedAt') >= filters.updatedSince) &&
    classified(issueStateOf(0, item as never));
}

/**
 * A sprint's issues or the backlog, in list order, each with its place; the total comes from a
 * counter. With a filter, the page holds the matches among the next issues looked through (see
 * lib/db/issues/issues.ts: listIssues) and `total` counts the matches found up to there.
 */
export async function listIssues(caller: Principal, at: IssueLocation, page: PageRequest, filters?: IssueListFilters) {
  const filter = filters ? (project?: object) => issueFilter(filters, project) : undefined;
  const result = await store.listIssues(caller.orgId, at.projectId, at.sprintId, page, filter);
  if (!result.project) throw new NotFoundError('Project');
  if (at.sprintId !== null && !result.sprint) throw new NotFoundError('Sprint');
  const catalogue = catalogueOf(result.project);
  const workflow = workflowOf(result.project);
  const items = result.issues.map(({ item, place }) => store.toIssue(item, place, catalogue, workflow));
  const listed = listLength(at.sprintId, at.sprintId === null ? result.project : result.sprint);
  return {
    page: { items, nextCursor: result.nextCursor, cursorAfter: result.cursorAfter },
    items,
    total: result.matches ? result.matches.count : listed,
    filtered: result.matches,
  };
}

/**
 * One issue, with its place in its list (one BatchGet with its ancestors, one keys-only Query).
 * Given `expected`, the list key a pointer last saw it at (a hint), the Query for that key is sent
 * beside the read; an issue at another key now (moved in its list, or renumbered by a neighbour's
 * move) has its own key's Query after the read.
 */
export async function getIssue(caller: Principal, at: IssueLocation, issueId: number, expected?: number): Promise<Issue> {
  const ahead = expected === undefined ? undefined : rankAhead(caller.orgId, at, issueId, expected);
  const { project, issue, index } = await loadIssue(caller, at, issueId);
  const place = await placeIn(caller.orgId, at.projectId, index, issue, ahead);
  return store.toIssue(issue, place, catalogueOf(project), workflowOf(project));
}

/**
 * What an import gives an issue it creates (lib/services/import-export/import.ts) beyond the API's fields: items
 * written in the same transaction (its source-key record, refused if present; its activity entry),
 * the source's own times and key, its author, and the number it keeps (reserved before).
 */
export interface ImportedIssue {
  items: (issue: { id: number; sprintId: number | null; number: string }) => GuardedItem[];
  created_at?: string | undefined;
  updated_at?: string | undefined;
  /** Undefined: as a create sets them (from `updated_at`); null: none. */
  started_at?: string | null | undefined;
  completed_at?: string | null | undefined;
  source_key?: string | null | undefined;
  /** `n` of `<prefix>-n`, reserved for this issue (lib/db/imports/imports.ts: `reserveIssueNumbers`); absent: the sequence's next. */
  number?: number | undefined;
  /** The account shown as its author (`author:`); absent: the caller. */
  author_id?: number | undefined;
  /** False: the sprint's history (added scope, burndown) is not moved (an export file brings its own). */
  history?: boolean | undefined;
  /** Activity entries and comments written in `items` (kept as the issue's counts). */
  activityCount?: number | undefined;
  commentsCount?: number | undefined;
}

/**
 * A new issue as its create writes it: the id, number and appended position of its slot, in its
 * list, with what was given (labels as resolved), its parent, and what an import keeps of its
 * source (times, key). Default status: `todo` in a sprint, `backlog` in the backlog.
 */
/**
 * The state a create puts its issue in (the one it names, else the first of its list's default
 * category), held to what that state requires (docs/workflows.md: transition rules); 422 otherwise.
 */
export function stateOfNewIssue(workflow: Workflow, input: IssueCreate, sprintId: number | null, now: string): StateWrite {
  const state = stateOnCreate(workflow, input, sprintId === null ? 'backlog' : 'todo', now);
  const to = liveState(workflow, state.state_id);
  const problems = to
    ? transitionProblems(workflow, undefined, to, {
        blocked: false,
        assignee_id: input.assignee_id ?? null,
        story_points: input.story_points ?? null,
        due_date: input.due_date ?? null,
        description: input.description ?? null,
      })
    : [];
  // Less its last line (the states an issue may move to: a create moves from none).
  if (problems.length > 0) throw new ValidationError(problems.slice(0, -1));
  return state;
}

export function newIssue(
  slot: { id: number; number: number; positionSeq: number },
  prefix: string,
  at: IssueLocation,
  input: IssueCreate,
  labelIds: number[],
  catalogue: ReturnType<typeof catalogueOf>,
  parentId: number | null,
  imported?: Omit<ImportedIssue, 'items'>,
  now = imported?.updated_at ?? new Date().toISOString(),
  /** The project's workflow (lib/db/projects/states.ts): the state a create names, and its rules. */
  workflow: Workflow = workflowOf(undefined),
): Issue {
  const state = stateOfNewIssue(workflow, input, at.sprintId, now);
  const times = state;
  return {
    id: slot.id,
    project_id: at.projectId,
    sprint_id: at.sprintId,
    issue_number: `${prefix}-${slot.number}`,
    source_key: imported?.source_key ?? null,
    title: input.title,
    description: input.description ?? null,
    ...statusAnswer(workflow, state.state_id, state.status),
    story_points: input.story_points ?? null,
    position: appendedPosition(slot.positionSeq),
    assignee_id: input.assignee_id ?? null,
    priority: input.priority ?? unclassified.priority,
    type: input.type ?? unclassified.type,
    due_date: input.due_date ?? null,
    parent_id: parentId,
    sub_issues_summary: { total: 0, done: 0, story_points: 0, completed_story_points: 0 },
    labels: issueLabels(labelIds, catalogue),
    started_at: imported?.started_at === undefined ? times.started_at : imported.started_at,
    completed_at: imported?.completed_at === undefined ? times.completed_at : imported.completed_at,
    created_at: imported?.created_at ?? now,
    updated_at: now,
    blocked: false,
    links: { count: 0, pull_request_state: null, pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 } },
  };
}

/**
 * Creates an issue at the end of a sprint or of the backlog. Default status: `todo` in a sprint,
 * `backlog` in the backlog. Its number is `<prefix>-<n>`, n from the project's sequence (atomic,
 * never handed out twice). A create refused after taking its number gives it back while it is
 * still the latest, so a refusal leaves no gap unless a concurrent create took the next number.
 */
export async function createIssue(
  caller: Principal,
  at: IssueLocation,
  input: IssueCreate,
  imported?: ImportedIssue,
): Promise<Issue> {
  try {
    // A sprint's count comes from the sprint, read alongside (the backlog's from the allocation).
    const parentId = input.parent_id ?? null;
    const [slot, owner, parentItem] = await Promise.all([
      store.allocateIssueSlot(caller.orgId, at.projectId, imported?.number),
      at.sprintId === null ? undefined : store.getListOwner(caller.orgId, at.projectId, at.sprintId),
      parentId === null ? undefined : readIssueItem(caller.orgId, at.projectId, parentId),
    ]);
    // A decision that refuses the issue gives its number back, if no create took one since (docs/api.md);
    // a give-back that fails leaves a gap, and the refusal is still the answer.
    const orGiveBack = async <T>(step: () => T | Promise<T>, refused: (err: unknown) => boolean = () => true) => {
      try {
        return await step();
      } catch (err) {
        if (refused(err)) await store.releaseIssueSlot(caller.orgId, at.projectId, slot).catch(() => false);
        throw err;
      }
    };
    const parent = await orGiveBack(() => decideParent(caller.orgId, at.projectId, undefined, parentId, parentItem));
    const listed = at.sprintId === null ? slot.backlogCount : listLength(at.sprintId, owner);
    // Names and ids of the project's catalogue, as the allocation read it; unknown ones: 422, nothing kept.
    const labelIds = await orGiveBack(() => (input.labels === undefined ? [] : resolveLabels(slot.project, input.labels)));
    // A state the project has not, or one whose rules refuse the issue: nothing kept.
    const issue = await orGiveBack(() =>
      newIssue(
        slot,
        slot.prefix,
        at,
        input,
        labelIds,
        catalogueOf(slot.project),
        parent.parentId,
        imported,
        undefined,
        workflowOf(slot.project),
      ),
    );
    // Refused (an assignee not of the organisation, a sprint gone or completing): nothing was written.
    await orGiveBack(
      () =>
        store.insertIssue(
          caller.orgId,
          at.projectId,
          issue,
          parent.guard && parent.parentNumber ? { number: parent.parentNumber, guard: parent.guard } : undefined,
          labelIds,
          imported?.author_id ?? caller.accountId,
          imported?.items({ id: issue.id, sprintId: issue.sprint_id, number: issue.issue_number }),
          imported,
        ),
      (err) => err instanceof Refused,
    );
    // Appended: last of the list as it was read. Creates running at the same time may answer the
    // same place; the list itself reads 1..n (an allocation is unique and above every key).
    return withVersion({ ...issue, position: listed + 1 }, writtenIssue(caller.orgId, at.projectId, issue.id, 1));
  } catch (err) {
    // The parent's guard refused: gone, full or moved meanwhile. A read tells which (422), else 503.
    if (isRefused(err, STALE) && input.parent_id) {
      const again = await readIssueItem(caller.orgId, at.projectId, input.parent_id);
      await decideParent(caller.orgId, at.projectId, undefined, input.parent_id, again);
    }
    // The sprint's guard refuses both a missing sprint and one being completed: tell them apart.
    if (isRefused(err, 'sprint') && at.sprintId !== null) {
      const { sprints } = await store.getIssueFamily(caller.orgId, at.projectId, [at.sprintId]);
      if (sprints.get(at.sprintId)?.status === 'completing') throw new SprintBusyError();
    }
    throw refusal(err);
  }
}

/** New issues' ids, numbers and positions taken at once, with the project as the taking wrote it. */
export type ReservedIssues = Awaited<ReturnType<typeof store.allocateIssueSlots>>;

/**
 * Takes the slots of `creates` in one go, in the order given (numbers follow it; a number an
 * import keeps is its own): an importer that writes them in several steps (children after their
 * parents) hands each step its share, so the lists still read in the order given.
 */
export async function reserveIssues(
  caller: Principal,
  projectId: number,
  creates: readonly { imported?: { number?: number | undefined } | undefined }[],
): Promise<ReservedIssues> {
  try {
    return await store.allocateIssueSlots(
      caller.orgId,
      projectId,
      creates.length,
      creates.map((c) => c.imported?.number),
    );
  } catch (err) {
    // A project gone: 404.
    throw refusal(err);
  }
}

/** The share of `reserved` of the creates at `indexes` (in that order). */
export const reservedShare = (reserved: ReservedIssues, indexes: readonly number[]): ReservedIssues => ({
  ...reserved,
  slots: indexes.map((i) => reserved.slots[i]!),
});

/** One create of `createIssuesTogether`: what `createIssue` takes. */
export interface CreateTogether {
  /** Its list: a sprint of the project, or the backlog (null). */
  sprintId: number | null;
  input: IssueCreate;
  imported?: ImportedIssue | undefined;
}

/** What became of one create of `createIssuesTogether`. */
export type CreatedTogether =
  | { ok: true; id: number; number: string; sprintId: number | null; updatedAt: string; parentGiven: boolean }
  | { ok: false; error: unknown };

/**
 * Creates issues at the end of their lists (sprints of one project, or its backlog), in order, as
 * `createIssue` would one after the other, in fewer calls (imports): their ids, numbers (or the
 * numbers an import keeps) and positions taken at once in the order given, each parent read once
 * (side by side) and decided once for all its new children, and each list's issues written by as
 * few transactions as DynamoDB's limits allow (lib/db/issues/issues.ts: `insertChunks`), with what each
 * brings (`imported.items`).
 * A parent that refuses (gone, full, too deep) leaves its children without one (`parentGiven`
 * false: the caller links them later and reports the refusal then). A transaction refused is sent
 * again issue by issue, each refused on its own reason (a parent changed meanwhile: without it).
 * Any other failure stops the writes: those written are answered as such, the others with it.
 */
export async function createIssuesTogether(
  caller: Principal,
  projectId: number,
  creates: readonly CreateTogether[],
  /** Their slots, reserved before (`reserveIssues`), one per create in order; absent: reserved now. */
  slots?: ReservedIssues,
): Promise<CreatedTogether[]> {
  const { orgId } = caller;
  const parentIds = [...new Set(creates.map((c) => c.input.parent_id).filter((p): p is number => typeof p === 'number'))];
  let reserved: ReservedIssues;
  let parentItems: (IssueItem | undefined)[];
  try {
    [reserved, parentItems] = await Promise.all([
      slots ?? reserveIssues(caller, projectId, creates),
      Promise.all(parentIds.map((id) => readIssueItem(orgId, projectId, id))),
    ]);
  } catch (err) {
    throw refusal(err);
  }
  const given = await parentsGiven(orgId, projectId, parentIds, parentItems);
  const outcomes: CreatedTogether[] = [];
  const entries = togetherEntries(caller, projectId, creates, reserved, given, outcomes);
  await writeTogether(orgId, projectId, creates, entries, outcomes);
  return outcomes;
}

/** A parent given to creates together: decided once, with the room it has for more sub-issues. */
type GivenParent = { decision: ParentDecision; room: number };

/** Each parent decided once; a refusal leaves its children without it. */
async function parentsGiven(
  orgId: number,
  projectId: number,
  parentIds: number[],
  parentItems: (IssueItem | undefined)[],
): Promise<Map<number, GivenParent>> {
  const given = new Map<number, GivenParent>();
  await Promise.all(
    parentIds.map(async (id, i) => {
      const item = parentItems[i];
      try {
        const decision = await decideParent(orgId, projectId, undefined, id, item);
        if (item) given.set(id, { decision, room: childrenRoom(item) });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
      }
    }),
  );
  return given;
}

type TogetherEntry = store.NewIssue & { index: number };

/** The issues the creates make on their slots (a create refused here has its outcome set), each with its parent while it has room. */
function togetherEntries(
  caller: Principal,
  projectId: number,
  creates: readonly CreateTogether[],
  reserved: ReservedIssues,
  given: Map<number, GivenParent>,
  outcomes: CreatedTogether[],
): TogetherEntry[] {
  const catalogue = catalogueOf(reserved.project);
  const workflow = workflowOf(reserved.project);
  const entries: TogetherEntry[] = [];
  creates.forEach((c, index) => {
    try {
      const labelIds = c.input.labels === undefined ? [] : resolveLabels(reserved.project, c.input.labels);
      const wanted = c.input.parent_id ?? null;
      const parent = wanted === null ? undefined : given.get(wanted);
      const { guard } = parent?.decision ?? {};
      const number = parent?.decision.parentNumber;
      const withParent = parent && guard && number && parent.room > 0 ? { number, guard } : undefined;
      if (parent && withParent) parent.room -= 1;
      const issue = newIssue(
        reserved.slots[index]!,
        reserved.prefix,
        { projectId, sprintId: c.sprintId },
        c.input,
        labelIds,
        catalogue,
        withParent ? wanted : null,
        c.imported,
        undefined,
        workflow,
      );
      entries.push({
        index,
        issue,
        labelIds,
        authorId: c.imported?.author_id ?? caller.accountId,
        parent: withParent,
        tail: c.imported?.items({ id: issue.id, sprintId: issue.sprint_id, number: issue.issue_number }),
        activityCount: c.imported?.activityCount,
        commentsCount: c.imported?.commentsCount,
      });
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  });
  return entries;
}

/**
 * Writes the entries, each list's in order (lists in the order first met), each list in as few
 * transactions as fit; a transaction refused is written again issue by issue. A failure that is
 * not a refusal (DynamoDB unavailable) stops the writes: what was written is answered as written,
 * the rest with that failure.
 */
async function writeTogether(
  orgId: number,
  projectId: number,
  creates: readonly CreateTogether[],
  entries: TogetherEntry[],
  outcomes: CreatedTogether[],
): Promise<void> {
  const batchOf = (e: TogetherEntry) => ({ sprintId: e.issue.sprint_id, history: creates[e.index]!.imported?.history });
  const done = (e: TogetherEntry) => {
    outcomes[e.index] = {
      ok: true,
      id: e.issue.id,
      number: e.issue.issue_number,
      sprintId: e.issue.sprint_id,
      updatedAt: e.issue.updated_at,
      parentGiven: e.parent !== undefined,
    };
  };
  const alone = async (e: TogetherEntry): Promise<void> => {
    try {
      await store.insertIssues(orgId, projectId, { ...batchOf(e), issues: [e] });
      done(e);
    } catch (err) {
      if (!(e.parent && isRefused(err, STALE))) {
        outcomes[e.index] = { ok: false, error: refusal(err) };
        return;
      }
      // Its parent changed since it was read: created without it (linked later, as a refused parent is).
      await alone({ ...e, parent: undefined, issue: { ...e.issue, parent_id: null } });
    }
  };
  const lists = new Map<string, TogetherEntry[]>();
  for (const e of entries) {
    const id = `${e.issue.sprint_id ?? 'backlog'}/${String(batchOf(e).history ?? true)}`;
    lists.set(id, [...(lists.get(id) ?? []), e]);
  }
  let failure: { error: unknown } | undefined;
  for (const list of lists.values()) {
    const batch = batchOf(list[0]!);
    for (const chunk of store.insertChunks(orgId, projectId, batch, list)) {
      if (failure) {
        for (const e of chunk) outcomes[e.index] = { ok: false, error: failure.error };
        continue;
      }
      try {
        await store.insertIssues(orgId, projectId, { ...batch, issues: chunk });
        chunk.forEach(done);
      } catch (err) {
        if (!(err instanceof Refused)) {
          failure = { error: err };
          for (const e of chunk) outcomes[e.index] = { ok: false, error: err };
          continue;
        }
        for (const e of chunk) await alone(e);
      }
    }
  }
}

/** The fields an update sets, its time always among them. */
type UpdateFields = store.IssueFieldChanges & { updatedAt: string };

/** An update's plain fields, by the API's name and the issue declaration's. */
const plainFields = [
  ['title', 'title'],
  ['description', 'description'],
  ['story_points', 'storyPoints'],
  ['assignee_id', 'assigneeId'],
  ['priority', 'priority'],
  ['type', 'type'],
  ['due_date', 'dueDate'],
] as const satisfies readonly (readonly [keyof IssueUpdate & keyof Issue, keyof store.IssueFieldChanges])[];

/**
 * What an update sets of an issue's own fields (`set`: `updatedAt` and what the caller decided
 * already in it): the plain fields, the state with its category and times, the labels (by id). The
 * issue as it will read (its status by the state's name, its labels through the catalogue).
 */
function fieldChanges(current: Issue, changes: IssueUpdate, project: ProjectItem, set: UpdateFields): Issue {
  const now = set.updatedAt;
  const next: Issue = {
    ...current,
    updated_at: now,
    ...(set.sprintId !== undefined && { sprint_id: set.sprintId }),
    ...(set.parentId !== undefined && { parent_id: set.parentId }),
  };
  for (const [field, stored] of plainFields) {
    if (changes[field] === undefined) continue;
    Object.assign(set, { [stored]: changes[field] });
    Object.assign(next, { [field]: changes[field] });
  }
  // Its state (docs/workflows.md): stored as the state and its category, held to the project's rules
  // on the issue as this write leaves it.
  const workflow = workflowOf(project);
  const state = stateOnUpdate(workflow, { ...current, status: current.status_category }, changes, now);
  if (state) {
    const to = liveState(workflow, state.state_id);
    const after = <K extends 'assignee_id' | 'story_points' | 'due_date' | 'description'>(field: K) =>
      changes[field] !== undefined ? changes[field] : current[field];
    const problems = to
      ? transitionProblems(workflow, liveState(workflow, current.state_id), to, {
          blocked: current.blocked,
          assignee_id: after('assignee_id') ?? null,
          story_points: after('story_points') ?? null,
          due_date: after('due_date') ?? null,
          description: after('description') ?? null,
        })
      : [];
    if (problems.length > 0) throw new ValidationError(problems);
    Object.assign(set, store.stateFields(state));
    // The answer's status is the state's name, not its category.
    Object.assign(next, {
      started_at: state.started_at,
      completed_at: state.completed_at,
      ...statusAnswer(workflow, state.state_id, state.status, current.blocked),
    });
  }
  if (changes.labels !== undefined) {
    const labelIds = resolveLabels(project, changes.labels);
    set.labelIds = labelIds;
    next.labels = issueLabels(labelIds, catalogueOf(project));
  }
  return next;
}

/** An update `updateIssuesTogether` takes: one that leaves the issue where it is, with no new parent. */
export const isPlainUpdate = (changes: IssueUpdate, at: IssueLocation): boolean =>
  changes.position === undefined &&
  changes.parent_id === undefined &&
  (changes.sprint_id === undefined || changes.sprint_id === at.sprintId);

/**
 * Plain updates (`isPlainUpdate`) of different issues of one list, each as `updateIssue` answers it,
 * in a bounded number of serial round trips whatever their count: the list and the issues in one
 * read (a BatchGetItem per 100 issues, side by side), every decision made on it, then the writes in
 * as few transactions as DynamoDB's limits allow (lib/db/issues/issues.ts: `updateChunks`), the issues'
 * places read side by side meanwhile. A transaction refused (an issue changed since it was read, an
 * assignee not of the organisation) has its updates made again one by one by `updateIssue`, each
 * answered on its own.
 */
export async function updateIssuesTogether(
  caller: Principal,
  at: IssueLocation,
  updates: readonly { issueId: number; changes: IssueUpdate }[],
): Promise<({ ok: true; issue: Issue } | { ok: false; error: unknown })[]> {
  const { orgId } = caller;
  const { projectId } = at;
  const ids = updates.map((u) => u.issueId);
  if (new Set(ids).size !== ids.length) throw new Error('updateIssuesTogether: an issue may be updated once per call');
  const family = await store.getIssueFamily(orgId, projectId, at.sprintId === null ? [] : [at.sprintId], undefined, ids);
  const sprint = at.sprintId === null ? undefined : family.sprints.get(at.sprintId);
  const listError = !family.project
    ? new NotFoundError('Project')
    : at.sprintId !== null && !sprint
      ? new NotFoundError('Sprint')
      : sprint?.status === 'completing'
        ? new SprintBusyError()
        : undefined;
  if (listError || !family.project) return updates.map(() => ({ ok: false, error: listError }));
  const project = family.project;
  const index = rankIndex(at.sprintId === null ? project : sprint);
  const catalogue = catalogueOf(project);
  const now = new Date().toISOString();
  const outcomes: ({ ok: true; issue: Issue } | { ok: false; error: unknown })[] = [];
  const writes: (store.PlainWrite & { index: number; item: IssueItem; next: Issue })[] = [];
  updates.forEach(({ issueId, changes }, i) => {
    try {
      const item = family.others.get(issueId);
      if (!item || issueItem.field(item, 'sprintId') !== at.sprintId) throw issueNotHere(item, at.sprintId);
      const set: UpdateFields = { updatedAt: now };
      const next = fieldChanges(store.toIssue(item, item.position, catalogue, workflowOf(project)), changes, project, set);
      writes.push({
        index: i,
        item,
        next,
        id: issueId,
        rev: item.rev,
        set,
        before: issueStateOf(orgId, item as never),
        after: issueStateOf(orgId, store.withChanges(item, set)),
        assigneeId: typeof changes.assignee_id === 'number' ? changes.assignee_id : undefined,
      });
    } catch (error) {
      outcomes[i] = { ok: false, error };
    }
  });
  const places = Promise.all(writes.map((w) => placeIn(orgId, projectId, index, w.item)));
  places.catch(() => undefined);
  const redo: number[] = [];
  for (const chunk of store.updateChunks(orgId, projectId, writes)) {
    try {
      await store.writeIssues(orgId, projectId, chunk);
      for (const w of chunk) outcomes[w.index] = { ok: true, issue: w.next };
    } catch (err) {
      // Refused: one by one below. Anything else (DynamoDB unavailable) is these items' answer.
      if (err instanceof Refused) redo.push(...chunk.map((w) => w.index));
      else for (const w of chunk) outcomes[w.index] = { ok: false, error: err };
    }
  }
  const placed = await places;
  writes.forEach((w, k) => {
    const done = outcomes[w.index];
    if (!done?.ok) return;
    const stored = writtenIssue(orgId, projectId, w.id, versionOf(w.item) + 1);
    done.issue = withVersion({ ...w.next, position: placed[k]! }, stored);
  });
  // One by one, each as its single route writes it (read again, decided again).
  for (const i of redo) {
    const { issueId, changes } = updates[i]!;
    try {
      outcomes[i] = { ok: true, issue: await updateIssue(caller, at, issueId, changes) };
    } catch (error) {
      outcomes[i] = { ok: false, error };
    }
  }
  return outcomes;
}

/** How an update is made, when not by a request. */
export interface UpdateOptions {
  /** An import's: the time the change is made at (its source's `updated_at`), instead of now. */
  at?: string | undefined;
  /**
   * A revert's (lib/services/revert.ts): the entry it reverts, marked on the issue by the write,
   * and the changes decided again on the issue as each attempt reads it (it throws when the entry's
   * fields moved on). Its list and parent are the same as `given`'s.
   */
  revert?: { entry: string; decide: (current: Issue) => IssueUpdate } | undefined;
  /** An integration's (GitHub's status automation): what made the change, shown on its activity entry. */
  via?: string | undefined;
}

/**
 * Partial update (PUT and PATCH alike). `sprint_id` moves the issue to another sprint of the
 * project (or to the backlog with null), at the end unless `position` says where; `position: k`
 * puts it at place k among its siblings (k past the end: last; its own place changes nothing).
 * Counters and rank counters of both lists move in the same transaction as the issue. The answer
 * carries the issue's place as written.
 */
export async function updateIssue(
  caller: Principal,
  at: IssueLocation,
  issueId: number,
  given: IssueUpdate,
  options: UpdateOptions = {},
): Promise<Issue> {
  // The issue's parent was found gone by a refused write: it counts nowhere until its cascade runs.
  const gone: number[] = [];
  return withRetries(async () => {
    const target = given.sprint_id !== undefined ? given.sprint_id : at.sprintId;
    const wantedParent = typeof given.parent_id === 'number' ? given.parent_id : undefined;
    const ahead = placeAhead(caller.orgId, at, issueId, target, given.position);
    // A parent to be is read with the issue, in the same call.
    const { project, sprints, issue, index, parent: parentItem } = await loadIssue(caller, at, issueId, target, wantedParent);
    const targetSprint = target === null ? undefined : sprints.get(target);
    if (target !== null && !targetSprint) throw new ValidationError([targetSprintMessage]);
    const moving = target !== at.sprintId;
    // Internally `position` is the stored key here; the answer replaces it with the place.
    const catalogue = catalogueOf(project);
    const workflow = workflowOf(project);
    const current = store.toIssue(issue, issue.position, catalogue, workflow);
    const changes = options.revert ? options.revert.decide(current) : given;
    const now = options.at ?? new Date().toISOString();

    const { set, parentGuard } = await updateSet(caller.orgId, at.projectId, issue, changes, parentItem, {
      updatedAt: now,
      ...(moving ? { sprintId: target } : {}),
    });
    const next = fieldChanges(current, changes, project, set);

    const listCount = listLength(target, target === null ? project : targetSprint);
    const targetIndex = moving ? rankIndex(target === null ? project : targetSprint) : index;
    const place = await placeIssue(caller.orgId, at.projectId, {
      project,
      issue: current,
      target,
      moving,
      siblings: moving ? listCount : Math.max(0, listCount - 1),
      position: changes.position,
      index: targetIndex,
      listRev: listRevisionOf(target, target === null ? project : targetSprint),
      ahead,
    });

    // What the derivations keep of the change is theirs to say (lib/model/derivations.ts).
    const before = issueStateOf(caller.orgId, issue as never);
    const after: IssueState = {
      ...issueStateOf(caller.orgId, store.withChanges(issue, set)),
      position: place.position ?? issue.position,
    };
    const write = store.writeIssue(caller.orgId, at.projectId, {
      id: issueId,
      rev: issue.rev,
      set,
      before,
      after,
      placed: place.position !== undefined,
      listRev: place.listRev,
      renumber: place.renumber,
      assigneeId: typeof changes.assignee_id === 'number' ? changes.assignee_id : undefined,
      parentGuard,
      goneIssues: gone,
      reverts: options.revert?.entry,
      via: options.via,
    });
    // Its place, as of the state the decision was taken on: the place it was put at, last when
    // appended, or (left where it was) its place as read, counted while the write runs.
    const position = await writtenAt(
      write,
      place.at !== undefined ? place.at : placeIn(caller.orgId, at.projectId, index, issue),
      before.parentId,
      gone,
    );
    // At least one past the version read (a comment's counter may have moved it meanwhile).
    const stored = writtenIssue(caller.orgId, at.projectId, issueId, versionOf(issue) + 1);
    return withVersion({ ...next, position }, stored);
  });
}

/** What an update sets beside its time and list (`set`): its new parent, decided on the parent read with the issue, and that parent's guard. */
async function updateSet(
  orgId: number,
  projectId: number,
  issue: IssueItem,
  changes: IssueUpdate,
  parentItem: IssueItem | undefined,
  set: UpdateFields,
): Promise<{ set: UpdateFields; parentGuard: ParentGuard | undefined }> {
  if (changes.parent_id === undefined || changes.parent_id === (issue.parent_id ?? null)) return { set, parentGuard: undefined };
  const decided = await decideParent(orgId, projectId, issue, changes.parent_id, parentItem);
  return {
    set: { ...set, parentId: decided.parentId, parentNumber: decided.parentNumber },
    parentGuard: decided.guard,
  };
}

/**
 * An update's write, with its issue's place for the answer read beside it. Refused by the
 * counters of the parent it left (`left`), the parent was deleted meanwhile (its cascade will
 * clear the issue's parent_id): noted in `gone`, and decided again (STALE), keeping no counters on it.
 */
async function writtenAt<P>(
  write: Promise<unknown>,
  place: P | Promise<P>,
  left: number | null | undefined,
  gone: number[],
): Promise<P> {
  const [written, answer] = await Promise.allSettled([write, place]);
  if (written.status === 'rejected') {
    const reason: unknown = written.reason;
    if (reason instanceof Refused && reason.reason === 'issue' && typeof left === 'number' && !gone.includes(left)) {
      gone.push(left);
      throw new Refused(STALE);
    }
    throw reason;
  }
  if (answer.status === 'rejected') throw answer.reason;
  return answer.value;
}

interface PlaceRequest {
  project: ProjectItem;
  /** The issue, `position` being its stored key. */
  issue: Issue;
  /** The list the issue ends up in. */
  target: number | null;
  moving: boolean;
  /** Issues of the target list other than this one (from its counter). */
  siblings: number;
  /** The place asked for, if any. */
  position: number | undefined;
  /** The target list's rank index as read. */
  index: RankIndex;
  /** The target list's revision as read (`positions_rev` of the sprint, `backlog_rev` of the project). */
  listRev: number | undefined;
  /** Its reads sent beside the issue's read. */
  ahead: PlaceAhead;
}

/**
 * What a placement reads that the issue's read does not decide, sent beside that read: for a move to
 * the end of another list, its allocation; for a place among the first WINDOW_MARGIN + 2 of a list,
 * its window, which starts at the list's first key whatever the rank index (`windowAtStart`). So a
 * move takes the round trips of an update of fields, and a move by key those of its list's path.
 * One the decision does not use is spent: a place past the end of the list (the issue is appended),
 * an issue not in the path's list.
 */
interface PlaceAhead {
  allocation?: Promise<number> | undefined;
  window?: { target: number | null; place: number; read: Promise<ListWindow> } | undefined;
}

/** The reads sent ahead for an update that asks `position` (or none) of the issue at `at`, into the list `target`. */
function placeAhead(
  orgId: number,
  at: IssueLocation,
  issueId: number,
  target: number | null,
  position: number | undefined,
): PlaceAhead {
  if (position === undefined) {
    return target === at.sprintId ? {} : { allocation: sentAhead(store.allocatePositions(orgId, at.projectId, 1)) };
  }
  if (!windowAtStart(position, WINDOW_MARGIN)) return {};
  // An empty rank index reads from the list's first key.
  const options = { place: position, index: [], movedId: issueId, margin: WINDOW_MARGIN };
  return { window: { target, place: position, read: sentAhead(store.windowAroundPlace(orgId, at.projectId, target, options)) } };
}

interface Place {
  /** The new stored key; undefined leaves the issue where it is. */
  position?: number | undefined;
  renumber?: Renumbering[] | undefined;
  /** A computed position: the target list's revision the write must check (and bump). */
  listRev?: { expected: number | undefined } | undefined;
  /** The place the issue ends up at, when the decision gives it (a place asked for, or last). */
  at?: number | undefined;
}

/** Decides where an issue goes (see lib/model/positions.ts for the algorithm). */
async function placeIssue(orgId: number, projectId: number, req: PlaceRequest): Promise<Place> {
  const { issue, target, moving, siblings, position, ahead } = req;
  const last = siblings + 1;
  const append = async (): Promise<Place> => ({
    position: appendedPosition(await (ahead.allocation ?? store.allocatePositions(orgId, projectId, 1))),
    at: last,
  });
  if (position === undefined) return moving ? append() : {};
  if (position > siblings) return !moving && siblings === 0 ? { at: 1 } : append();

  const window =
    ahead.window?.target === target && ahead.window.place === position
      ? await ahead.window.read
      : await store.windowAroundPlace(orgId, projectId, target, {
          place: position,
          index: req.index,
          movedId: issue.id,
          movedPosition: moving ? undefined : issue.position,
          margin: WINDOW_MARGIN,
        });
  const gap = gapFor(position, window.before, window.slots.length);
  if (!moving && window.movedAt === gap) return { at: position };
  const endBound = appendedPosition(projectItem.field(req.project, 'positionSeq') + 1);
  const plan = planPlacement({ slots: window.slots, gap, atStart: window.atStart, atEnd: window.atEnd, endBound });
  // A midpoint between its neighbours writes the moving issue alone: places stay exact whatever
  // runs at once (list order is by key, then id, so even an equal key has its own place), and
  // concurrent moves into one list commit side by side. Only a placement that respaces neighbours
  // is serialised by the list's revision: it rewrites keys that another placement may be reading.
  if (plan) {
    const listRev = plan.renumber.length > 0 ? { expected: req.listRev } : undefined;
    return { position: plan.position, renumber: plan.renumber, listRev, at: position };
  }

  // No window within one transaction has room: the run from the gap to the end of the list is
  // packed. Re-append it behind the issue with fresh allocations. The chunks far from the gap are
  // written first, from the end backwards, each on its own with its rank counters (allocations
  // are unique and above everything, so the list stays ordered after every chunk); the chunk next
  // to the gap goes with the issue's own transaction. The only path whose cost grows with the
  // list (see positions.ts).
  const successor = window.slots[gap];
  if (!successor) return append();
  const run = (await store.readSide(orgId, projectId, target, successor, true)).slots.filter((s) => s.id !== issue.id);
  const first = await store.allocatePositions(orgId, projectId, run.length + 1);
  const moves = run.map((s, i) => ({ id: s.id, from: s.position, to: appendedPosition(first + 1 + i) }));
  const head = moves.slice(0, RENUMBER_WITH_WRITE);
  for (let end = moves.length; end > head.length; end -= RENUMBER_STEP) {
    const chunk = moves.slice(Math.max(head.length, end - RENUMBER_STEP), end);
    await store.renumberIssues(orgId, projectId, target, chunk);
  }
  return { position: appendedPosition(first), renumber: head, at: position };
}

/**
 * Moves an issue into the organisation's trash (docs/trash.md), in one transaction with what its
 * list, its number and its indexes keep of it; what lives under it waits there with it.
 */
export async function deleteIssue(caller: Principal, at: IssueLocation, issueId: number): Promise<void> {
  await withRetries(async () => {
    // With the organisation's trash retention, in the same one read.
    const { issue, retentionDays } = await loadIssue(caller, at, issueId, undefined, undefined, true);
    const trash = { deletedBy: caller.accountId, retentionDays };
    try {
      await store.deleteIssue(caller.orgId, at.projectId, issue as IssueItem, trash);
    } catch (err) {
      // Its parent is gone (in the trash, where its children keep their link): its summary is not kept.
      const parent = issue.parent_id;
      if (!isRefused(err, 'issue') || typeof parent !== 'number') throw err;
      await store.deleteIssue(caller.orgId, at.projectId, issue as IssueItem, trash, [parent]);
    }
  });
}

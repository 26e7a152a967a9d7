import type { ValuesFilter } from './custom-field-filter.ts';
import * as store from '../db/issues/issues.ts';
import type { IssueItem, IssueMatch } from '../db/issues/issues.ts';
import { classificationFilter } from '../model/classification.ts';

import type { IssueState } from '../model/derivations.ts';
import { issueItem, issueStateOf } from '../db/issues/issue-item.ts';

import { listLength, rankIndex } from '../db/issues/counters.ts';

import type { PageRequest } from '../db/core/list.ts';
import { projectItem } from '../db/projects/projects.ts';

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
  windowAtStart,
  type ListWindow,
  type RankIndex,
  type Slot,
} from '../model/positions.ts';

import {
  assigneeMessage,
  fieldAccountMessage,
  checkTarget,
  listRefusal,
  placeInWindow,
  placeStep,
  planCreate,
  planCreatesTogether,
  planFieldChanges,
  planPackedRun,
  updateTarget,
  type CreatePlan,
  type GivenParent,
  type ImportedFields,
  type IssueFieldSet,
  type Place,
  type ProjectRules,
} from '../model/issue-plans.ts';

import type { Principal } from '../model/principal.ts';
import { versionOf, withVersion } from '../db/core/versions.ts';

import { carriesAll, labelFilterIds } from '../db/issues/labels.ts';

import { readIssueItem, writtenIssue } from '../db/issues/issue-refs.ts';

import { issueNotHere } from './issue-keys.ts';
import { rulesOf, toIssue } from '../../lib/resources/issues.ts';

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
    case 'field_account':
      return new ValidationError([fieldAccountMessage]);
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
export function issueFilter(filters: IssueListFilters, project?: object, values?: ValuesFilter): IssueMatch {
  const q = filters.q?.toLowerCase();
  const valued = values ? values(project) : () => true;
  const classified = classificationFilter(filters);
  const labelIds = filters.labels === undefined ? undefined : labelFilterIds(project, filters.labels);
  return (item) =>
    (filters.labels === undefined || carriesAll(item, labelIds)) &&
    (filters.status === undefined || filters.status.includes(issueItem.field(item, 'status'))) &&
    (filters.assigneeId === undefined || issueItem.field(item, 'assigneeId') === filters.assigneeId) &&
    (filters.parentId === undefined || issueItem.field(item, 'parentId') === filters.parentId) &&
    (q === undefined || String(issueItem.field(item, 'title')).toLowerCase().includes(q)) &&
    (filters.updatedSince === undefined || issueItem.field(item, 'updatedAt') >= filters.updatedSince) &&
    valued(item) &&
    classified(issueStateOf(0, item as never));
}

/**
 * A sprint's issues or the backlog, in list order, each with its place; the total comes from a
 * counter. With a filter, the page holds the matches among the next issues looked through (see
 * lib/db/issues/issues.ts: listIssues) and `total` counts the matches found up to there.
 */
export async function listIssues(
  caller: Principal,
  at: IssueLocation,
  page: PageRequest,
  filters?: IssueListFilters,
  /** The `fields` filter, read by the list's route (lib/http/issue-filters.ts): the search language is no other route's. */
  values?: ValuesFilter,
) {
  const filter = filters ? (project?: object) => issueFilter(filters, project, values) : undefined;
  const result = await store.listIssues(caller.orgId, at.projectId, at.sprintId, page, filter);
  if (!result.project) throw new NotFoundError('Project');
  if (at.sprintId !== null && !result.sprint) throw new NotFoundError('Sprint');
  const rules = rulesOf(result.project);
  const items = result.issues.map(({ item, place }) => toIssue(item, place, rules));
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
  return toIssue(issue, place, rulesOf(project));
}

/**
 * What an import gives an issue it creates (lib/services/import-export/import.ts) beyond the API's
 * fields: items written in the same transaction (its source-key record, refused if present; its
 * activity entry), the source's own times and key (`ImportedFields`), its author, and the number it
 * keeps (reserved before).
 */
export interface ImportedIssue extends ImportedFields {
  items: (issue: { id: number; sprintId: number | null; number: string }) => GuardedItem[];
  /** `n` of `<prefix>-n`, reserved for this issue (lib/db/imports/imports.ts: `reserveIssueNumbers`); absent: the sequence's next. */
  number?: number | undefined;
  /** The account shown as its author (`author:`); absent: the caller. */
  author_id?: number | undefined;
  /** False: the sprint's history (added scope, burndown) is not moved (an export file brings its own). */
  history?: boolean | undefined;
  /** Activity entries and comments written in `items` (kept as the issue's counts). */
  activityCount?: number | undefined;
  commentsCount?: number | undefined;
  /** Who watches it, as an export file says (absent: its author and assignee). */
  watcherIds?: number[] | undefined;
}

/** What the issue plans read of a project item: its label catalogue and its workflow. */
export const projectRules: (project: object | undefined) => ProjectRules = rulesOf;

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
    const listed = at.sprintId === null ? slot.backlogCount : listLength(at.sprintId, owner);
    const issue = await givingSlotBack(
      caller.orgId,
      at.projectId,
      slot,
      async () => {
        const parent = await decideParent(caller.orgId, at.projectId, undefined, parentId, parentItem);
        // Unknown labels, or a state the project has not or whose rules refuse the issue: nothing kept.
        const request = { at, input, imported, now: new Date().toISOString(), authorId: caller.accountId };
        return { parent, ...planCreate(slot, slot.prefix, request, parent.parentId, projectRules(slot.project)) };
      },
      (plan) => insertCreated(caller, at.projectId, plan, imported),
    );
    // Appended: last of the list as it was read. Creates running at the same time may answer the
    // same place; the list itself reads 1..n (an allocation is unique and above every key).
    return withVersion({ ...issue, position: listed + 1 }, writtenIssue(caller.orgId, at.projectId, issue.id, 1));
  } catch (err) {
    throw await createRefusal(caller, at, input, err);
  }
}

/**
 * A create's decision and write on the slot it took. A decision that refuses gives the slot's
 * number back, if no create took one since (docs/api.md), and so does a write that was refused
 * (nothing was written); a write that failed otherwise may have landed, and keeps it. A give-back
 * that fails leaves a gap, and the refusal is still the answer.
 */
async function givingSlotBack<D, T>(
  orgId: number,
  projectId: number,
  slot: store.IssueSlot,
  decide: () => Promise<D>,
  write: (decided: D) => Promise<T>,
): Promise<T> {
  let writing = false;
  try {
    const decided = await decide();
    writing = true;
    return await write(decided);
  } catch (err) {
    if (!writing || err instanceof Refused) await store.releaseIssueSlot(orgId, projectId, slot).catch(() => false);
    throw err;
  }
}

/** Writes a planned create with its parent's guard; refused (an assignee not of the organisation, a sprint gone or completing): nothing was written. */
async function insertCreated(
  caller: Principal,
  projectId: number,
  { issue, labelIds, values, accounts, parent }: CreatePlan & { parent: ParentDecision },
  imported: ImportedIssue | undefined,
): Promise<Issue> {
  await store.insertIssue(
    caller.orgId,
    projectId,
    issue,
    parent.guard && parent.parentNumber ? { number: parent.parentNumber, guard: parent.guard } : undefined,
    labelIds,
    imported?.author_id ?? caller.accountId,
    imported?.items({ id: issue.id, sprintId: issue.sprint_id, number: issue.issue_number }),
    { ...imported, values, accounts },
  );
  return issue;
}

/** A create's failure as its answer: what a refusal of the write meant, told apart by a read where the refusal alone does not say. */
async function createRefusal(caller: Principal, at: IssueLocation, input: IssueCreate, err: unknown): Promise<unknown> {
  // The parent's guard refused: gone, full or moved meanwhile. A read tells which (422), else 503.
  if (isRefused(err, STALE) && input.parent_id) {
    const again = await readIssueItem(caller.orgId, at.projectId, input.parent_id);
    await decideParent(caller.orgId, at.projectId, undefined, input.parent_id, again);
  }
  // The sprint's guard refuses both a missing sprint and one being completed: tell them apart.
  if (isRefused(err, 'sprint') && at.sprintId !== null) {
    const { sprints } = await store.getIssueFamily(caller.orgId, at.projectId, [at.sprintId]);
    if (sprints.get(at.sprintId)?.status === 'completing') return new SprintBusyError();
  }
  return refusal(err);
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

/** What a child created together stores of its parent: the parent's number, and the guard of its decision. */
type ParentLink = { number: string; guard: ParentGuard };

/** Each parent decided once, with its room for more sub-issues; a refusal leaves its children without it. */
async function parentsGiven(
  orgId: number,
  projectId: number,
  parentIds: number[],
  parentItems: (IssueItem | undefined)[],
): Promise<Map<number, GivenParent<ParentLink>>> {
  const given = new Map<number, GivenParent<ParentLink>>();
  await Promise.all(
    parentIds.map(async (id, i) => {
      const item = parentItems[i];
      try {
        const { guard, parentNumber } = await decideParent(orgId, projectId, undefined, id, item);
        const link = guard && parentNumber ? { number: parentNumber, guard } : undefined;
        if (item) given.set(id, { link, room: childrenRoom(item) });
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
  given: Map<number, GivenParent<ParentLink>>,
  outcomes: CreatedTogether[],
): TogetherEntry[] {
  const plans = planCreatesTogether(
    projectId,
    creates.map((c) => ({ ...c, authorId: c.imported?.author_id ?? caller.accountId })),
    reserved,
    given,
    projectRules(reserved.project),
    new Date().toISOString(),
  );
  const entries: TogetherEntry[] = [];
  for (const plan of plans) {
    if ('refused' in plan) {
      outcomes[plan.index] = { ok: false, error: plan.refused };
      continue;
    }
    const { index, issue, labelIds, values, accounts, parent } = plan;
    const imported = creates[index]!.imported;
    entries.push({
      index,
      issue,
      labelIds,
      values,
      accounts,
      authorId: imported?.author_id ?? caller.accountId,
      parent,
      tail: imported?.items({ id: issue.id, sprintId: issue.sprint_id, number: issue.issue_number }),
      activityCount: imported?.activityCount,
      commentsCount: imported?.commentsCount,
      watcherIds: imported?.watcherIds,
    });
  }
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

/** One answer of `updateIssuesTogether`: the issue as written, or the error of its update. */
type UpdatedTogether = { ok: true; issue: Issue } | { ok: false; error: unknown };

/** A plain update planned among others: its write, the stored issue it was decided on, and the issue as it will read. */
type PlannedWrite = store.PlainWrite & { index: number; item: IssueItem; next: Issue };

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
): Promise<UpdatedTogether[]> {
  const { orgId } = caller;
  const { projectId } = at;
  const ids = updates.map((u) => u.issueId);
  if (new Set(ids).size !== ids.length) throw new Error('updateIssuesTogether: an issue may be updated once per call');
  const family = await store.getIssueFamily(orgId, projectId, at.sprintId === null ? [] : [at.sprintId], undefined, ids);
  const sprint = at.sprintId === null ? undefined : family.sprints.get(at.sprintId);
  const listError = listRefusal(family.project !== undefined, at.sprintId, sprint);
  if (listError || !family.project) return updates.map(() => ({ ok: false, error: listError }));
  const index = rankIndex(at.sprintId === null ? family.project : sprint);
  const outcomes: UpdatedTogether[] = [];
  const writes = plainWrites(orgId, at, updates, family.others, projectRules(family.project), outcomes);
  const places = Promise.all(writes.map((w) => placeIn(orgId, projectId, index, w.item)));
  places.catch(() => undefined);
  const redo = await writePlain(orgId, projectId, writes, outcomes);
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

/** The writes of plain updates, each decided on its issue as read (an update refused here has its outcome set). */
function plainWrites(
  orgId: number,
  at: IssueLocation,
  updates: readonly { issueId: number; changes: IssueUpdate }[],
  items: Map<number, IssueItem | undefined>,
  rules: ProjectRules,
  outcomes: UpdatedTogether[],
): PlannedWrite[] {
  const now = new Date().toISOString();
  const writes: PlannedWrite[] = [];
  updates.forEach(({ issueId, changes }, i) => {
    try {
      const item = items.get(issueId);
      if (!item || issueItem.field(item, 'sprintId') !== at.sprintId) throw issueNotHere(item, at.sprintId);
      const current = toIssue(item, item.position, rules);
      const { set, next, accounts } = planFieldChanges(current, changes, rules, { updatedAt: now });
      writes.push({
        index: i,
        item,
        next,
        id: issueId,
        rev: item.rev,
        set,
        before: issueStateOf(orgId, item),
        after: issueStateOf(orgId, store.withChanges(item, set)),
        assigneeId: typeof changes.assignee_id === 'number' ? changes.assignee_id : undefined,
        fieldAccounts: accounts,
      });
    } catch (error) {
      outcomes[i] = { ok: false, error };
    }
  });
  return writes;
}

/** Writes plain updates in as few transactions as fit; answers the indexes of those refused, to be made again one by one. */
async function writePlain(orgId: number, projectId: number, writes: PlannedWrite[], outcomes: UpdatedTogether[]) {
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
  return redo;
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
    const { issue, index, next, set, parentGuard, place, changes, accounts } = await decideUpdate(
      caller,
      at,
      issueId,
      given,
      options,
    );
    // What the derivations keep of the change is theirs to say (lib/model/derivations.ts).
    const before = issueStateOf(caller.orgId, issue);
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
      fieldAccounts: accounts,
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

/** An update decided on the issue and its lists as read: its fields, its parent's guard, its place. */
async function decideUpdate(caller: Principal, at: IssueLocation, issueId: number, given: IssueUpdate, options: UpdateOptions) {
  const { target, moving } = updateTarget(at, given);
  const wantedParent = typeof given.parent_id === 'number' ? given.parent_id : undefined;
  const ahead = placeAhead(caller.orgId, at, issueId, target, given.position);
  // A parent to be is read with the issue, in the same call.
  const { project, sprints, issue, index, parent: parentItem } = await loadIssue(caller, at, issueId, target, wantedParent);
  const targetSprint = target === null ? undefined : sprints.get(target);
  checkTarget(target, targetSprint !== undefined);
  const rules = projectRules(project);
  // Internally `position` is the stored key here; the answer replaces it with the place.
  const current = toIssue(issue, issue.position, rules);
  const changes = options.revert ? options.revert.decide(current) : given;
  const now = options.at ?? new Date().toISOString();
  const { set: base, parentGuard } = await updateSet(caller.orgId, at.projectId, issue, changes, parentItem, {
    updatedAt: now,
    ...(moving ? { sprintId: target } : {}),
  });
  const { set, next, accounts } = planFieldChanges(current, changes, rules, base);
  const owner = target === null ? project : targetSprint;
  const listCount = listLength(target, owner);
  const place = await placeIssue(caller.orgId, at.projectId, {
    issue: current,
    target,
    moving,
    siblings: moving ? listCount : Math.max(0, listCount - 1),
    position: changes.position,
    index: moving ? rankIndex(owner) : index,
    listRev: listRevisionOf(target, owner),
    positionSeq: projectItem.field(project, 'positionSeq'),
    ahead,
  });
  return { issue, index, next, set, parentGuard, place, changes, accounts };
}

/** What an update sets beside its time and list (`set`): its new parent, decided on the parent read with the issue, and that parent's guard. */
async function updateSet(
  orgId: number,
  projectId: number,
  issue: IssueItem,
  changes: IssueUpdate,
  parentItem: IssueItem | undefined,
  set: IssueFieldSet,
): Promise<{ set: IssueFieldSet; parentGuard: ParentGuard | undefined }> {
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
  /** The project's position allocator as read: a key past every list's last. */
  positionSeq: number;
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

/** Decides where an issue goes (lib/model/issue-plans.ts: `placeStep`, `placeInWindow`), reading the list as the decision needs. */
async function placeIssue(orgId: number, projectId: number, req: PlaceRequest): Promise<Place> {
  const { moving, siblings, position, ahead } = req;
  const append = async (): Promise<Place> => ({
    position: appendedPosition(await (ahead.allocation ?? store.allocatePositions(orgId, projectId, 1))),
    at: siblings + 1,
  });
  const step = placeStep(moving, siblings, position);
  if (step.kind === 'stay') return {};
  if (step.kind === 'kept') return { at: step.at };
  if (step.kind === 'append' || position === undefined) return append();
  const window = await windowFor(orgId, projectId, req, position);
  const decided = placeInWindow(moving, position, {
    window,
    listRev: req.listRev,
    endBound: appendedPosition(req.positionSeq + 1),
  });
  if (decided.kind === 'placed') return decided.place;
  if (decided.kind === 'append') return append();
  return reappendRun(orgId, projectId, req, decided.successor, position);
}

/** The neighbours around place `position` of the target list: the window sent ahead when it is that one, else a read now. */
async function windowFor(orgId: number, projectId: number, req: PlaceRequest, position: number): Promise<ListWindow> {
  const { ahead, target, issue, moving } = req;
  if (ahead.window?.target === target && ahead.window.place === position) return ahead.window.read;
  return store.windowAroundPlace(orgId, projectId, target, {
    place: position,
    index: req.index,
    movedId: issue.id,
    movedPosition: moving ? undefined : issue.position,
    margin: WINDOW_MARGIN,
  });
}

/** The packed run from `successor` to the end of the list, re-appended behind the issue (`planPackedRun`): the far chunks written now, the near one with the issue. */
async function reappendRun(
  orgId: number,
  projectId: number,
  req: PlaceRequest,
  successor: Slot,
  position: number,
): Promise<Place> {
  const side = await store.readSide(orgId, projectId, req.target, successor, true);
  const run = side.slots.filter((s) => s.id !== req.issue.id);
  const plan = planPackedRun(run, await store.allocatePositions(orgId, projectId, run.length + 1));
  for (const chunk of plan.chunks) await store.renumberIssues(orgId, projectId, req.target, chunk);
  return { position: plan.position, renumber: plan.head, at: position };
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
      await store.deleteIssue(caller.orgId, at.projectId, issue, trash);
    } catch (err) {
      // Its parent is gone (in the trash, where its children keep their link): its summary is not kept.
      const parent = issue.parent_id;
      if (!isRefused(err, 'issue') || typeof parent !== 'number') throw err;
      await store.deleteIssue(caller.orgId, at.projectId, issue, trash, [parent]);
    }
  });
}

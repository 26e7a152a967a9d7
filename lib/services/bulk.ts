import type { StoredValues } from '../model/custom-fields.ts';
import { getAccountItem } from '../db/organisation/accounts.ts';
import { listLength as storedListLength } from '../db/issues/counters.ts';
import { projectItem } from '../db/projects/projects.ts';
import * as store from '../db/issues/issues.ts';
import { catalogueOf } from '../db/issues/labels.ts';
import { expectingVersion } from '../context/versions.ts';
import type { Issue, IssueLocation } from '../schemas/issues.ts';
import type { BulkOp } from '../schemas/bulk.ts';
import { Refused, isRefused } from '../db/core/transactions.ts';
import { IssueElsewhereError, NotFoundError, SprintBusyError, UnavailableError, ValidationError } from '../vocabulary/errors.ts';
import { createIssue, getIssue, projectRules, updateIssue, updateIssuesTogether, type ReservedIssues } from './issues.ts';
import {
  assigneeMessage,
  createdValues,
  fieldAccountMessage,
  updatedValues,
  isPlainUpdate,
  newIssue,
  targetSprintMessage,
  updateTarget,
  type ProjectRules,
} from '../model/issue-plans.ts';
import { checkDryTarget, checkPlainCreate, checkVersion, dryCreate, dryFields, dryPlace } from '../model/bulk-plans.ts';
import { labelIdsIn, labelsShown } from '../model/labels.ts';
import type { Principal } from '../model/principal.ts';
import { decideParent } from './sub-issues.ts';
import { answeredVersion } from '../model/versions.ts';
import { withVersion } from '../db/core/versions.ts';
import { writtenIssue } from '../db/issues/issue-refs.ts';
import { explainRefusal, type Meanings } from './refusals.ts';

/**
 * Bulk writes of issues (docs/api.md: Bulk writes; the REST bulk routes, the MCP batch tools, an
 * import): items in order, each a create or an update, each answered on its own. Every item is
 * written through the one issue write path (lib/db/issues/issue-write.ts) as its single route writes it
 * (`createIssue`, `updateIssue`), one after the other, so places come out as the single writes give
 * them in sequence and every answer and error is the single route's; creates in a row into one list
 * without a parent are written together (`createTogether`; one asked a place then moved to it), answered the same. A dry run
 * reads what the items name and answers what they would do.
 */

/**
 * An op, or how to make it when its turn comes (an MCP item that names an issue by its number is
 * located after the items before it ran: one of them may have moved it). A throw is its answer.
 */
export type BulkItem = BulkOp | (() => Promise<BulkOp>);

/** One item's answer: the issue (201 created, 200 updated), or the error the single write throws. */
export type BulkOutcome = { ok: true; status: 200 | 201; issue: Issue } | { ok: false; error: unknown };

export interface BulkOptions {
  /** Validate and answer what would happen; write nothing. */
  dryRun?: boolean | undefined;
}

/**
 * Applies `ops` in order, each on its own: a failed item changes nothing and the next ones still
 * run. The library entry point of bulk writes (an import uses it as the routes do). DynamoDB calls
 * (test/support/call-budgets.ts): a run of plain creates into one list 4 for all, plus one
 * transaction per 100 items, plus a move's for each asked a place before the end; any other item those of its single write, one item after the other
 * (at most 6 per create, +4 for a `position`; 5 per update); a dry run: reads only, at most 7 per item.
 */
export async function bulkWrite(caller: Principal, ops: BulkItem[], options: BulkOptions = {}): Promise<BulkOutcome[]> {
  const run = options.dryRun ? dryRun(caller) : apply(caller);
  const outcomes: BulkOutcome[] = [];
  for (let i = 0; i < ops.length;) {
    const item = ops[i]!;
    // A run of plain creates into one list is written together (`createTogether`).
    const together = options.dryRun ? [] : plainCreatesFrom(ops, i);
    if (together.length > 1) {
      outcomes.push(...(await createTogether(caller, together)));
      i += together.length;
      continue;
    }
    // So is a run of updates of different issues of one list that leave them where they are.
    const updates = options.dryRun ? [] : plainUpdatesFrom(ops, i);
    if (updates.length > 1) {
      const written = await updateIssuesTogether(caller, updates[0]!.at, updates);
      outcomes.push(...written.map((o): BulkOutcome => (o.ok ? { ok: true, status: 200, issue: o.issue } : o)));
      i += updates.length;
      continue;
    }
    try {
      const op = typeof item === 'function' ? await item() : item;
      outcomes.push(op.kind === 'invalid' ? { ok: false, error: op.error } : await run(op));
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
    i += 1;
  }
  return outcomes;
}

type CreateOp = Extract<BulkOp, { kind: 'create' }>;

/**
 * A create the batch path takes: no parent (whose guard is one per write). One with a place is
 * written last with the others, then moved to its place as the single path moves it.
 */
const isPlainCreate = (item: BulkItem | undefined): item is CreateOp =>
  typeof item === 'object' && item.kind === 'create' && (item.fields.parent_id ?? null) === null;

/** The plain creates from `start` on into the list of the first (none when it is not one). */
function plainCreatesFrom(ops: BulkItem[], start: number): CreateOp[] {
  const first = ops[start];
  if (!isPlainCreate(first)) return [];
  const run: CreateOp[] = [];
  for (let i = start; i < ops.length; i++) {
    const op = ops[i];
    if (!isPlainCreate(op) || op.at.projectId !== first.at.projectId || op.at.sprintId !== first.at.sprintId) break;
    run.push(op);
  }
  return run;
}

type UpdateOp = Extract<BulkOp, { kind: 'update' }>;

/** An update the batch path takes: no version expected, no place, no move, no new parent. */
const isPlainUpdateOp = (item: BulkItem | undefined): item is UpdateOp =>
  typeof item === 'object' && item.kind === 'update' && item.version === undefined && isPlainUpdate(item.changes, item.at);

/** The plain updates from `start` on of issues of the list of the first, each issue once (none when it is not one). */
function plainUpdatesFrom(ops: BulkItem[], start: number): UpdateOp[] {
  const first = ops[start];
  if (!isPlainUpdateOp(first)) return [];
  const run: UpdateOp[] = [];
  const ids = new Set<number>();
  for (let i = start; i < ops.length; i++) {
    const op = ops[i];
    if (!isPlainUpdateOp(op) || op.at.projectId !== first.at.projectId || op.at.sprintId !== first.at.sprintId) break;
    if (ids.has(op.issueId)) break;
    ids.add(op.issueId);
    run.push(op);
  }
  return run;
}

/** A checked create of a run, on its slot: where its answer goes, the issue, its labels. */
type PlannedCreate = { index: number; issue: Issue; labelIds: number[]; values: StoredValues; accounts: number[] };

/**
 * Plain creates into one list, as the single creates would answer them one after the other, in
 * fewer calls: what each create checks before it takes a number is read once for all (one
 * BatchGet: the project, the sprint, the assignees), the valid ones take their ids, numbers and
 * positions at once (two calls side by side), and they are written by as few issue writes
 * (lib/db/issues/issue-write.ts) as DynamoDB's transaction limits allow, in order. A transaction refused
 * (a sprint deleted or being completed meanwhile) is sent again issue by issue, each on its own.
 */
async function createTogether(caller: Principal, ops: CreateOp[]): Promise<BulkOutcome[]> {
  const { orgId } = caller;
  const { projectId, sprintId } = ops[0]!.at;
  const assignees = ops.map((op) => op.fields.assignee_id).filter((a): a is number => typeof a === 'number');
  const context = await store.getCreateContext(orgId, projectId, sprintId, assignees);
  const outcomes: BulkOutcome[] = ops.map(() => ({ ok: false, error: new NotFoundError('Project') }));
  if (!context.project) return outcomes;
  const now = new Date().toISOString();
  const read = projectRules(context.project);
  const valid = checkedCreates(ops, context, read, now, outcomes);
  if (valid.length === 0) return outcomes;
  let reserved: ReservedIssues;
  try {
    reserved = await store.allocateIssueSlots(orgId, projectId, valid.length);
  } catch (err) {
    for (const { index } of valid) outcomes[index] = { ok: false, error: createRefusal(err) };
    return outcomes;
  }
  // Labels are shown through the catalogue as the allocation read it.
  const rules = { ...read, catalogue: catalogueOf(reserved.project) };
  const created = valid.map(({ index, op, labelIds, values, accounts }, k): PlannedCreate => {
    const request = { at: { projectId, sprintId }, input: op.fields, now, authorId: caller.accountId };
    const issue = newIssue(reserved.slots[k]!, reserved.prefix, request, labelIds, null, rules, values);
    return { index, issue, labelIds, values, accounts };
  });
  const listed = sprintId === null ? reserved.backlogCount : storedListLength(sprintId, context.sprint);
  const moves = await writeCreated(caller, ops, created, listed, outcomes);
  // Each moved as the single path moves it right after its create: a place before the end when it
  // was written, so the creates written after it do not change where it goes. Created, whatever the
  // move does: a move that fails leaves it last, and the answer says so.
  for (const { index, position } of moves) {
    const outcome = outcomes[index] as { ok: true; status: 201; issue: Issue };
    outcome.issue = await updateIssue(caller, ops[index]!.at, outcome.issue.id, { position }).catch(() => outcome.issue);
  }
  return outcomes;
}

/**
 * Writes the planned creates of a run in order, so that positions (allocated in order) and places
 * agree, each chunk within the limits; a chunk refused is written again issue by issue. Answers the
 * creates asked a place before the end: where each goes once all are written.
 */
async function writeCreated(
  caller: Principal,
  ops: CreateOp[],
  created: PlannedCreate[],
  listedBefore: number,
  outcomes: BulkOutcome[],
): Promise<{ index: number; position: number }[]> {
  const { orgId } = caller;
  const { projectId, sprintId } = ops[0]!.at;
  let listed = listedBefore;
  const moves: { index: number; position: number }[] = [];
  const answer = ({ index, issue }: PlannedCreate) => {
    listed += 1;
    const shown = withVersion({ ...issue, position: listed }, writtenIssue(orgId, projectId, issue.id, 1));
    outcomes[index] = { ok: true, status: 201, issue: shown };
    const asked = ops[index]!.position;
    if (asked !== undefined && asked < listed) moves.push({ index, position: asked });
  };
  for (const chunk of store.insertChunks(orgId, projectId, { sprintId, authorId: caller.accountId }, created)) {
    try {
      await store.insertIssues(orgId, projectId, { sprintId, authorId: caller.accountId, issues: chunk });
      chunk.forEach(answer);
    } catch (err) {
      if (!(err instanceof Refused)) {
        for (const { index } of chunk) outcomes[index] = { ok: false, error: err };
        continue;
      }
      // One of them (or the list) was refused: each on its own, as the single create writes it.
      for (const c of chunk) {
        try {
          await store.insertIssue(orgId, projectId, c.issue, undefined, c.labelIds, caller.accountId, undefined, c);
          answer(c);
        } catch (error) {
          outcomes[c.index] = { ok: false, error: await createRefusalRead(caller, projectId, sprintId, error) };
        }
      }
    }
  }
  return moves;
}

/** What the creates into one list read for all (lib/db: the project, the sprint, the assignees). */
type CreateContext = Awaited<ReturnType<typeof store.getCreateContext>>;

/**
 * The creates that pass what each single create checks before it takes a number
 * (lib/model/bulk-plans.ts: `checkPlainCreate`), on what was read for all; the others' outcomes
 * are their refusals.
 */
/** A create of a run checked on what was read for all: its labels and its custom fields' values (the accounts they name checked by the write). */
type CheckedCreate = { index: number; op: CreateOp; labelIds: number[]; values: StoredValues; accounts: number[] };

function checkedCreates(
  ops: CreateOp[],
  context: CreateContext,
  rules: ProjectRules,
  now: string,
  outcomes: BulkOutcome[],
): CheckedCreate[] {
  const { sprintId } = ops[0]!.at;
  const valid: CheckedCreate[] = [];
  ops.forEach((op, index) => {
    try {
      const labelIds = checkPlainCreate(op.fields, sprintId, context, rules, now);
      valid.push({ index, op, labelIds, ...createdValues(rules, op.fields, false) });
    } catch (error) {
      outcomes[index] = { ok: false, error };
    }
  });
  return valid;
}

/** A refused create as the single create answers it (lib/services/issues.ts: createIssue). */
function createRefusal(err: unknown): unknown {
  return explainRefusal(err, createRefusals);
}

const createRefusals = {
  project: () => new NotFoundError('Project'),
  sprint: () => new NotFoundError('Sprint'),
  assignee: () => new ValidationError([assigneeMessage]),
  field_account: () => new ValidationError([fieldAccountMessage]),
  stale: () => new UnavailableError(),
} satisfies Meanings<'project' | 'sprint' | 'assignee' | 'field_account' | 'stale'>;

/** `createRefusal`, telling a sprint being completed (409) from one gone (404) by a read, as createIssue does. */
async function createRefusalRead(caller: Principal, projectId: number, sprintId: number | null, err: unknown) {
  if (isRefused(err, 'sprint') && sprintId !== null) {
    const { sprints } = await store.getIssueFamily(caller.orgId, projectId, [sprintId]);
    if (sprints.get(sprintId)?.status === 'completing') return new SprintBusyError();
  }
  return createRefusal(err);
}

/**
 * `bulkWrite` for items addressed to one list (the REST bulk routes): 404 for the whole request
 * when the project or the sprint of the path is not the caller's (one BatchGet), as the single
 * routes answer; then each item on its own.
 */
export async function bulkWriteToList(caller: Principal, at: IssueLocation, ops: BulkItem[], options: BulkOptions = {}) {
  const family = await store.getIssueFamily(caller.orgId, at.projectId, at.sprintId === null ? [] : [at.sprintId]);
  if (!family.project) throw new NotFoundError('Project');
  if (at.sprintId !== null && !family.sprints.get(at.sprintId)) throw new NotFoundError('Sprint');
  return bulkWrite(caller, ops, options);
}

type Step = (op: Exclude<BulkOp, { kind: 'invalid' }>) => Promise<BulkOutcome>;

/** The real run: the single create (then, with `position`, the single reorder) or update. */
const apply =
  (caller: Principal): Step =>
  async (op) => {
    if (op.kind === 'create') {
      const created = await createIssue(caller, op.at, op.fields);
      if (op.position === undefined || op.position === created.position) return { ok: true, status: 201, issue: created };
      // Created, whatever the reorder does: a reorder that fails leaves it last, and the answer says so
      // (an error here would invite a retry that creates it twice).
      const issue = await updateIssue(caller, op.at, created.id, { position: op.position }).catch(() => created);
      return { ok: true, status: 201, issue };
    }
    const expected = op.version === undefined ? undefined : [op.version];
    const issue = await expectingVersion(expected, () => updateIssue(caller, op.at, op.issueId, op.changes));
    return { ok: true, status: 200, issue };
  };

/**
 * A dry run: each item checked as its write would check it (the project, the sprints, the issue
 * and its version, the assignee, the parent, the labels), against what was read and what the
 * items before it would have done to the lists' lengths and the project's numbers. A create's id
 * is 0 (ids are handed out as issues are written); times are those of the dry run.
 */
function dryRun(caller: Principal): Step {
  const run = new DryRun(caller);
  return (op) => (op.kind === 'create' ? run.create(op) : run.update(op));
}

/** A bulk request's dry run: each item decided as its write would decide it, on the lists and issues as the items before it leave them. */
class DryRun {
  private readonly caller: Principal;
  /** Issues per list after the items so far. */
  private readonly counts = new Map<string, number>();
  /** Numbers handed out so far, per project. */
  private readonly taken = new Map<number, number>();
  /** Issues as the items so far would leave them (created or updated), by project and id. */
  private readonly written = new Map<string, Issue>();

  constructor(caller: Principal) {
    this.caller = caller;
  }

  private answered(issue: Issue, version: number): Issue {
    const shown = withVersion(issue, writtenIssue(this.caller.orgId, issue.project_id, issue.id, version));
    this.written.set(`${issue.project_id}/${issue.id}`, shown);
    return shown;
  }

  /** A list's length as the items so far leave it: 404 or 409 as the write would answer. */
  private async listLength(projectId: number, sprintId: number | null, missing: () => Error) {
    const owner = (await store.getListOwner(this.caller.orgId, projectId, sprintId)) as Record<string, unknown> | undefined;
    if (!owner) throw missing();
    if (owner.status === 'completing') throw new SprintBusyError();
    const id = `${projectId}/${sprintId ?? 'backlog'}`;
    const read = storedListLength(sprintId, owner);
    return { owner, length: this.counts.get(id) ?? read, set: (n: number) => this.counts.set(id, n) };
  }

  private async checkAssignee(assigneeId: number | null | undefined) {
    if (typeof assigneeId === 'number' && !(await getAccountItem(this.caller.orgId, assigneeId)))
      throw new ValidationError([assigneeMessage]);
  }

  /** A create, as the single create would answer it (lib/model/bulk-plans.ts: `dryCreate`). */
  async create(op: CreateOp): Promise<BulkOutcome> {
    const { projectId, sprintId } = op.at;
    const project = (await store.getListOwner(this.caller.orgId, projectId, null)) as Record<string, unknown> | undefined;
    if (!project) throw new NotFoundError('Project');
    const parentId = op.fields.parent_id ?? null;
    const parentItem = parentId === null ? undefined : await store.getIssueFamily(this.caller.orgId, projectId, [], parentId);
    const parent = await decideParent(this.caller.orgId, projectId, undefined, parentId, parentItem?.issue);
    const rules = projectRules(project);
    const labelIds = op.fields.labels === undefined ? [] : labelIdsIn(rules.catalogue, op.fields.labels);
    const list = await this.listLength(projectId, sprintId, () => new NotFoundError(sprintId === null ? 'Project' : 'Sprint'));
    await this.checkAssignee(op.fields.assignee_id);
    const taken = this.taken.get(projectId) ?? 0;
    this.taken.set(projectId, taken + 1);
    list.set(list.length + 1);
    const read = { prefix: String(project.prefix), issueSeq: projectItem.field(project, 'issueSeq'), taken, length: list.length };
    const request = { at: op.at, input: op.fields, now: new Date().toISOString(), authorId: this.caller.accountId };
    const issue = dryCreate(request, op.position, read, labelIds, parent.parentId, rules);
    return { ok: true, status: 201, issue: this.answered(issue, 1) };
  }

  /** An update, as the single update would answer it. */
  async update(op: UpdateOp): Promise<BulkOutcome> {
    const { projectId, sprintId } = op.at;
    // An issue an earlier item wrote is taken as that item left it (moved away: not found here, and where it went).
    const earlier = this.written.get(`${projectId}/${op.issueId}`);
    if (earlier && earlier.sprint_id !== sprintId) throw new IssueElsewhereError(earlier.issue_number, earlier.sprint_id);
    const current = earlier ?? (await getIssue(this.caller, op.at, op.issueId));
    const version = answeredVersion(current) ?? 0;
    checkVersion(op.version, version);
    const { changes } = op;
    const { target, moving } = updateTarget(op.at, changes);
    const wantedParent = typeof changes.parent_id === 'number' ? [changes.parent_id] : [];
    const family = await store.getIssueFamily(
      this.caller.orgId,
      projectId,
      target === null ? [] : [target],
      undefined,
      wantedParent,
    );
    checkDryTarget(target, target === null ? undefined : family.sprints.get(target));
    const rules = projectRules(family.project);
    const next = dryFields(current, changes, rules.workflow, new Date().toISOString());
    if (changes.parent_id !== undefined && changes.parent_id !== current.parent_id) {
      const stored = await store.getIssueFamily(this.caller.orgId, projectId, [], op.issueId);
      const parentItem = typeof changes.parent_id === 'number' ? family.others.get(changes.parent_id) : undefined;
      next.parent_id = (await decideParent(this.caller.orgId, projectId, stored.issue, changes.parent_id, parentItem)).parentId;
    }
    if (changes.labels !== undefined) next.labels = labelsShown(labelIdsIn(rules.catalogue, changes.labels), rules.catalogue);
    if (changes.custom_fields !== undefined) next.custom_fields = updatedValues(rules, current, changes.custom_fields).shown;
    await this.checkAssignee(changes.assignee_id);
    await this.place(op, moving ? target : undefined, next);
    return { ok: true, status: 200, issue: this.answered(next, version + 1) };
  }

  /** Where a dry update leaves its issue (`next`), and the lengths of the lists it leaves and enters (lib/model/bulk-plans.ts: `dryPlace`). */
  private async place(op: UpdateOp, target: number | null | undefined, next: Issue): Promise<void> {
    const { projectId, sprintId } = op.at;
    const from = await this.listLength(projectId, sprintId, () => new NotFoundError('Issue'));
    const to =
      target === undefined
        ? undefined
        : await this.listLength(projectId, target, () => new ValidationError([targetSprintMessage]));
    const placed = dryPlace(op.changes.position, from.length, to?.length);
    if (target !== undefined) next.sprint_id = target;
    if (placed.position !== undefined) next.position = placed.position;
    if (to && placed.to !== undefined) {
      from.set(placed.from);
      to.set(placed.to);
    }
  }
}

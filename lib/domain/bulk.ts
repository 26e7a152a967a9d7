import { getAccountItem } from '../db/accounts.ts';
import * as store from '../db/issues.ts';
import { keys } from '../db/keys.ts';
import { catalogueOf } from '../db/labels.ts';
import { expectingVersion } from '../db/versions.ts';
import type { Issue, IssueCreate, IssueUpdate } from '../schemas/issues.ts';
import { unclassified } from './derivations.ts';
import { NotFoundError, PreconditionFailedError, SprintBusyError, ValidationError } from './errors.ts';
import {
  assigneeMessage,
  createIssue,
  getIssue,
  statusTimestamps,
  targetSprintMessage,
  updateIssue,
  type IssueLocation,
} from './issues.ts';
import { issueLabels, resolveLabels } from './labels.ts';
import type { Principal } from './principal.ts';
import { decideParent } from './sub-issues.ts';
import { answeredVersion, withVersion } from './versions.ts';

/**
 * Bulk writes of issues (docs/api.md: Bulk writes; the REST bulk routes, the MCP batch tools, an
 * import): items in order, each a create or an update, each answered on its own. Every item goes
 * through the single write path (`createIssue`, `updateIssue`: lib/db/issue-write.ts), one after
 * the other, so places come out as the single writes give them in sequence and every answer and
 * error is the single route's. A dry run reads what the items name and answers what they would do.
 */

/** One item, parsed and located by its caller (the REST body, an MCP tool's arguments). */
export type BulkOp =
  | { kind: 'create'; at: IssueLocation; fields: IssueCreate; position?: number | undefined }
  | { kind: 'update'; at: IssueLocation; issueId: number; changes: IssueUpdate; version?: number | undefined }
  /** An item its caller could not parse or locate: answered with that error, nothing tried. */
  | { kind: 'invalid'; error: unknown };

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
 * run. DynamoDB calls: those of the single write per item, one item after the other (at most 6 per
 * create, 5 per update, plus 1 for a create's `position`); a dry run: at most 4 reads per item.
 */
export async function bulkWrite(caller: Principal, ops: BulkItem[], options: BulkOptions = {}): Promise<BulkOutcome[]> {
  const run = options.dryRun ? dryRun(caller) : apply(caller);
  const outcomes: BulkOutcome[] = [];
  for (const item of ops) {
    try {
      const op = typeof item === 'function' ? await item() : item;
      outcomes.push(op.kind === 'invalid' ? { ok: false, error: op.error } : await run(op));
    } catch (error) {
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
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
      const issue =
        op.position === undefined || op.position === created.position
          ? created
          : await updateIssue(caller, op.at, created.id, { position: op.position });
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
 * and the times are those it would have had now (a concurrent write may take them first).
 */
function dryRun(caller: Principal): Step {
  /** Issues per list after the items so far, and numbers and ids handed out so far, per project. */
  const counts = new Map<string, number>();
  const taken = new Map<number, number>();
  const listKey = (projectId: number, sprintId: number | null) => `${projectId}/${sprintId ?? 'backlog'}`;
  /** Issues as the items so far would leave them (created or updated), by project and id. */
  const written = new Map<string, Issue>();
  const answered = (issue: Issue, version: number) => {
    const shown = withVersion(issue, { ...keys.issue(caller.orgId, issue.project_id, issue.id), version });
    written.set(`${issue.project_id}/${issue.id}`, shown);
    return shown;
  };

  /** A list's length as the items so far leave it: 404 or 409 as the write would answer. */
  const listLength = async (projectId: number, sprintId: number | null, missing: () => Error) => {
    const owner = (await store.getListOwner(caller.orgId, projectId, sprintId)) as Record<string, unknown> | undefined;
    if (!owner) throw missing();
    if (owner.status === 'completing') throw new SprintBusyError();
    const id = listKey(projectId, sprintId);
    const read = Number((sprintId === null ? owner.backlog_count : owner.issues_count) ?? 0);
    return { owner, length: counts.get(id) ?? read, set: (n: number) => counts.set(id, n) };
  };
  const checkAssignee = async (assigneeId: number | null | undefined) => {
    if (typeof assigneeId === 'number' && !(await getAccountItem(caller.orgId, assigneeId)))
      throw new ValidationError([assigneeMessage]);
  };
  /** The place an update or a create's `position` gives, in a list of `siblings` others. */
  const placeAmong = (siblings: number, position: number) => Math.min(position, siblings + 1);

  return async (op) => {
    const { projectId, sprintId } = op.at;
    if (op.kind === 'create') {
      const project = (await store.getListOwner(caller.orgId, projectId, null)) as Record<string, unknown> | undefined;
      if (!project) throw new NotFoundError('Project');
      const parentId = op.fields.parent_id ?? null;
      const parentItem = parentId === null ? undefined : await store.getIssueFamily(caller.orgId, projectId, [], parentId);
      const parent = await decideParent(caller.orgId, projectId, undefined, parentId, parentItem?.issue);
      const labelIds = op.fields.labels === undefined ? [] : resolveLabels(project, op.fields.labels);
      const list = await listLength(projectId, sprintId, () => new NotFoundError(sprintId === null ? 'Project' : 'Sprint'));
      await checkAssignee(op.fields.assignee_id);
      const k = (taken.get(projectId) ?? 0) + 1;
      taken.set(projectId, k);
      list.set(list.length + 1);
      const now = new Date().toISOString();
      const status = op.fields.status ?? (sprintId === null ? 'backlog' : 'todo');
      const id = Number(project.issue_id_next ?? 0) + k - 1;
      const issue: Issue = {
        id,
        project_id: projectId,
        sprint_id: sprintId,
        issue_number: `${String(project.prefix)}-${Number(project.issue_seq ?? 0) + k}`,
        title: op.fields.title,
        description: op.fields.description ?? null,
        status,
        story_points: op.fields.story_points ?? null,
        position: op.position === undefined ? list.length + 1 : placeAmong(list.length, op.position),
        assignee_id: op.fields.assignee_id ?? null,
        priority: op.fields.priority ?? unclassified.priority,
        type: op.fields.type ?? unclassified.type,
        due_date: op.fields.due_date ?? null,
        parent_id: parent.set.parent_id,
        sub_issues_summary: { total: 0, done: 0, story_points: 0, completed_story_points: 0 },
        labels: issueLabels(labelIds, catalogueOf(project)),
        ...statusTimestamps(undefined, status, now),
        created_at: now,
        updated_at: now,
        blocked: false,
      };
      return { ok: true, status: 201, issue: answered(issue, 1) };
    }

    // An issue an earlier item wrote is taken as that item left it (moved away: not found here).
    const earlier = written.get(`${projectId}/${op.issueId}`);
    if (earlier && earlier.sprint_id !== sprintId) throw new NotFoundError('Issue');
    const current = earlier ?? (await getIssue(caller, op.at, op.issueId));
    const version = answeredVersion(current) ?? 0;
    if (op.version !== undefined && op.version !== version) throw new PreconditionFailedError();
    const { changes } = op;
    const target = changes.sprint_id !== undefined ? changes.sprint_id : sprintId;
    const moving = target !== sprintId;
    const family = await store.getIssueFamily(
      caller.orgId,
      projectId,
      target === null ? [] : [target],
      undefined,
      typeof changes.parent_id === 'number' ? [changes.parent_id] : [],
    );
    if (target !== null && !family.sprints.get(target)) throw new ValidationError([targetSprintMessage]);
    if (target !== null && family.sprints.get(target)?.status === 'completing') throw new SprintBusyError();
    const now = new Date().toISOString();
    const next: Issue = { ...current, updated_at: now };
    for (const field of ['title', 'description', 'story_points', 'assignee_id', 'priority', 'type', 'due_date'] as const) {
      if (changes[field] !== undefined) (next as Record<string, unknown>)[field] = changes[field];
    }
    if (changes.status !== undefined)
      Object.assign(next, { status: changes.status, ...statusTimestamps(current, changes.status, now) });
    if (changes.parent_id !== undefined && changes.parent_id !== current.parent_id) {
      const stored = await store.getIssueFamily(caller.orgId, projectId, [], op.issueId);
      const parentItem = typeof changes.parent_id === 'number' ? family.others.get(changes.parent_id) : undefined;
      const decided = await decideParent(caller.orgId, projectId, stored.issue, changes.parent_id, parentItem);
      next.parent_id = decided.set.parent_id;
    }
    if (changes.labels !== undefined) {
      next.labels = issueLabels(resolveLabels(family.project ?? {}, changes.labels), catalogueOf(family.project ?? {}));
    }
    await checkAssignee(changes.assignee_id);
    const from = await listLength(projectId, sprintId, () => new NotFoundError('Issue'));
    if (moving) {
      const to = await listLength(projectId, target, () => new ValidationError([targetSprintMessage]));
      next.sprint_id = target;
      next.position = changes.position === undefined ? to.length + 1 : placeAmong(to.length, changes.position);
      from.set(from.length - 1);
      to.set(to.length + 1);
    } else if (changes.position !== undefined) {
      next.position = placeAmong(from.length - 1, changes.position);
    }
    return { ok: true, status: 200, issue: answered(next, version + 1) };
  };
}

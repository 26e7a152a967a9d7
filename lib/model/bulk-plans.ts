import type { Issue, IssueCreate, IssueUpdate } from '../schemas/issues.ts';
import { NotFoundError, PreconditionFailedError, SprintBusyError, ValidationError } from '../vocabulary/errors.ts';
import {
  assigneeMessage,
  createdValues,
  newIssue,
  stateOfNewIssue,
  targetSprintMessage,
  type CreateRequest,
  type ProjectRules,
} from './issue-plans.ts';
import { labelIdsIn } from './labels.ts';
import { stateOnUpdate, statusAnswer, type Workflow } from './workflow.ts';

/**
 * The decisions of bulk writes (lib/services/bulk.ts) that are not a single write's: what a run of
 * plain creates into one list checks on what it read for all, and what a dry run answers, on the
 * lists and issues as the items before it leave them.
 */

/** A sprint as these checks read it. */
interface ListSprint {
  status?: unknown;
}

/** What plain creates into one list read for all: the list's sprint (undefined: the backlog, or none found), the accounts named that exist. */
export interface CreatesRead {
  sprint: ListSprint | undefined;
  accounts: ReadonlySet<number>;
}

/**
 * A plain create among creates together, checked as its single create checks it before it takes a
 * number: its labels (422), its state's requirements (422), its list (404, or 409 while completing),
 * its assignee (422). The ids of its labels.
 */
export function checkPlainCreate(
  fields: IssueCreate,
  sprintId: number | null,
  read: CreatesRead,
  rules: ProjectRules,
  now: string,
): number[] {
  const labelIds = fields.labels === undefined ? [] : labelIdsIn(rules.catalogue, fields.labels);
  // Its state named, and held to what that state requires (newIssue decides the same again).
  stateOfNewIssue(rules.workflow, fields, sprintId, now);
  if (sprintId !== null && !read.sprint) throw new NotFoundError('Sprint');
  if (read.sprint?.status === 'completing') throw new SprintBusyError();
  const assignee = fields.assignee_id;
  if (typeof assignee === 'number' && !read.accounts.has(assignee)) throw new ValidationError([assigneeMessage]);
  return labelIds;
}

/** The place an update or a create's `position` gives, in a list of `siblings` others. */
export const placeAmong = (siblings: number, position: number) => Math.min(position, siblings + 1);

/** What a dry create reads of its project and list: the prefix, the last number handed out, the numbers the items before it took, the list's length. */
export interface DryCreateRead {
  prefix: string;
  issueSeq: number;
  taken: number;
  length: number;
}

/**
 * A dry run's create: the issue the single create would answer (422 for a state whose rules refuse
 * it), numbered after those the items before it took, at the end of its list or at the place asked.
 * Its id is 0: ids are handed out as issues are written (a block per project, or one per run of creates).
 */
export function dryCreate(
  request: CreateRequest,
  position: number | undefined,
  read: DryCreateRead,
  labelIds: number[],
  parentId: number | null,
  rules: ProjectRules,
): Issue {
  const slot = { id: 0, number: read.issueSeq + read.taken + 1, positionSeq: 0 };
  const issue = newIssue(
    slot,
    read.prefix,
    request,
    labelIds,
    parentId,
    rules,
    createdValues(rules, request.input, false).values,
  );
  return { ...issue, position: position === undefined ? read.length + 1 : placeAmong(read.length, position) };
}

/** A dry update that expects a version (`expected`; none: any) of an issue at `version`: 412 otherwise. */
export function checkVersion(expected: number | undefined, version: number): void {
  if (expected !== undefined && expected !== version) throw new PreconditionFailedError();
}

/** A dry update's target list as read: 422 for a sprint the project has not, 409 for one being completed. */
export function checkDryTarget(target: number | null, sprint: ListSprint | undefined): void {
  if (target !== null && !sprint) throw new ValidationError([targetSprintMessage]);
  if (target !== null && sprint?.status === 'completing') throw new SprintBusyError();
}

/** The plain fields an update changes as they are. */
const plainFields = ['title', 'description', 'story_points', 'assignee_id', 'priority', 'type', 'due_date'] as const;

/**
 * The issue as a dry update leaves its fields and its state (422 for a state the project has not).
 * The state's transition rules are the write's to check.
 */
export function dryFields(current: Issue, changes: IssueUpdate, workflow: Workflow, now: string): Issue {
  const next: Issue = { ...current, updated_at: now };
  for (const field of plainFields) {
    if (changes[field] !== undefined) Object.assign(next, { [field]: changes[field] });
  }
  const state = stateOnUpdate(workflow, { ...current, status: current.status_category }, changes, now);
  if (state) {
    Object.assign(next, statusAnswer(workflow, state.state_id, state.status), {
      started_at: state.started_at,
      completed_at: state.completed_at,
    });
  }
  return next;
}

/** Where a dry update leaves its issue (undefined: where it is) and the lengths of its list (`from`) and, moving, of the target list (`to`). */
export interface DryPlace {
  position: number | undefined;
  from: number;
  to: number | undefined;
}

/**
 * A dry update's place: moving (`to`: the target list's length), at the end of the target list or
 * at the place asked, one issue leaving its list for the other; staying, at the place asked among
 * its siblings, or where it is.
 */
export function dryPlace(position: number | undefined, from: number, to: number | undefined): DryPlace {
  if (to !== undefined) {
    return { position: position === undefined ? to + 1 : placeAmong(to, position), from: from - 1, to: to + 1 };
  }
  return { position: position === undefined ? undefined : placeAmong(from - 1, position), from, to };
}

/**
 * What the cascade of deletes decides, apart from the table (lib/jobs/cascade.ts carries it out):
 * which parents there are, what a pending cascade is and when one is given up, what the failure
 * queue is told, which partitions a sweep finds owed a cascade, and when a run stops for time.
 */

/** What a REMOVE record asks to be cascaded. */
export type CascadeParent =
  | { kind: 'project'; orgId: number; projectId: number }
  | { kind: 'sprint'; orgId: number; projectId: number; sprintId: number }
  | {
      kind: 'issue';
      orgId: number;
      projectId: number;
      issueId: number;
      /** Its number, under which its children index lives (their parent is cleared). */
      number?: string | undefined;
    }
  | { kind: 'label'; orgId: number; projectId: number; labelId: number }
  | { kind: 'state'; orgId: number; projectId: number; stateId: number }
  /** A custom field deleted, or options of it: its values are taken off (or settled on) the issues that hold them. */
  | { kind: 'field'; orgId: number; projectId: number; fieldId: number };

/** A sprint or a project, as a cascade names it. */
export type Container =
  { kind: 'sprint'; orgId: number; projectId: number; sprintId: number } | { kind: 'project'; orgId: number; projectId: number };

/** Where a paged read stopped: the table's own position, passed back as it came. */
export type PagePosition = Record<string, unknown>;

/** Failures in a row after which a pending cascade is left for an operator (`cascade:resume`). */
export const MAX_ATTEMPTS = 5;

/** Parallel writes of one page, and parallel cascades of one sprint or one record batch. */
export const PARALLELISM = 8;

/** A cascade written down to be continued: where it stopped, and how it has fared so far. */
export interface PendingCascade {
  parent: CascadeParent;
  /** Where its paging stopped; undefined to start from the beginning. */
  after?: PagePosition | undefined;
  /** Failures in a row (a deadline stop is not one). */
  attempts: number;
  /** `pending` brings the consumer back; `failed` waits for `cascade:resume`. */
  status: 'pending' | 'failed';
  error?: string | undefined;
}

export const idOf = (parent: CascadeParent): number =>
  parent.kind === 'project'
    ? parent.projectId
    : parent.kind === 'sprint'
      ? parent.sprintId
      : parent.kind === 'issue'
        ? parent.issueId
        : parent.kind === 'label'
          ? parent.labelId
          : parent.kind === 'state'
            ? parent.stateId
            : parent.fieldId;

/** A cascade after one more failure: still pending, or failed (given up) at MAX_ATTEMPTS failures in a row. */
export function afterFailure(pending: PendingCascade, error: string): PendingCascade {
  const attempts = pending.attempts + 1;
  return { ...pending, attempts, error, status: attempts < MAX_ATTEMPTS ? 'pending' : 'failed' };
}

/** What the failure queue carries for a cascade given up: everything `cascade:resume` needs. */
export function failureMessage(pending: PendingCascade) {
  const { parent } = pending;
  const child =
    parent.kind === 'sprint'
      ? ` --sprint ${parent.sprintId}`
      : parent.kind === 'issue'
        ? ` --issue ${parent.issueId}`
        : parent.kind === 'label'
          ? ` --label ${parent.labelId}`
          : parent.kind === 'state'
            ? ` --state ${parent.stateId}`
            : parent.kind === 'field'
              ? ` --field ${parent.fieldId}`
              : '';
  return {
    cascade: parent,
    after: pending.after ?? null,
    attempts: pending.attempts,
    error: pending.error ?? null,
    resume: `npm run admin -- cascade:resume --org ${parent.orgId} --project ${parent.projectId}${child}`,
  };
}

/** The stream records of one project partition that ask for a cascade, by their place in the batch. */
export interface CascadeGroup {
  orgId: number;
  projectId: number;
  entries: { index: number; parent: CascadeParent }[];
}

/** What one batch of stream records asks for: cascades by project partition, and pending ones to continue. */
export interface CascadeWork {
  groups: CascadeGroup[];
  /** One per pending cascade: its latest write, at the place of its first record in the batch. */
  continuations: { index: number; pending: PendingCascade }[];
  /** Parent records in the batch. */
  parents: number;
}

/** What a batch's record asks of the cascade: a parent to cascade, a pending cascade to continue, or nothing. */
export type RecordAsks = { parent: CascadeParent } | { pending: PendingCascade } | undefined;

/**
 * Sorts what a batch's records ask (in batch order) into work (lib/jobs/cascade.ts: `cascadeBatch`).
 * Parents are grouped by project partition, so that a project's own record covers every record its
 * cascade emits; of the writes of one pending cascade, the latest counts.
 */
export function workOf(asks: RecordAsks[]): CascadeWork {
  const groups = new Map<string, CascadeGroup>();
  const continuations = new Map<string, { index: number; pending: PendingCascade }>();
  let parents = 0;
  asks.forEach((ask, index) => {
    if (ask && 'pending' in ask) {
      const { parent } = ask.pending;
      const key = `${parent.kind}:${parent.orgId}:${parent.projectId}:${idOf(parent)}`;
      const earlier = continuations.get(key);
      continuations.set(key, { index: Math.min(earlier?.index ?? index, index), pending: ask.pending });
      return;
    }
    if (!ask) return;
    const { parent } = ask;
    parents++;
    const key = `${parent.orgId}:${parent.projectId}`;
    let group = groups.get(key);
    if (!group) {
      group = { orgId: parent.orgId, projectId: parent.projectId, entries: [] };
      groups.set(key, group);
    }
    group.entries.push({ index, parent });
  });
  return { groups: [...groups.values()], continuations: [...continuations.values()], parents };
}

/** What a sweep (`findOrphanedCascades`) learns of one project partition from its keys. */
export interface PartitionKeys {
  sprints: Set<number>;
  issues: Set<number>;
  /** Sprints that hold an issue of the partition. */
  sprintsOfIssues: Set<number>;
  /** Issues that have a comment in the partition. */
  issuesOfComments: Set<number>;
}

export const noPartitionKeys = (): PartitionKeys => ({
  sprints: new Set(),
  issues: new Set(),
  sprintsOfIssues: new Set(),
  issuesOfComments: new Set(),
});

/**
 * The cascades a partition whose project still exists is owed: the issues of sprints that are
 * gone, and the comments of issues that are gone.
 */
export function orphansIn(orgId: number, projectId: number, part: PartitionKeys): CascadeParent[] {
  return [
    ...[...part.sprintsOfIssues]
      .filter((sprintId) => !part.sprints.has(sprintId))
      .map((sprintId): CascadeParent => ({ kind: 'sprint', orgId, projectId, sprintId })),
    ...[...part.issuesOfComments]
      .filter((issueId) => !part.issues.has(issueId))
      .map((issueId): CascadeParent => ({ kind: 'issue', orgId, projectId, issueId })),
  ];
}

/** Thrown between pages when the invocation is about to run out of time, with where it stopped. */
export class CascadeInterrupted extends Error {
  override readonly name = 'CascadeInterrupted';
  /** The position of the cascade's own paging to continue from (undefined: from the start). */
  readonly after: PagePosition | undefined;
  constructor(after?: PagePosition) {
    super('cascade interrupted by the deadline; it continues from where it stopped');
    this.after = after;
  }
}

export interface CascadeOptions {
  /**
   * Epoch ms after which no new page is started. The first page of each step always runs, so a
   * cascade makes progress whatever the deadline.
   */
  deadline?: number | undefined;
  /** Where an interrupted cascade stopped: its paging starts after this key. */
  after?: PagePosition | undefined;
}

/** Stops a run past its deadline, with where it stood (`at`). */
export function checkDeadline(options: CascadeOptions, at: PagePosition | undefined) {
  if (options.deadline !== undefined && Date.now() > options.deadline) throw new CascadeInterrupted(at);
}

/**
 * The derivations a page of issues coming back from the trash leaves out after a refusal, by its
 * reason (lib/model/derivations.ts): `entry_there` (the assignee's entry is back already),
 * `child_there` (the parent's index holds it already), `number_taken` (an issue of another project
 * took the number), `issue` (its parent is gone, and keeps no summary). Undefined: not a refusal
 * a retry can mend.
 */
export function withoutAfterRefusal(only: readonly string[], reason: string): string[] | undefined {
  const without = (...names: string[]) => only.filter((n) => !names.includes(n));
  if (reason === 'entry_there') return without('assignee-index');
  if (reason === 'child_there') return without('sub-issue-index', 'parent-summary');
  if (reason === 'number_taken') return without('number-pointer');
  if (reason === 'issue') return without('parent-summary');
  return undefined;
}

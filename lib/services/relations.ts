import { Refused, rereadOnStale, STALE, isRefused } from '../db/core/transactions.ts';
import {
  issuesOfNumbers,
  issuesWithProjects,
  storedRelations,
  writeRelation,
  type RelationSide,
  type StoredRelation,
} from '../db/issues/relations.ts';
import type { Relation, RelationCreate } from '../schemas/relations.ts';
import { relationInverse, type RelationType } from '../vocabulary/relation-types.ts';
import { now, today } from '../model/clock.ts';
import { effectsOf, holderId, isClosed, type RelationRef } from '../model/derivations.ts';
import { issueStateOf } from '../db/issues/issue-item.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import { refusedAs } from './refusals.ts';
import type { Principal } from '../model/principal.ts';
import type { IssueStatus } from '../schemas/issues.ts';
import { readIssueItem } from '../db/issues/issue-refs.ts';

/**
 * Relations between issues of one organisation (any projects): `blocks`/`blocked_by`,
 * `duplicates`/`duplicated_by`, `relates_to`. Each is stored on both issues, the other showing the
 * inverse type, written and removed on both in one transaction (lib/db/issues/relations.ts). Rules: an
 * issue does not relate to itself, holds at most MAX_RELATIONS relations, and two issues have at
 * most one relation of each kind (blocking, duplication, relating) between them: a second is 422,
 * whichever its direction. A `blocks` relation moves the blocked issue's count of open blockers as
 * the `open-blockers` derivation says (lib/model/derivations.ts), in the same transaction.
 *
 * Cost (calls, the authorizer aside): a list 2 (the key's pointer, then the issue with its
 * project); an add 3 (both keys' pointers, both issues with their projects, the transaction); a
 * removal 3 (the key's pointer, the issue with its project, the transaction), 2 more when the
 * other issue's status is not the one assumed (open) for a `blocked_by` relation.
 */

import { MAX_RELATIONS } from '../vocabulary/relation-types.ts';

export { MAX_RELATIONS };
/**
 * Issues one issue may block (`blocks` relations on its side): a change of its status, or its
 * delete, moves the count of open blockers of each, on the blocked issue and on its search record
 * (docs/search.md), in one transaction of at most 100 items beside its other relations' sides.
 */
export const MAX_BLOCKS = 40;

/** The kind a type belongs to, and whether the path's issue is its first issue (`12-blocks-7`: 12). */
const kindOf = (type: RelationType) =>
  type === 'blocks' || type === 'blocked_by' ? 'blocks' : type === 'relates_to' ? 'relates_to' : 'duplicates';

/** A relation's id, the same on both issues: `<first issue id>-<kind>-<second issue id>`. */
export function relationIdOf(type: RelationType, from: number, to: number): string {
  const kind = kindOf(type);
  if (type === 'relates_to') return `${Math.min(from, to)}-${kind}-${Math.max(from, to)}`;
  return type === 'blocks' || type === 'duplicates' ? `${from}-${kind}-${to}` : `${to}-${kind}-${from}`;
}

/** A relation id as a path carries it. */
export { relationIdPattern } from '../vocabulary/ids.ts';

const toRelation = (id: string, r: StoredRelation): Relation => ({
  id,
  type: r.type,
  issue: { id: Number(r.issue_id), issue_number: r.issue_number, project_id: Number(r.project_id) },
  created_at: r.created_at,
});

/** An issue's relations, oldest first (ties by id). */
const relationsOfItem = (item: Record<string, unknown>): Relation[] =>
  Object.entries(storedRelations(item))
    .map(([id, r]) => toRelation(id, r))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));

interface Found {
  number: string;
  projectId: number;
  issueId: number;
  item: Record<string, unknown>;
}

/** The issues `numbers` name, with their projects; undefined for a number that names none. */
async function issuesByNumber(caller: Principal, numbers: string[]): Promise<(Found | undefined)[]> {
  const pointers = await issuesOfNumbers(caller.orgId, numbers);
  const known = pointers.filter((p) => p !== undefined);
  const read = known.length ? await issuesWithProjects(caller.orgId, known) : [];
  return numbers.map((number, i) => {
    const pointer = pointers[i];
    if (!pointer) return undefined;
    const { project, issue } = read[known.indexOf(pointer)] ?? {};
    if (!project || !issue || issue.issue_number !== number) return undefined;
    return { number, ...pointer, item: issue };
  });
}

async function issueByNumber(caller: Principal, key: string): Promise<Found> {
  const number = key.toUpperCase();
  const [found] = await issuesByNumber(caller, [number]);
  if (!found) throw new NotFoundError(`Issue ${number}`);
  return found;
}

/** An issue's relations, oldest first (at most MAX_RELATIONS: one answer, no paging). */
export async function listRelations(caller: Principal, key: string): Promise<Relation[]> {
  return relationsOfItem((await issueByNumber(caller, key)).item);
}

/** What a change of `blocker`'s relations adds to the issues it blocks (the `open-blockers` derivation). */
function openBlockerCounts(caller: Principal, blocker: Found, relations: RelationRef[]): Map<string, number> {
  const before = issueStateOf(caller.orgId, blocker.item);
  const effects = effectsOf([{ before, after: { ...before, relations } }], { day: today(), history: false }, ['open-blockers']);
  const counts = new Map<string, number>();
  for (const e of effects) if (e.kind === 'add') counts.set(holderId(e.holder), (counts.get(holderId(e.holder)) ?? 0) + e.by);
  return counts;
}

const issueHolderId = (orgId: number, f: { projectId: number; issueId: number }) =>
  holderId({ kind: 'issue', orgId, projectId: f.projectId, issueId: f.issueId });

/**
 * Refuses a relation of `type` from `from` to `to` that two issues may not have: a second of its
 * kind between them, one past either's MAX_RELATIONS, or past the blocker's MAX_BLOCKS. Answers the
 * blocker of a blocking relation (whose `blocks` gain the other issue), if it is one.
 */
function checkedBlocker(from: Found, to: Found, type: RelationType): Found | undefined {
  const fromRelations = storedRelations(from.item);
  const kind = kindOf(type);
  const same = Object.entries(fromRelations).find(([, r]) => Number(r.issue_id) === to.issueId && kindOf(r.type) === kind);
  if (same)
    throw new ValidationError([
      `issue_key: ${from.number} ${same[1].type} ${to.number} already (relation ${same[0]}); one relation of a kind between two issues`,
    ]);
  for (const f of [from, to]) {
    if (Object.keys(storedRelations(f.item)).length >= MAX_RELATIONS) {
      throw new ValidationError([`issue_key: ${f.number} has ${MAX_RELATIONS} relations, the most an issue may have`]);
    }
  }
  const blocker = type === 'blocks' ? from : type === 'blocked_by' ? to : undefined;
  if (blocker && Object.values(storedRelations(blocker.item)).filter((r) => r.type === 'blocks').length >= MAX_BLOCKS) {
    throw new ValidationError([`issue_key: ${blocker.number} blocks ${MAX_BLOCKS} issues, the most an issue may block`]);
  }
  return blocker;
}

/** The blocker's relations as the model reads them, with its new `blocks` of `blocked`. */
const withBlock = (orgId: number, blocker: Found, blocked: Found, id: string): RelationRef[] => [
  ...(issueStateOf(orgId, blocker.item).relations ?? []),
  { id, type: 'blocks', projectId: blocked.projectId, issueId: blocked.issueId },
];

/**
 * Relates the issue `key` names to another (`input.issue_key`) and answers the relation as the
 * first shows it. 404 for the path's issue; 422 for the other missing, itself, a relation of that
 * kind already between them, or either at MAX_RELATIONS.
 */
export async function addRelation(
  caller: Principal,
  key: string,
  input: RelationCreate,
  options: {
    /** An import's: the relation's own time (an export file's), instead of now. */
    createdAt?: string | undefined;
    /** A revert's: the activity entry it reverts, marked on the issue of `key` (whose `If-Match` is checked). */
    reverts?: string | undefined;
  } = {},
): Promise<Relation> {
  const fromNumber = key.toUpperCase();
  const toNumber = input.issue_key.toUpperCase();
  if (fromNumber === toNumber) throw new ValidationError(['issue_key must name another issue: an issue cannot relate to itself']);
  return rereadOnStale(async () => {
    const [from, to] = await issuesByNumber(caller, [fromNumber, toNumber]);
    if (!from) throw new NotFoundError(`Issue ${fromNumber}`);
    if (!to) throw new ValidationError([`issue_key names no issue of this organisation (${toNumber})`]);
    const id = relationIdOf(input.type, from.issueId, to.issueId);
    const blocker = checkedBlocker(from, to, input.type);
    const createdAt = options.createdAt ?? now();
    const side = (of: Found, other: Found, type: RelationType): StoredRelation => ({
      type,
      project_id: other.projectId,
      issue_id: other.issueId,
      issue_number: other.number,
      created_at: createdAt,
    });
    const fromSide = side(from, to, input.type);
    const toSide = side(to, from, relationInverse[input.type]);
    const counts = blocker
      ? openBlockerCounts(caller, blocker, withBlock(caller.orgId, blocker, blocker === from ? to : from, id))
      : new Map<string, number>();
    const sideOf = (f: Found, put: StoredRelation): RelationSide => ({
      projectId: f.projectId,
      issueId: f.issueId,
      put,
      hasRelations: f.item.relations !== undefined,
      rev: Number(f.item.rev ?? 0),
      openBlockers: counts.get(issueHolderId(caller.orgId, f)),
    });
    const own = options.reverts === undefined ? {} : { reverts: options.reverts, resource: true };
    await refusedAs({ project: () => new NotFoundError('Project') }, () =>
      writeRelation(caller.orgId, id, [{ ...sideOf(from, fromSide), ...own }, sideOf(to, toSide)]),
    );
    return toRelation(id, fromSide);
  });
}

/**
 * Removes relation `relationId` from the issue `key` names and from the other issue, in one
 * transaction. 404 when the issue does not hold it. When the other issue is gone already (its
 * sprint's or project's cascade is on its way), that cascade takes the relation off this issue too.
 */
export async function removeRelation(
  caller: Principal,
  key: string,
  relationId: string,
  /** A revert's: the activity entry it reverts, marked on the issue of `key`. */
  options: { reverts?: string | undefined } = {},
): Promise<void> {
  await rereadOnStale(async () => {
    const issue = await issueByNumber(caller, key);
    const held = storedRelations(issue.item)[relationId];
    if (!held) throw new NotFoundError('Relation');
    const other = { projectId: Number(held.project_id), issueId: Number(held.issue_id) };
    const status = issue.item.status as IssueStatus;
    // This issue blocks the other: the other's count moves with this one's status, known. The other
    // blocks this one: this one's count moves if the other is open, assumed and checked by the write.
    const write = (otherClosed: boolean, otherSide = true) => {
      const minus = (open: boolean) => (open ? -1 : undefined);
      const own: RelationSide = {
        projectId: issue.projectId,
        issueId: issue.issueId,
        hasRelations: true,
        rev: Number(issue.item.rev ?? 0),
        resource: true,
        reverts: options.reverts,
        // Counted while the blocker's side says it blocks this one.
        openBlockers: held.type === 'blocked_by' && otherSide ? minus(!otherClosed) : undefined,
      };
      const theirs: RelationSide = {
        ...other,
        closed: held.type === 'blocked_by' ? otherClosed : undefined,
        openBlockers: held.type === 'blocks' ? minus(!isClosed(status)) : undefined,
      };
      return writeRelation(caller.orgId, relationId, otherSide ? [own, theirs] : [own]);
    };
    try {
      await write(false);
    } catch (err) {
      if (!isRefused(err, 'other')) throw err;
      const found = await readIssueItem<Record<string, unknown>>(caller.orgId, other.projectId, other.issueId);
      // Gone: the cascade removing it takes this side off (and the count with it).
      if (!found) return;
      await write(isClosed(found.status as IssueStatus), storedRelations(found)[relationId] !== undefined).catch((again) => {
        // It changed again meanwhile: read everything again.
        throw isRefused(again, 'other') ? new Refused(STALE) : again;
      });
    }
  });
}

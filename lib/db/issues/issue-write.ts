import {
  SUMMARY,
  effectsOf,
  type ChangeContext,
  type DerivedRecord,
  type Holder,
  type IssueChange,
  type IssueState,
  type SearchPatch,
  type SearchRecord,
  holderId,
  ASSIGNED_COUNT,
} from '../../model/derivations.ts';
import { today } from '../../model/clock.ts';
import { tableName } from '../core/client.ts';
import { keys, listKeys, type Key } from '../core/keys.ts';
import { addCounters } from '../projects/sprints.ts';
import { addTo, putItem, Refused, transact, type GuardedItem } from '../core/transactions.ts';
import { assignedEntryItem, issueItem, searchRecordItem } from './issue-item.ts';
import { issueKeyItem } from './issue-lookup.ts';
import { subIssueItem } from './sub-issues.ts';
import { storedCounter } from './counters.ts';
import { projectItem } from '../projects/projects.ts';
import { sprintItem } from '../projects/sprints.ts';
import type { IfPresentRefusal, RefusalReason } from '../core/refusals.ts';

/**
 * THE way an issue write becomes a transaction: the issues' own items (the path's), then what every
 * derivation (lib/model/derivations.ts) says the changes mean, as items: one update per list
 * owner (its counters and rank index; a check that it exists when nothing moves), the path's
 * checks, the records put or removed (number pointers, assignee entries), one update per
 * account whose `assigned_count` moves and one per other issue whose counters move (a parent's
 * summary). No write path builds derived items of its own.
 */

/**
 * A new parent as the write decided on it: with fewer children than the limit, and its chain as it
 * was read (the parent's own parent, and each ancestor's, unchanged), so that writes deciding at
 * once on chains that each other change (a cycle made of two moves, a chain grown past the depth
 * limit from both ends) cannot both commit. Refused as `stale`: the write reads again and decides
 * again. The ancestors are checked on their counter update when the write has one, else by a
 * ConditionCheck each (at most 3).
 */
export interface ParentGuard {
  issueId: number;
  parentId: number | null;
  maxChildren: number;
  /** The ancestors above the parent as read, nearest first: each with its own parent. */
  chain?: { issueId: number; parentId: number | null }[] | undefined;
}

/** The condition that an issue's `parent_id` is still `parentId` (null: none), with its names and values. */
function parentIs(parentId: number | null, names: Record<string, string>, values: Record<string, unknown>, tag: string): string {
  names['#g_parent'] = 'parent_id';
  if (parentId === null) {
    values[`:${tag}_null`] = null;
    return `(attribute_not_exists(#g_parent) OR #g_parent = :${tag}_null)`;
  }
  values[`:${tag}_parent`] = parentId;
  return `#g_parent = :${tag}_parent`;
}

/** A list's revision check, for a position computed on a read of the list (lib/services/issues.ts). */
export interface ListRevision {
  sprintId: number | null;
  expected: number | undefined;
}

export interface IssueWriteSpec {
  orgId: number;
  projectId: number;
  /** The issues' own items (put, update, delete), first in the transaction. */
  issues: GuardedItem[];
  changes: IssueChange[];
  /** How the changes count (default: today, with history). */
  ctx?: Partial<ChangeContext> | undefined;
  /** Derivations to keep (default: all): a cascade keeps only what lives outside the deleted parent. */
  only?: readonly string[] | undefined;
  /** What a refused list owner update means (default `stale`). */
  ownerReason?: RefusalReason | undefined;
  /** The item of a list owner from what the derivations add to it (default: `listOwnerUpdate`). */
  owner?: ((sprintId: number | null, add: Record<string, number>) => GuardedItem | undefined) | undefined;
  /** Lists whose owner is in the transaction even when nothing of it changes (checked, in this order). */
  owners?: (number | null)[] | undefined;
  listRev?: ListRevision | undefined;
  /** The path's own checks (project, assignee), after the owners. */
  checks?: GuardedItem[] | undefined;
  /** Removals conditioned on the record still being this issue's (a cascade's page read again). */
  guardedRemoves?: boolean | undefined;
  /** What a refused raise of an assignee's count means (default `assignee`: the assignee check). */
  assigneeReason?: RefusalReason | undefined;
  /** What a refused update of another issue's counters means (default `issue`: that issue is gone). */
  issueReason?: RefusalReason | undefined;
  /** Issues known to be gone (a parent deleted, its cascade pending): their counters are not kept. */
  goneIssues?: readonly number[] | undefined;
  /** A parent given to an issue, checked as it was read when its counters move. */
  parentGuard?: ParentGuard | undefined;
  /** Parents given to issues created together (one per parent, its `maxChildren` less the others it gains). */
  parentGuards?: readonly ParentGuard[] | undefined;
  /** Items after everything else (a completion's velocity summary). */
  tail?: GuardedItem[] | undefined;
  /**
   * Issues coming back from the trash (lib/jobs/issue-trash.ts, lib/jobs/container-trash.ts): each
   * number pointer is put only while no issue of another project holds the number (refused
   * `number_taken`), and each search record's count of open blockers is set to what its issue
   * holds (`openBlockers`, by issue id; kept apart from its fields). With `once`, an assignee
   * entry and a children-index record are put only while not there yet (refused `entry_there`,
   * `child_there`), so that a page of a bulk return read again adds no count twice.
   */
  returning?:
    { openBlockers: ReadonlyMap<number, number>; prs?: ReadonlyMap<number, PullRequestCounts>; once?: boolean } | undefined;
}

const ownerKey = (orgId: number, projectId: number, sprintId: number | null): Key =>
  sprintId === null ? keys.project(orgId, projectId) : keys.sprint(orgId, projectId, sprintId);

/** The items of one issue write (see the module comment). */
export function issueWriteItems(spec: IssueWriteSpec): GuardedItem[] {
  const { orgId, projectId } = spec;
  const ctx: ChangeContext = { day: today(), history: true, ...spec.ctx };
  const guards = [...(spec.parentGuard ? [spec.parentGuard] : []), ...(spec.parentGuards ?? [])];
  const chain = guards.flatMap((g) => g.chain ?? []);
  const effects = effectsOf(spec.changes, ctx, spec.only);

  const { lists, accounts, others, records, searchAdds, removedRecords } = gatheredEffects(spec, effects);
  const searchCounters = searchCounterItems(searchAdds, records, removedRecords);

  const owners: GuardedItem[] = [];
  for (const { sprintId, add } of lists.values()) {
    const item = spec.owner
      ? spec.owner(sprintId, add)
      : listOwnerUpdate(orgId, projectId, sprintId, add, spec.ownerReason ?? 'stale', spec.listRev);
    if (item) owners.push(item);
  }
  const counts = [...accounts.values()]
    .filter(({ by }) => by !== 0)
    .map(({ accountId, by }) => countUpdate(orgId, accountId, by, spec.assigneeReason ?? 'assignee'));
  const issueCounters = issueCounterItems(spec, others.values(), guards, chain);
  const chainChecks = chainCheckItems(orgId, projectId, chain, [...spec.issues, ...issueCounters]);
  return [
    ...spec.issues,
    ...owners,
    ...(spec.checks ?? []),
    ...records,
    ...counts,
    ...issueCounters,
    ...searchCounters,
    ...chainChecks,
    ...(spec.tail ?? []),
  ];
}

/** Another issue a write moves counters of, or unlinks a relation from. */
interface OtherIssue {
  projectId: number;
  issueId: number;
  add: Record<string, number>;
  unlink: string[];
  ifPresent: boolean;
}

/**
 * A write's effects gathered by what they touch: the lists' counters (every owner the spec names
 * among them), the accounts' counts, other issues' counters and unlinks, the search records'
 * counts, and the records put, patched or removed. An issue the write deletes keeps no counters
 * (an add to it would touch its item twice).
 */
function gatheredEffects(spec: IssueWriteSpec, effects: ReturnType<typeof effectsOf>) {
  const { orgId, projectId } = spec;
  const lists = new Map<string, { sprintId: number | null; add: Record<string, number> }>();
  const accounts = new Map<string, { accountId: number; by: number }>();
  const others = new Map<string, OtherIssue>();
  const other = (holder: Holder & { kind: 'issue' }) => {
    const id = holderId(holder);
    const entry = others.get(id) ?? {
      projectId: holder.projectId,
      issueId: holder.issueId,
      add: {},
      unlink: [],
      ifPresent: true,
    };
    others.set(id, entry);
    return entry;
  };
  const deleted = new Set(
    spec.changes
      .map((c) => (c.after ? undefined : c.before))
      .filter((b): b is IssueState => b !== undefined)
      .map((b) => holderId({ kind: 'issue', orgId: b.orgId, projectId: b.projectId, issueId: b.id })),
  );
  const listEntry = (sprintId: number | null) => {
    const id = holderId({ kind: 'list', orgId, projectId, sprintId });
    const entry = lists.get(id) ?? { sprintId, add: {} };
    lists.set(id, entry);
    return entry;
  };
  for (const sprintId of spec.owners ?? []) listEntry(sprintId);
  if (spec.listRev) listEntry(spec.listRev.sprintId);
  const records: GuardedItem[] = [];
  const searchAdds = new Map<string, { key: Key; add: Record<string, number> }>();
  const removedRecords = new Set<string>();
  for (const e of effects) {
    if (e.kind === 'add') {
      const holder: Holder = e.holder;
      if (holder.kind === 'search') {
        if (deleted.has(holderId({ ...holder, kind: 'issue' }))) continue;
        const id = holderId(holder);
        const entry = searchAdds.get(id) ?? { key: keys.searchIssue(holder.orgId, holder.projectId, holder.issueId), add: {} };
        const attr = storedCounter(holder.kind, e.attr);
        entry.add[attr] = (entry.add[attr] ?? 0) + e.by;
        searchAdds.set(id, entry);
      } else if (holder.kind === 'list') {
        const entry = listEntry(holder.sprintId);
        const attr = storedCounter(holder.kind, e.attr);
        entry.add[attr] = (entry.add[attr] ?? 0) + e.by;
      } else if (holder.kind === 'account') {
        const id = holderId(holder);
        const entry = accounts.get(id) ?? { accountId: holder.accountId, by: 0 };
        entry.by += e.by;
        accounts.set(id, entry);
      } else {
        if (deleted.has(holderId(holder))) continue;
        const entry = other(holder);
        const attr = storedCounter(holder.kind, e.attr);
        entry.add[attr] = (entry.add[attr] ?? 0) + e.by;
        if (!e.ifPresent) entry.ifPresent = false;
      }
    } else if (e.kind === 'unlink') {
      if (!deleted.has(holderId(e.holder))) other(e.holder).unlink.push(e.relationId);
    } else if (e.kind === 'patch') {
      records.push(searchPatch(e.record));
    } else {
      if (e.kind === 'remove') removedRecords.add(`${recordKey(e.record).PK}|${recordKey(e.record).SK}`);
      records.push(
        e.kind === 'put'
          ? spec.returning
            ? returnedPut(e.record, spec.returning)
            : recordPut(e.record)
          : recordRemove(e.record, spec.guardedRemoves ?? false),
      );
    }
  }
  return { lists, accounts, others, records, searchAdds, removedRecords };
}

/**
 * Search records' counts of open blockers: each folded into its record's own write when the
 * transaction has one (DynamoDB refuses two operations on one item), else an ADD while it is there;
 * none for a record this write removes.
 */
function searchCounterItems(
  searchAdds: Map<string, { key: Key; add: Record<string, number> }>,
  records: GuardedItem[],
  removedRecords: Set<string>,
): GuardedItem[] {
  return [...searchAdds.entries()].flatMap(([id, { key, add }]) => {
    if (removedRecords.has(`${key.PK}|${key.SK}`)) return [];
    const own = records.find((g) => sameKey(ownKey(g), key));
    if (own) {
      foldCounters(own, add);
      return [];
    }
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const added = addCounters(add, names, values);
    if (!added) return [];
    return [
      {
        item: {
          Update: {
            TableName: tableName(),
            Key: key,
            UpdateExpression: `ADD ${added}`,
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        },
        // A record not there (an issue gone, or written before the search index and not yet reindexed) needs no count.
        reason: ifPresentReason(id),
      } satisfies GuardedItem,
    ];
  });
}

/** The counters of other issues the write moves (a parent's summary, a blocked issue's open blockers), and the relations it unlinks from them. */
function issueCounterItems(
  spec: IssueWriteSpec,
  others: Iterable<OtherIssue>,
  guards: ParentGuard[],
  chain: NonNullable<ParentGuard['chain']>,
): GuardedItem[] {
  const { orgId } = spec;
  return [...others].flatMap(({ projectId: p, issueId, add, unlink, ifPresent }) => {
    if (spec.goneIssues?.includes(issueId)) return [];
    // An issue written in this very transaction (a neighbour renumbered, an issue moved by a
    // completion, one deleted by a cascade) takes its counters in its own item: DynamoDB refuses
    // two operations on one item in a transaction.
    const own = spec.issues.find((g) => sameKey(ownKey(g), keys.issue(orgId, p, issueId)));
    if (own && unlink.length === 0) {
      foldCounters(own, add);
      return [];
    }
    const guard = guards.find((g) => g.issueId === issueId);
    const ancestor = chain.find((a) => a.issueId === issueId);
    // A holder that may be gone is refused under its own reason, and `issueWrite` drops it.
    const reason =
      ifPresent && !guard && !ancestor
        ? ifPresentReason(holderId({ kind: 'issue', orgId, projectId: p, issueId }))
        : (spec.issueReason ?? 'issue');
    const item = issueCounterUpdate(orgId, p, issueId, add, reason, unlink, guard, ancestor);
    return item ? [item] : [];
  });
}

/** The new parent's ancestors that nothing else in the transaction (`written`) writes: one check each that it is still where it was read. */
function chainCheckItems(
  orgId: number,
  projectId: number,
  chain: NonNullable<ParentGuard['chain']>,
  written: GuardedItem[],
): GuardedItem[] {
  const writes = (issueId: number) => written.map(ownKey).some((k) => sameKey(k, keys.issue(orgId, projectId, issueId)));
  return chain
    .filter((a, i) => !writes(a.issueId) && chain.findIndex((b) => b.issueId === a.issueId) === i)
    .map((a): GuardedItem => {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = {};
      const condition = `attribute_exists(PK) AND ${parentIs(a.parentId, names, values, 'a')}`;
      return {
        item: {
          ConditionCheck: {
            TableName: tableName(),
            Key: keys.issue(orgId, projectId, a.issueId),
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
          },
        },
        reason: 'stale',
      };
    });
}

/** The reason prefix of an update of another issue that is dropped, not refused, when that issue is gone. */
const IF_PRESENT = 'if-present:';
const ifPresentReason = (holder: string): IfPresentRefusal => `${IF_PRESENT}${holder}`;

/**
 * Sends one issue write as one transaction (see `issueWriteItems`). An update of another issue
 * that needs doing only while that issue exists (a count of open blockers, its side of a relation;
 * lib/model/derivations.ts) and finds it gone is dropped, and the rest sent again: the deleted
 * issue needs neither, and the cascade of its sprint or project takes its relations off.
 */
export async function issueWrite(spec: IssueWriteSpec): Promise<void> {
  await sendIssueWrite(issueWriteItems(spec));
}

/** Sends the items of one issue write (`issueWriteItems`, a path's own conditions added) as `issueWrite` does. */
export async function sendIssueWrite(written: GuardedItem[]): Promise<void> {
  let items = written;
  for (;;) {
    try {
      await transact(items);
      return;
    } catch (err) {
      if (!(err instanceof Refused) || !err.reason.startsWith(IF_PRESENT)) throw err;
      const gone = err.reason;
      const rest = items.filter((i) => i.reason !== gone);
      if (rest.length === items.length) throw err;
      items = rest;
    }
  }
}

/**
 * The revision of a list (`ListRevision.expected`) as its owner's stored item holds it: a sprint's
 * `positionsRev`, the backlog's `backlogRev` on its project; undefined while none was written.
 */
export function listRevisionOf(sprintId: number | null, owner: object | undefined): number | undefined {
  const stored = sprintId === null ? projectItem.stored('backlogRev') : sprintItem.stored('positionsRev');
  const rev = (owner as Record<string, unknown> | undefined)?.[stored];
  return rev === undefined ? undefined : Number(rev);
}

/**
 * The update of a list's owner by what the derivations add to it (a check that it exists when
 * nothing moves). A sprint being completed is refused: its issues are frozen until the completion
 * ends (lib/services/sprints.ts). With `listRev` for this list: its revision is checked and bumped.
 */
export function listOwnerUpdate(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  add: Record<string, number>,
  reason: RefusalReason,
  listRev?: ListRevision,
): GuardedItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions = ['attribute_exists(PK)'];
  if (sprintId !== null) {
    names['#owner_status'] = 'status';
    values[':completing'] = 'completing';
    conditions.push('#owner_status <> :completing');
  }
  const delta: Record<string, number> = { ...add };
  if (listRev && listRev.sprintId === sprintId) {
    const rev = sprintId === null ? projectItem.stored('backlogRev') : sprintItem.stored('positionsRev');
    delta[rev] = 1;
    names[`#${rev}_c`] = rev;
    if (listRev.expected === undefined) {
      conditions.push(`attribute_not_exists(#${rev}_c)`);
    } else {
      values[':list_rev'] = listRev.expected;
      conditions.push(`#${rev}_c = :list_rev`);
    }
  }
  const added = addCounters(delta, names, values);
  const common = {
    TableName: tableName(),
    Key: ownerKey(orgId, projectId, sprintId),
    ConditionExpression: conditions.join(' AND '),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
  // Nothing to add (a move that leaves the counters as they were) still checks the owner.
  return { item: added ? { Update: { ...common, UpdateExpression: `ADD ${added}` } } : { ConditionCheck: common }, reason };
}

const ownKey = (g: GuardedItem): Key | undefined => {
  const item = g.item as { Update?: { Key: Key }; Delete?: { Key: Key }; Put?: { Item: Key } };
  return item.Update?.Key ?? item.Delete?.Key ?? item.Put?.Item;
};
const sameKey = (a: Key | undefined, b: Key) => a !== undefined && a.PK === b.PK && a.SK === b.SK;

/**
 * Adds counters to an issue's own item of the transaction: an Update gets them in its ADD clause,
 * a Put in its attributes; a Delete drops them (the holder leaves with them).
 */
function foldCounters(g: GuardedItem, add: Record<string, number>): void {
  const item = g.item as {
    Update?: {
      UpdateExpression: string;
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, unknown>;
    };
    Put?: { Item: Record<string, unknown> };
  };
  if (item.Put) {
    for (const [attr, by] of Object.entries(add)) item.Put.Item[attr] = Number(item.Put.Item[attr] ?? 0) + by;
    return;
  }
  const update = item.Update;
  if (!update) return;
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const added = addCounters(add, names, values, 'sub');
  if (!added) return;
  update.ExpressionAttributeNames = { ...update.ExpressionAttributeNames, ...names };
  update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ...values };
  update.UpdateExpression = / ?\bADD /.test(update.UpdateExpression)
    ? update.UpdateExpression.replace(/\bADD /, `ADD ${added}, `)
    : `${update.UpdateExpression} ADD ${added}`;
}

/**
 * What the derivations add to another issue's counters (a parent's summary): one ADD, on condition
 * that the issue is there (a counter never creates an item). Nothing when every sum is zero.
 */
function issueCounterUpdate(
  orgId: number,
  projectId: number,
  issueId: number,
  add: Record<string, number>,
  reason: RefusalReason,
  unlink: string[] = [],
  guard?: ParentGuard,
  ancestor?: { parentId: number | null },
): GuardedItem | undefined {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const added = addCounters(add, names, values);
  const removed = relationRemovals(unlink, names);
  if (!added && !removed) return undefined;
  const conditions = ['attribute_exists(PK)'];
  if (guard) {
    names['#g_children'] = storedCounter('issue', SUMMARY.total);
    values[':g_max'] = guard.maxChildren;
    conditions.push('(attribute_not_exists(#g_children) OR #g_children < :g_max)');
    conditions.push(parentIs(guard.parentId, names, values, 'g'));
  }
  if (ancestor) conditions.push(parentIs(ancestor.parentId, names, values, 'a'));
  const item: GuardedItem = {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.issue(orgId, projectId, issueId),
        UpdateExpression: [removed ? `REMOVE ${removed}` : '', added ? `ADD ${added}` : ''].filter(Boolean).join(' '),
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      },
    },
    reason,
  };
  // A guard that fails (the parent gone, its chain or its children changed): read and decide again.
  return guard || ancestor ? { ...item, reason: 'stale' } : item;
}

/** `relations.#rN` paths of relation ids to remove from an issue (its side of relations of a deleted issue). */
export function relationRemovals(ids: string[], names: Record<string, string>): string {
  if (ids.length === 0) return '';
  names['#relations'] = 'relations';
  return ids
    .map((id, i) => {
      names[`#rel${i}`] = id;
      return `#relations.#rel${i}`;
    })
    .join(', ');
}

// Gaining an issue proves the account exists (the assignee check); accounts are never deleted.
const countUpdate = (orgId: number, accountId: number, by: number, reason: RefusalReason): GuardedItem =>
  addTo(keys.account(orgId, accountId), storedCounter('account', ASSIGNED_COUNT), by, by > 0 ? reason : undefined);

/** The key of a derived record. */
export function recordKey(record: DerivedRecord): Key {
  return record.kind === 'pointer'
    ? keys.issueKey(record.orgId, record.number)
    : record.kind === 'assigned'
      ? keys.assignedIssue(record.orgId, record.accountId, record.projectId, record.issueId)
      : record.kind === 'search'
        ? keys.searchIssue(record.orgId, record.projectId, record.issueId)
        : keys.subIssue(record.orgId, record.parentNumber, record.issueId);
}

/** The stored attributes of search record fields (all of a record, or those a patch sets), with its list key. */
function searchAttributes(record: Partial<SearchRecord> & Pick<SearchRecord, 'projectId' | 'issueId'>): Record<string, unknown> {
  const out = searchRecordItem.encode(record);
  if (record.updatedAt !== undefined) out.LSK = listKeys.searchIssue(record.updatedAt, record.projectId, record.issueId);
  return out;
}

/**
 * The fields a change moved, set on the search record (the others, and its count of open
 * blockers, left as they are). Unconditional: a record of an issue written before the search
 * index (not yet reindexed) is then partial, and searches skip it until `issues:reindex` fills it.
 */
function searchPatch(patch: SearchPatch): GuardedItem {
  const attrs = { type: 'search_issue', project_id: patch.projectId, issue_id: patch.issueId, ...searchAttributes(patch) };
  const entries = Object.entries(attrs);
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: recordKey({ ...patch, kind: 'search' } as SearchRecord),
        UpdateExpression: `SET ${entries.map((_, i) => `#s${i} = :s${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#s${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:s${i}`, value])),
      },
    },
  };
}

/** The stored item of a derived record. */
export function recordItem(record: DerivedRecord): Record<string, unknown> {
  if (record.kind === 'search') {
    return {
      ...recordKey(record),
      type: searchRecordItem.type,
      project_id: record.projectId,
      issue_id: record.issueId,
      ...searchAttributes(record),
    };
  }
  if (record.kind === 'pointer') {
    return {
      ...recordKey(record),
      type: issueKeyItem.type,
      ...issueKeyItem.encode({
        projectId: record.projectId,
        issueId: record.issueId,
        sprintId: record.sprintId,
        position: record.position,
      }),
    };
  }
  if (record.kind === 'sub_issue') {
    return {
      ...recordKey(record),
      type: subIssueItem.type,
      ...subIssueItem.encode({
        parentId: record.parentId,
        projectId: record.projectId,
        issueId: record.issueId,
        issueNumber: record.number,
        title: record.title,
        sprintId: record.sprintId,
        status: record.status,
        storyPoints: record.storyPoints,
        assigneeId: record.assigneeId,
      }),
    };
  }
  return {
    ...recordKey(record),
    LSK: listKeys.assignedIssue(record.updatedAt, record.projectId, record.issueId),
    type: assignedEntryItem.type,
    ...assignedEntryItem.encode({
      projectId: record.projectId,
      issueId: record.issueId,
      sprintId: record.sprintId,
      status: record.status,
      updatedAt: record.updatedAt,
      priority: record.priority,
      type: record.type,
      dueDate: record.dueDate,
      parentId: record.parentId,
    }),
  };
}

// A pointer is replaced unconditionally: a stale one (left by a deleted project whose prefix is reused) gives way.
// A search record is set field by field, so that its count of open blockers (kept apart) stays.
const recordPut = (record: DerivedRecord): GuardedItem =>
  record.kind === 'search' ? searchPatch(record) : putItem(recordItem(record));

/** An issue's linked pull requests by state, as its item and its search record count them. */
export type PullRequestCounts = Record<(typeof prCounts)[number], number>;
export const prCounts = ['prsOpen', 'prsDraft', 'prsMerged', 'prsClosed'] as const;

/** The pull request counts of stored issues, by id, for their return (`IssueWriteSpec.returning`). */
export const pullRequestCountsOf = (items: object[]): Map<number, PullRequestCounts> =>
  new Map(
    items.map((item) => {
      const i = issueItem.decode(item);
      return [i.id, { prsOpen: i.prsOpen, prsDraft: i.prsDraft, prsMerged: i.prsMerged, prsClosed: i.prsClosed }];
    }),
  );

/** A record put back with an issue returning from the trash (`IssueWriteSpec.returning`). */
function returnedPut(record: DerivedRecord, returning: NonNullable<IssueWriteSpec['returning']>): GuardedItem {
  if (record.kind === 'search') {
    const patch = searchPatch(record);
    const update = (patch.item as { Update: { UpdateExpression: string; ExpressionAttributeValues: Record<string, unknown> } })
      .Update;
    update.UpdateExpression += `, ${searchRecordItem.stored('openBlockers')} = :returned_blockers`;
    update.ExpressionAttributeValues[':returned_blockers'] = returning.openBlockers.get(record.issueId) ?? 0;
    // Its linked pull requests' counts (lib/db/github/github.ts keeps them), as the issue holds them.
    const prs = returning.prs?.get(record.issueId);
    for (const field of prCounts) {
      update.UpdateExpression += `, ${searchRecordItem.stored(field)} = :returned_${field}`;
      update.ExpressionAttributeValues[`:returned_${field}`] = prs?.[field] ?? 0;
    }
    return patch;
  }
  const Item = recordItem(record);
  if (record.kind === 'pointer') {
    return {
      item: {
        Put: {
          TableName: tableName(),
          Item,
          ConditionExpression: 'attribute_not_exists(PK) OR (#project = :kept_project AND #issue = :kept_issue)',
          ExpressionAttributeNames: { '#project': issueKeyItem.stored('projectId'), '#issue': issueKeyItem.stored('issueId') },
          ExpressionAttributeValues: { ':kept_project': record.projectId, ':kept_issue': record.issueId },
        },
      },
      reason: 'number_taken',
    };
  }
  if (!returning.once) return putItem(Item);
  return {
    item: { Put: { TableName: tableName(), Item, ConditionExpression: 'attribute_not_exists(PK)' } },
    reason: record.kind === 'assigned' ? 'entry_there' : 'child_there',
  };
}

function recordRemove(record: DerivedRecord, guarded: boolean): GuardedItem {
  const Key = recordKey(record);
  if (!guarded) return { item: { Delete: { TableName: tableName(), Key } } };
  // A cascade's page read again: what is gone already, or (a pointer) taken by a new project's issue, is refused.
  const pointing = record.kind === 'pointer' ? issueKeyItem : record.kind === 'sub_issue' ? subIssueItem : undefined;
  const condition = pointing
    ? {
        ConditionExpression: '#project = :project AND #issue = :issue',
        ExpressionAttributeNames: { '#project': pointing.stored('projectId'), '#issue': pointing.stored('issueId') },
        ExpressionAttributeValues: { ':project': record.projectId, ':issue': record.issueId },
      }
    : { ConditionExpression: 'attribute_exists(PK)' };
  return { item: { Delete: { TableName: tableName(), Key, ...condition } }, reason: 'gone' };
}

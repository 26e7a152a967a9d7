import {
  derivations,
  differences,
  emptyDerived,
  sameRecord,
  holderId,
  OPEN_BLOCKERS,
  openBlockers,
  recordId,
  type Derivation,
  type Derived,
  type DerivedRecord,
  type Holder,
  type IssueState,
  type SearchRecord,
} from '../model/derivations.ts';
import { rebuildAttachmentCounters } from './attachment-counters.ts';
import {
  deleteDerivedRecord,
  PARTITIONS_AT_ONCE,
  putDerivedRecord,
  readDerivedPartition,
  scanDerivedState,
  setHeldCounters,
  setSearchPullRequestCounts,
  type DerivedPart,
  type HolderKey,
  type PullRequestCount,
} from '../db/issues/derived-state.ts';
import { prCounts as pullRequestCounts, type PullRequestCounts } from '../db/issues/issue-write.ts';
import { forEachLimited } from '../model/limited.ts';

/**
 * Rebuilds what the issue writes keep beside the issues themselves, from the issues as stored: the
 * rebuild of every derivation of lib/model/derivations.ts (the counters of every list and its
 * rank index, the issue-number pointers, the assigned-issue index with each account's
 * `assigned_count`, each parent's sub-issues summary and children index, each blocked issue's count of open blockers),
 * each search record's counts of its issue's linked pull requests by state (the issue's, which its
 * links' writes keep), and the attachment counters (lib/jobs/attachment-counters.ts). For data
 * written before these existed (an upgrade), or to repair them: an
 * operator's command (`issues:reindex`, tools/cli/admin.ts) that reads the table with a Scan,
 * which no request path does (one organisation's part of it, its attachment counters included: by
 * a Query of each of its partitions).
 *
 * It sets each count to what its read saw, so it must run while no issue is written (a maintenance
 * window): a write between the read and the count would be counted wrongly. It writes only what
 * differs from the rebuild, so running it again on unchanged data writes nothing.
 */

/** The derived state as stored, with the issues it derives from and the keys of its holders. */
export interface StoredDerivedState {
  /** Issues whose list and project exist (one waiting for its cascade counts nowhere). */
  issues: IssueState[];
  observed: Derived;
  /** Where each holder is stored, as read, by its holder id: what the update of its counters is given. */
  holderKeys: Map<string, HolderKey>;
  /** Whether a holder's container (its project, its sprint, its issue's list) is there: not in the trash. */
  isLive: (holder: Holder) => boolean;
  /**
   * Pull requests by state, as each issue counts them and as its search record does, by the issue's
   * holder id: not derived from the issues' fields (the links count them), so a search record's are
   * compared with its issue's.
   */
  pullRequests: { issues: Map<string, PullRequestCounts>; records: Map<string, PullRequestCounts> };
}

/**
 * One organisation's part of what the whole table's Scan reads, by a Query of each partition that
 * holds it: the organisation's own (its projects, accounts, issue-number pointers and children),
 * its search partition, each project's (sprints and issues) and each account's assigned-issue
 * entries. What it leaves out is what the Scan's reading drops anyway: the partition of a project
 * in the trash or gone holds sprints and issues of no live list. Accounts are never deleted, so
 * every assigned-issue partition belongs to an account it reads.
 */
async function readOrganisation(orgId: number, take: (parts: DerivedPart[]) => void): Promise<void> {
  const projects: number[] = [];
  const accounts: number[] = [];
  await readDerivedPartition({ kind: 'organisation', orgId }, (parts) => {
    take(parts);
    for (const part of parts) {
      if (part.kind !== 'list' && part.kind !== 'account') continue;
      if (part.holder.kind === 'list') projects.push(part.holder.projectId);
      else accounts.push(part.holder.accountId);
    }
  });
  await Promise.all([
    readDerivedPartition({ kind: 'search', orgId }, take),
    forEachLimited(projects, PARTITIONS_AT_ONCE, (projectId) =>
      readDerivedPartition({ kind: 'project', orgId, projectId }, take),
    ),
    forEachLimited(accounts, PARTITIONS_AT_ONCE, (accountId) =>
      readDerivedPartition({ kind: 'assigned', orgId, accountId }, take),
    ),
  ]);
}

/**
 * Reads the derived state of the table with a Scan, or of one organisation with a Query of each of
 * its partitions (a Scan would read the whole table for it): operators and tests only.
 */
export async function readDerivedState(orgId?: number): Promise<StoredDerivedState> {
  const observed = emptyDerived();
  const holderKeys = new Map<string, HolderKey>();
  const issues: IssueState[] = [];
  const pullRequests: StoredDerivedState['pullRequests'] = { issues: new Map(), records: new Map() };
  const take = (parts: DerivedPart[]) => {
    for (const part of parts) {
      if (part.kind !== 'record') {
        const id = holderId(part.holder);
        observed.holders.set(id, { holder: part.holder, attrs: part.counters });
        holderKeys.set(id, part.key);
      }
      if (part.kind === 'record' || part.kind === 'search') observed.records.set(recordId(part.record), part.record);
      if (part.kind === 'issue') {
        issues.push(part.issue);
        pullRequests.issues.set(holderId(part.holder), part.pullRequests);
      } else if (part.kind === 'search') {
        pullRequests.records.set(holderId({ ...part.holder, kind: 'issue' }), part.pullRequests);
      }
    }
  };
  if (orgId === undefined) await scanDerivedState(take);
  else await readOrganisation(orgId, take);
  return { ...liveOnly(issues, observed, holderKeys), pullRequests };
}

/**
 * The state read, without what a sprint or project in the trash holds: that waits there as it was
 * (docs/trash.md), neither its lists' counters nor its issues' compared with, or set to, a rebuild
 * from the live issues.
 */
function liveOnly(
  issues: IssueState[],
  observed: StoredDerivedState['observed'],
  holderKeys: StoredDerivedState['holderKeys'],
): Omit<StoredDerivedState, 'pullRequests'> {
  const live = issues.filter(
    (s) =>
      observed.holders.has(holderId({ kind: 'list', orgId: s.orgId, projectId: s.projectId, sprintId: s.sprintId })) &&
      observed.holders.has(holderId({ kind: 'list', orgId: s.orgId, projectId: s.projectId, sprintId: null })),
  );
  const liveIssues = new Set(live.map((s) => holderId({ kind: 'issue', orgId: s.orgId, projectId: s.projectId, issueId: s.id })));
  const isLive = (holder: Holder): boolean =>
    holder.kind === 'account' ||
    (holder.kind === 'list'
      ? observed.holders.has(holderId({ ...holder, sprintId: null }))
      : liveIssues.has(holderId({ ...holder, kind: 'issue' })));
  for (const [id, { holder }] of observed.holders) {
    if (isLive(holder)) continue;
    observed.holders.delete(id);
    holderKeys.delete(id);
  }
  return { issues: live, observed, holderKeys, isLive };
}

/**
 * What every derivation keeps that differs from its rebuild from the live issues (an empty list:
 * all agree), on the holders that are live (`StoredDerivedState.isLive`).
 */
export function derivedDifferences(state: StoredDerivedState): string[] {
  return [
    ...derivations.flatMap((d) => differences(d, liveRebuild(d, state), state.observed)),
    ...pullRequestDifferences(state).map(
      ({ id, attr, is, issue }) => `search-pull-requests: ${id} ${attr} is ${is}, its issue says ${issue}`,
    ),
  ];
}

/** A search record's count of pull requests in one state that differs from its issue's. */
interface PullRequestDifference {
  /** The search record's holder id (`search:o:p:i`). */
  id: string;
  attr: PullRequestCount;
  is: number;
  issue: number;
}

/** Where the live issues' search records count pull requests otherwise than the issues do (a record not there is the search index's). */
function pullRequestDifferences(state: StoredDerivedState): PullRequestDifference[] {
  return state.issues.flatMap((s) => {
    const issue = holderId({ kind: 'issue', orgId: s.orgId, projectId: s.projectId, issueId: s.id });
    const want = state.pullRequests.issues.get(issue);
    const got = state.pullRequests.records.get(issue);
    if (!want || !got) return [];
    const id = holderId({ kind: 'search', orgId: s.orgId, projectId: s.projectId, issueId: s.id });
    return pullRequestCounts
      .filter((attr) => want[attr] !== got[attr])
      .map((attr) => ({ id, attr, is: got[attr], issue: want[attr] }));
  });
}

/** A derivation's rebuild from the live issues, on the holders that are live. */
export function liveRebuild(d: (typeof derivations)[number], state: StoredDerivedState): Derived {
  const rebuilt = d.rebuild(state.issues);
  for (const [id, { holder }] of rebuilt.holders) if (!state.isLive(holder)) rebuilt.holders.delete(id);
  return rebuilt;
}

/** What it set or rewrote because it differed from its rebuild, by kind (holders' counters, derived records). */
const REPAIRED = [
  'list_counters',
  'account_counters',
  'issue_counters',
  'search_counters',
  'pointers',
  'assigned_entries',
  'sub_issue_records',
  'search_records',
  'attachment_counters',
] as const;

export interface ReindexResult {
  /** What was read and compared with its rebuild, by kind. */
  checked: Record<'issues' | 'lists' | 'accounts' | 'records' | 'attachment_counters', number>;
  /** All 0 on a table whose derived state agrees with its rebuild: nothing is written then. */
  repaired: Record<(typeof REPAIRED)[number], number>;
  /** Each difference repaired (the derivation, the item, what it held and what its rebuild says), the first 20. */
  differences: string[];
  /** One line: what was checked, and what was repaired or `nothing`. */
  summary: string;
}

const holderCounters = {
  list: 'list_counters',
  account: 'account_counters',
  issue: 'issue_counters',
  search: 'search_counters',
} as const;
const recordKinds = {
  pointer: 'pointers',
  assigned: 'assigned_entries',
  sub_issue: 'sub_issue_records',
  search: 'search_records',
} as const satisfies Record<DerivedRecord['kind'], (typeof REPAIRED)[number]>;

/** The result's one line: `checked 5 issues, 2 lists, …; repaired: 3 pointers, 1 list counters` or `repaired: nothing`. */
function summaryOf(result: Omit<ReindexResult, 'summary'>): string {
  const say = (counts: Record<string, number>) =>
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${n} ${kind.replace(/_/g, ' ')}`)
      .join(', ');
  return `checked ${say(result.checked) || 'nothing'}; repaired: ${say(result.repaired) || 'nothing'}`;
}

/**
 * See the module comment. `orgId` limits it to one organisation. Only what differs from its
 * rebuild is written: a second run on unchanged data reads, compares and repairs nothing.
 */
export async function rebuildIssueIndexes(orgId?: number): Promise<ReindexResult> {
  const state = await readDerivedState(orgId);
  const differences = derivedDifferences(state);
  const repaired = Object.fromEntries(REPAIRED.map((k) => [k, 0])) as ReindexResult['repaired'];
  const counters = new Map<string, Record<string, number>>();
  const blockers = openBlockers.rebuild(state.issues);
  /** The search records written whole, with their issue's counts of pull requests. */
  const rewritten = new Set<string>();
  for (const d of derivations) {
    const expected = liveRebuild(d, state);
    differingCounters(d, expected, state.observed, counters);
    await repairRecords(d, expected, state, blockers, repaired, rewritten);
  }
  await setCounters(counters, state, repaired);
  await setPullRequestCounts(state, rewritten, repaired);
  const attachments = await rebuildAttachmentCounters(orgId);
  repaired.attachment_counters = attachments.repaired.length;
  const checked = {
    issues: state.issues.length,
    lists: [...state.observed.holders.values()].filter((h) => h.holder.kind === 'list' && state.isLive(h.holder)).length,
    accounts: [...state.observed.holders.values()].filter((h) => h.holder.kind === 'account').length,
    records: state.observed.records.size,
    attachment_counters: attachments.checked,
  };
  const result = { checked, repaired, differences: [...differences, ...attachments.repaired].slice(0, 20) };
  return { ...result, summary: summaryOf(result) };
}

/** Adds to `sets` each counter a derivation owns whose stored value differs from its rebuild (0 where the rebuild has none). */
function differingCounters(d: Derivation, expected: Derived, observed: Derived, sets: Map<string, Record<string, number>>) {
  for (const [id, { holder, attrs }] of observed.holders) {
    const wanted = expected.holders.get(id)?.attrs ?? {};
    const owned = [...new Set([...Object.keys(attrs), ...Object.keys(wanted)])].filter((a) => d.owns(holder, a));
    const differing = owned.filter((attr) => (wanted[attr] ?? 0) !== (attrs[attr] ?? 0));
    if (differing.length === 0) continue;
    const set = sets.get(id) ?? {};
    for (const attr of differing) set[attr] = wanted[attr] ?? 0;
    sets.set(id, set);
  }
}

/** Writes each record of a derivation's rebuild that is missing or differs, and removes each the rebuild has not. */
async function repairRecords(
  d: Derivation,
  expected: Derived,
  state: StoredDerivedState,
  blockers: Derived,
  repaired: ReindexResult['repaired'],
  rewritten: Set<string>,
) {
  // A search record written here carries its count of open blockers (the counter is not a field of the record).
  const blockersOf = (r: SearchRecord) =>
    blockers.holders.get(holderId({ kind: 'search', orgId: r.orgId, projectId: r.projectId, issueId: r.issueId }))?.attrs[
      OPEN_BLOCKERS
    ] ?? 0;
  for (const [id, record] of expected.records) {
    if (sameRecord(record, state.observed.records.get(id))) continue;
    if (record.kind === 'search') {
      // With its issue's counts of pull requests by state (kept by the links' writes, not derived).
      const issue = holderId({ kind: 'issue', orgId: record.orgId, projectId: record.projectId, issueId: record.issueId });
      await putDerivedRecord(record, { openBlockers: blockersOf(record), pullRequests: state.pullRequests.issues.get(issue) });
      rewritten.add(holderId({ kind: 'search', orgId: record.orgId, projectId: record.projectId, issueId: record.issueId }));
    } else {
      await putDerivedRecord(record);
    }
    repaired[recordKinds[record.kind]]++;
  }
  for (const [id, record] of state.observed.records) {
    if (!d.records.includes(record.kind) || expected.records.has(id)) continue;
    await deleteDerivedRecord(record);
    repaired[recordKinds[record.kind]]++;
  }
}

/**
 * Sets each search record's counts of pull requests that differ from its issue's (one update per
 * record; none for a record just written whole, which carries its issue's).
 */
async function setPullRequestCounts(state: StoredDerivedState, rewritten: Set<string>, repaired: ReindexResult['repaired']) {
  const sets = new Map<string, [PullRequestCount, number][]>();
  for (const { id, attr, issue } of pullRequestDifferences(state)) {
    if (rewritten.has(id)) continue;
    sets.set(id, [...(sets.get(id) ?? []), [attr, issue]]);
  }
  for (const [id, counts] of sets) {
    await setSearchPullRequestCounts(state.holderKeys.get(id) as HolderKey, counts);
    repaired.search_counters++;
  }
}

/** Sets the counters that differ, one update per holder. */
async function setCounters(
  sets: Map<string, Record<string, number>>,
  state: StoredDerivedState,
  repaired: ReindexResult['repaired'],
) {
  for (const [id, set] of sets) {
    const holder = state.observed.holders.get(id)?.holder as Holder;
    await setHeldCounters(state.holderKeys.get(id) as HolderKey, holder.kind, set);
    repaired[holderCounters[holder.kind]]++;
  }
}

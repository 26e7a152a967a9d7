import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
} from '../../model/derivations.ts';
import { rebuildAttachmentCounters } from '../attachments/attachments.ts';
import { db, tableName } from '../core/client.ts';
import { assignedEntryItem, issueItem, issueStateOf, searchRecordFromItem, searchRecordItem } from '../issues/issue-item.ts';
import { accountItem } from '../organisation/accounts.ts';
import { projectItem } from '../projects/projects.ts';
import { sprintItem } from '../projects/sprints.ts';
import { heldCounters, storedCounter } from '../issues/counters.ts';
import { recordItem, recordKey } from '../issues/issue-write.ts';
import { assigneePk, orgPk, projectPk, searchPk, type Key } from '../core/keys.ts';
import { issueKeyItem, pointedIssue } from '../issues/issue-lookup.ts';
import { subIssueItem } from '../issues/sub-issues.ts';
import { ofTypes, partitionPages, PARTITIONS_AT_ONCE, scanPages } from '../core/query.ts';
import { forEachLimited } from '../../model/limited.ts';

/**
 * Rebuilds what the issue writes keep beside the issues themselves, from the issues as stored: the
 * rebuild of every derivation of lib/model/derivations.ts (the counters of every list and its
 * rank index, the issue-number pointers, the assigned-issue index with each account's
 * `assigned_count`, each parent's sub-issues summary and children index, each blocked issue's count of open blockers),
 * each search record's counts of its issue's linked pull requests by state (the issue's, which its
 * links' writes keep), and the attachment counters (lib/db/attachments/attachments.ts). For data
 * written before these existed (an upgrade), or to repair them: an
 * operator's command (`issues:reindex`, tools/cli/admin.ts) that reads the table with a Scan,
 * which no request path does (one organisation's part of it, its attachment counters included: by
 * a Query of each of its partitions).
 *
 * It sets each count to what its read saw, so it must run while no issue is written (a maintenance
 * window): a write between the read and the count would be counted wrongly. It writes only what
 * differs from the rebuild, so running it again on unchanged data writes nothing.
 */

/**
 * The counts of an issue's linked pull requests by state: kept on the issue by each link's write
 * (lib/db/github/github.ts: `writeLink`), and the same on its search record (`has:pr`, `pr:`).
 */
const pullRequestCounts = [
  'prsOpen',
  'prsDraft',
  'prsMerged',
  'prsClosed',
] as const satisfies readonly (keyof typeof issueItem.attributes & keyof typeof searchRecordItem.attributes)[];
type PullRequestCounts = Record<(typeof pullRequestCounts)[number], number>;
const pullRequestCountsOf = (fields: PullRequestCounts): PullRequestCounts =>
  Object.fromEntries(pullRequestCounts.map((c) => [c, fields[c]])) as PullRequestCounts;

/** The derived state as stored, with the issues it derives from and the keys of its holders. */
export interface StoredDerivedState {
  /** Issues whose list and project exist (one waiting for its cascade counts nowhere). */
  issues: IssueState[];
  observed: Derived;
  holderKeys: Map<string, Key>;
  /** Whether a holder's container (its project, its sprint, its issue's list) is there: not in the trash. */
  isLive: (holder: Holder) => boolean;
  /**
   * Pull requests by state, as each issue counts them and as its search record does, by the issue's
   * holder id: not derived from the issues' fields (the links count them), so a search record's are
   * compared with its issue's.
   */
  pullRequests: { issues: Map<string, PullRequestCounts>; records: Map<string, PullRequestCounts> };
}

const idIn = (pk: string, marker: string) => Number(new RegExp(`${marker}#(\\d+)`).exec(pk)?.[1]);

/** The types of the items the derived state is read from, by where they are stored. */
const derivedTypes = {
  /** In the organisation's partition (`ORG#o`). */
  project: projectItem.type,
  account: accountItem.type,
  pointer: issueKeyItem.type,
  child: subIssueItem.type,
  /** In a project's partition (`ORG#o#P#p`). */
  sprint: sprintItem.type,
  issue: issueItem.type,
  /** In an account's assigned-issue partition (`ORG#o#A#a`). */
  entry: assignedEntryItem.type,
  /** In the organisation's search partition (`ORG#o#SEARCH`). */
  search: searchRecordItem.type,
};

/**
 * One organisation's part of what the whole table's Scan reads, by a Query of each partition that
 * holds it: the organisation's own (its projects, accounts, issue-number pointers and children),
 * its search partition, each project's (sprints and issues) and each account's assigned-issue
 * entries. What it leaves out is what the Scan's reading drops anyway: the partition of a project
 * in the trash or gone holds sprints and issues of no live list. Accounts are never deleted, so
 * every assigned-issue partition belongs to an account it reads.
 */
async function readOrganisation(orgId: number, take: (items: Record<string, unknown>[]) => void): Promise<void> {
  const partition = (pk: string, types: (string | undefined)[], onPage = take) => partitionPages(pk, types, onPage);
  const projects: number[] = [];
  const accounts: number[] = [];
  const { project, account, pointer, child, sprint, issue, entry, search } = derivedTypes;
  await partition(orgPk(orgId), [project, account, pointer, child], (items) => {
    take(items);
    for (const item of items) {
      if (item.type === project) projects.push(Number(item.id));
      else if (item.type === account) accounts.push(Number(item.id));
    }
  });
  await Promise.all([
    partition(searchPk(orgId), [search]),
    forEachLimited(projects, PARTITIONS_AT_ONCE, (id) => partition(projectPk(orgId, id), [sprint, issue])),
    forEachLimited(accounts, PARTITIONS_AT_ONCE, (id) => partition(assigneePk(orgId, id), [entry])),
  ]);
}

/**
 * Reads the derived state of the table with a Scan, or of one organisation with a Query of each of
 * its partitions (a Scan would read the whole table for it): operators and tests only.
 */
export async function readDerivedState(orgId?: number): Promise<StoredDerivedState> {
  const observed = emptyDerived();
  const holderKeys = new Map<string, Key>();
  const issues: Record<string, unknown>[] = [];
  const pullRequests: StoredDerivedState['pullRequests'] = { issues: new Map(), records: new Map() };
  const hold = (holder: Holder, item: Record<string, unknown>) => {
    const id = holderId(holder);
    observed.holders.set(id, { holder, attrs: heldCounters(holder.kind, item) });
    holderKeys.set(id, { PK: String(item.PK), SK: String(item.SK) });
  };
  const put = (record: DerivedRecord) => observed.records.set(recordId(record), record);
  const { project, sprint, account, issue, child, search, pointer } = derivedTypes;
  const take = (items: Record<string, unknown>[]) => {
    for (const item of items) {
      const pk = String(item.PK);
      const org = idIn(pk, 'ORG');
      if (item.type === project) hold({ kind: 'list', orgId: org, projectId: Number(item.id), sprintId: null }, item);
      else if (item.type === sprint) {
        hold({ kind: 'list', orgId: org, projectId: Number(item.project_id), sprintId: Number(item.id) }, item);
      } else if (item.type === account) hold({ kind: 'account', orgId: org, accountId: Number(item.id) }, item);
      else if (item.type === issue) {
        issues.push(item);
        // An issue holds counters of others too (a parent's summary, a blocked issue's open blockers).
        const holder = { kind: 'issue', orgId: org, projectId: Number(item.project_id), issueId: Number(item.id) } as const;
        hold(holder, item);
        pullRequests.issues.set(holderId(holder), pullRequestCountsOf(issueItem.decode(item)));
      } else if (item.type === child) put(subIssueRecord(org, item));
      else if (item.type === search) {
        const projectId = Number(item.project_id);
        const issueId = Number(item.issue_id);
        // Its count of open blockers is a counter it holds; the rest is the record.
        hold({ kind: 'search', orgId: org, projectId, issueId }, item);
        put(searchRecordFromItem(org, item));
        pullRequests.records.set(
          holderId({ kind: 'issue', orgId: org, projectId, issueId }),
          pullRequestCountsOf(searchRecordItem.decode(item)),
        );
      } else if (item.type === pointer) {
        // A pointer written before it kept its issue's list (or list key) reads without it: a difference, rewritten.
        const pointed = pointedIssue(item) as ReturnType<typeof pointedIssue> & { sprintId: number | null };
        put({ kind: 'pointer', orgId: org, number: String(item.SK).slice('ISSUEKEY#'.length), ...pointed });
      } else {
        // Entries written before the classification existed read as the issue's defaults.
        put({ kind: 'assigned', orgId: org, accountId: idIn(pk, 'A'), ...assignedEntryItem.decode(item) });
      }
    }
  };
  if (orgId === undefined) await scanPages(ofTypes(Object.values(derivedTypes)), take);
  else await readOrganisation(orgId, take);
  return { ...liveOnly(issues, observed, holderKeys), pullRequests };
}

/** A sub-issue entry's record, in the derivation's order (records are compared as written). */
function subIssueRecord(orgId: number, item: Record<string, unknown>): DerivedRecord {
  const sk = String(item.SK);
  const c = subIssueItem.decode(item);
  return {
    kind: 'sub_issue',
    orgId,
    parentNumber: sk.slice('ISSUEKEY#'.length, sk.lastIndexOf('#SUB#')),
    parentId: c.parentId,
    projectId: c.projectId,
    issueId: c.issueId,
    number: c.issueNumber,
    title: c.title,
    sprintId: c.sprintId,
    status: c.status,
    storyPoints: c.storyPoints,
    assigneeId: c.assigneeId,
  };
}

/**
 * The state read, without what a sprint or project in the trash holds: that waits there as it was
 * (docs/trash.md), neither its lists' counters nor its issues' compared with, or set to, a rebuild
 * from the live issues.
 */
function liveOnly(
  issues: Record<string, unknown>[],
  observed: StoredDerivedState['observed'],
  holderKeys: StoredDerivedState['holderKeys'],
): Omit<StoredDerivedState, 'pullRequests'> {
  const live = issues
    .map((item) => issueStateOf(idIn(String(item.PK), 'ORG'), item))
    .filter(
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
  attr: (typeof pullRequestCounts)[number];
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
    const item = recordItem(record);
    if (record.kind === 'search') {
      item[searchRecordItem.stored(OPEN_BLOCKERS)] = blockersOf(record);
      // And its issue's counts of pull requests by state (kept by the links' writes, not derived).
      const issue = holderId({ kind: 'issue', orgId: record.orgId, projectId: record.projectId, issueId: record.issueId });
      const prs = state.pullRequests.issues.get(issue);
      for (const c of pullRequestCounts) item[searchRecordItem.stored(c)] = prs?.[c] ?? 0;
      rewritten.add(holderId({ kind: 'search', orgId: record.orgId, projectId: record.projectId, issueId: record.issueId }));
    }
    await db.send(new PutCommand({ TableName: tableName(), Item: item }));
    repaired[recordKinds[record.kind]]++;
  }
  for (const [id, record] of state.observed.records) {
    if (!d.records.includes(record.kind) || expected.records.has(id)) continue;
    await db.send(new DeleteCommand({ TableName: tableName(), Key: recordKey(record) }));
    repaired[recordKinds[record.kind]]++;
  }
}

/**
 * Sets each search record's counts of pull requests that differ from its issue's (one update per
 * record; none for a record just written whole, which carries its issue's).
 */
async function setPullRequestCounts(state: StoredDerivedState, rewritten: Set<string>, repaired: ReindexResult['repaired']) {
  const sets = new Map<string, [string, number][]>();
  for (const { id, attr, issue } of pullRequestDifferences(state)) {
    if (rewritten.has(id)) continue;
    sets.set(id, [...(sets.get(id) ?? []), [searchRecordItem.stored(attr), issue]]);
  }
  for (const [id, all] of sets) {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: state.holderKeys.get(id) as Key,
        UpdateExpression: `SET ${all.map((_, i) => `#p${i} = :p${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.fromEntries(all.map(([name], i) => [`#p${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(all.map(([, count], i) => [`:p${i}`, count])),
      }),
    );
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
    const all = Object.entries(set);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: state.holderKeys.get(id) as Key,
        UpdateExpression: `SET ${all.map((_, i) => `#r${i} = :r${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.fromEntries(all.map(([name], i) => [`#r${i}`, storedCounter(holder.kind, name)])),
        ExpressionAttributeValues: Object.fromEntries(all.map(([, count], i) => [`:r${i}`, count])),
      }),
    );
    repaired[holderCounters[holder.kind]]++;
  }
}

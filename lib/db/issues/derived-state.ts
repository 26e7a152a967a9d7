import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { OPEN_BLOCKERS, type DerivedRecord, type Holder, type IssueState } from '../../model/derivations.ts';
import { db, tableName } from '../core/client.ts';
import { assigneePk, orgPk, projectPk, searchPk, type Key } from '../core/keys.ts';
import { ofTypes, partitionPages, scanPages } from '../core/query.ts';
import { accountItem } from '../organisation/accounts.ts';
import { projectItem } from '../projects/projects.ts';
import { sprintItem } from '../projects/sprints.ts';
import { heldCounters, storedCounter } from './counters.ts';
import { assignedEntryItem, issueItem, issueStateOf, searchRecordFromItem, searchRecordItem } from './issue-item.ts';
import { issueKeyItem, pointedIssue } from './issue-lookup.ts';
import { prCounts, recordItem, recordKey, type PullRequestCounts } from './issue-write.ts';
import { subIssueItem } from './sub-issues.ts';

export { PARTITIONS_AT_ONCE } from '../core/query.ts';

/**
 * The derived state as stored, for its rebuild (lib/jobs/reindex.ts): each item the derivations
 * keep or derive from, read by partition or by a Scan and decoded as a part of that state, and the
 * writes that set a part to its rebuild.
 */

/** Where a holder of counters is stored, as read: what its counters' update is given back. */
export type HolderKey = Key;

/** A pull request count kept on an issue and on its search record. */
export type PullRequestCount = (typeof prCounts)[number];

/** What one stored item brings to the derived state. */
export type DerivedPart =
  /** A project (its backlog), a sprint or an account: the counters it holds. */
  | {
      kind: 'list' | 'account';
      holder: Extract<Holder, { kind: 'list' | 'account' }>;
      counters: Record<string, number>;
      key: HolderKey;
    }
  /** An issue: the counters it holds of others, its state, and its counts of pull requests. */
  | {
      kind: 'issue';
      holder: Extract<Holder, { kind: 'issue' }>;
      counters: Record<string, number>;
      key: HolderKey;
      issue: IssueState;
      pullRequests: PullRequestCounts;
    }
  /** A search record: its count of open blockers, the record, and its counts of pull requests. */
  | {
      kind: 'search';
      holder: Extract<Holder, { kind: 'search' }>;
      counters: Record<string, number>;
      key: HolderKey;
      record: DerivedRecord;
      pullRequests: PullRequestCounts;
    }
  /** A number pointer, a sub-issue record or an assigned-issue entry. */
  | { kind: 'record'; record: DerivedRecord };

/** The partitions the derived state of one organisation is read from. */
export type DerivedPartition =
  /** Its projects, accounts, issue-number pointers and sub-issue records. */
  | { kind: 'organisation'; orgId: number }
  | { kind: 'search'; orgId: number }
  /** A project's sprints and issues. */
  | { kind: 'project'; orgId: number; projectId: number }
  /** An account's assigned-issue entries. */
  | { kind: 'assigned'; orgId: number; accountId: number };

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

const pullRequestCountsOf = (fields: PullRequestCounts): PullRequestCounts =>
  Object.fromEntries(prCounts.map((c) => [c, fields[c]])) as PullRequestCounts;

/** A holder's part: its counters as stored, and its key. */
const held = <H extends Holder>(holder: H, item: Record<string, unknown>) => ({
  holder,
  counters: heldCounters(holder.kind, item),
  key: { PK: String(item.PK), SK: String(item.SK) },
});

/** The part of the derived state a stored item of one of its types is. */
function derivedPartOf(item: Record<string, unknown>): DerivedPart {
  const { project, sprint, account, issue, child, search, pointer } = derivedTypes;
  const pk = String(item.PK);
  const org = idIn(pk, 'ORG');
  if (item.type === project)
    return { kind: 'list', ...held({ kind: 'list', orgId: org, projectId: Number(item.id), sprintId: null }, item) };
  if (item.type === sprint) {
    return {
      kind: 'list',
      ...held({ kind: 'list', orgId: org, projectId: Number(item.project_id), sprintId: Number(item.id) }, item),
    };
  }
  if (item.type === account)
    return { kind: 'account', ...held({ kind: 'account', orgId: org, accountId: Number(item.id) }, item) };
  if (item.type === issue) {
    // An issue holds counters of others too (a parent's summary, a blocked issue's open blockers).
    const holder = { kind: 'issue', orgId: org, projectId: Number(item.project_id), issueId: Number(item.id) } as const;
    const pullRequests = pullRequestCountsOf(issueItem.decode(item));
    return { kind: 'issue', ...held(holder, item), issue: issueStateOf(org, item), pullRequests };
  }
  if (item.type === child) return { kind: 'record', record: subIssueRecord(org, item) };
  if (item.type === search) {
    // Its count of open blockers is a counter it holds; the rest is the record.
    const holder = { kind: 'search', orgId: org, projectId: Number(item.project_id), issueId: Number(item.issue_id) } as const;
    const pullRequests = pullRequestCountsOf(searchRecordItem.decode(item));
    return { kind: 'search', ...held(holder, item), record: searchRecordFromItem(org, item), pullRequests };
  }
  if (item.type === pointer) {
    // A pointer written before it kept its issue's list (or list key) reads without it: a difference, rewritten.
    const pointed = pointedIssue(item) as ReturnType<typeof pointedIssue> & { sprintId: number | null };
    return {
      kind: 'record',
      record: { kind: 'pointer', orgId: org, number: String(item.SK).slice('ISSUEKEY#'.length), ...pointed },
    };
  }
  // Entries written before the classification existed read as the issue's defaults.
  return {
    kind: 'record',
    record: { kind: 'assigned', orgId: org, accountId: idIn(pk, 'A'), ...assignedEntryItem.decode(item) },
  };
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

/** The whole table's derived state, with a Scan, page after page (operators and tests only). */
export async function scanDerivedState(take: (parts: DerivedPart[]) => void): Promise<void> {
  await scanPages(ofTypes(Object.values(derivedTypes)), (items) => take(items.map(derivedPartOf)));
}

/** The derived state one partition of an organisation holds, by a Query, page after page. */
export async function readDerivedPartition(partition: DerivedPartition, take: (parts: DerivedPart[]) => void): Promise<void> {
  const { project, account, pointer, child, sprint, issue, entry, search } = derivedTypes;
  const [pk, types] =
    partition.kind === 'organisation'
      ? [orgPk(partition.orgId), [project, account, pointer, child]]
      : partition.kind === 'search'
        ? [searchPk(partition.orgId), [search]]
        : partition.kind === 'project'
          ? [projectPk(partition.orgId, partition.projectId), [sprint, issue]]
          : [assigneePk(partition.orgId, partition.accountId), [entry]];
  await partitionPages(pk, types, (items) => take(items.map(derivedPartOf)));
}

/**
 * Puts a derived record as its rebuild has it. A search record is put whole, with its count of
 * open blockers and its issue's counts of pull requests (`search`).
 */
export async function putDerivedRecord(
  record: DerivedRecord,
  search?: { openBlockers: number; pullRequests: PullRequestCounts | undefined },
): Promise<void> {
  const item = recordItem(record);
  if (record.kind === 'search' && search) {
    item[searchRecordItem.stored(OPEN_BLOCKERS)] = search.openBlockers;
    for (const c of prCounts) item[searchRecordItem.stored(c)] = search.pullRequests?.[c] ?? 0;
  }
  await db.send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** Deletes a derived record its rebuild has not. */
export async function deleteDerivedRecord(record: DerivedRecord): Promise<void> {
  await db.send(new DeleteCommand({ TableName: tableName(), Key: recordKey(record) }));
}

/** Sets counters of a holder of kind `kind` (stored at `key`) to `counts`, while it is there: one update. */
export async function setHeldCounters(key: HolderKey, kind: Holder['kind'], counts: Record<string, number>): Promise<void> {
  const all = Object.entries(counts);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${all.map((_, i) => `#r${i} = :r${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(all.map(([name], i) => [`#r${i}`, storedCounter(kind, name)])),
      ExpressionAttributeValues: Object.fromEntries(all.map(([, count], i) => [`:r${i}`, count])),
    }),
  );
}

/** Sets counts of pull requests of a search record (stored at `key`), while it is there: one update. */
export async function setSearchPullRequestCounts(key: HolderKey, counts: [PullRequestCount, number][]): Promise<void> {
  const all = counts.map(([attr, count]): [string, number] => [searchRecordItem.stored(attr), count]);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: `SET ${all.map((_, i) => `#p${i} = :p${i}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: Object.fromEntries(all.map(([name], i) => [`#p${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(all.map(([, count], i) => [`:p${i}`, count])),
    }),
  );
}

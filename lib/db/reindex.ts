import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  derivations,
  differences,
  emptyDerived,
  holderId,
  OPEN_BLOCKERS,
  openBlockers,
  recordId,
  type Derived,
  type DerivedRecord,
  type Holder,
  type IssueState,
  type SearchRecord,
} from '../model/derivations.ts';
import { rebuildAttachmentCounters } from './attachments.ts';
import { db, tableName } from './client.ts';
import { assignedEntryItem, issueStateOf, searchRecordFromItem, searchRecordItem } from './issue-item.ts';
import { heldCounters, storedCounter } from './counters.ts';
import { recordItem, recordKey } from './issue-write.ts';
import { orgPk, type Key } from './keys.ts';
import { issueKeyItem, pointedIssue } from './issue-lookup.ts';
import { subIssueItem } from './sub-issues.ts';
import { scanPages } from './query.ts';

/**
 * Rebuilds what the issue writes keep beside the issues themselves, from the issues as stored: the
 * rebuild of every derivation of lib/model/derivations.ts (the counters of every list and its
 * rank index, the issue-number pointers, the assigned-issue index with each account's
 * `assigned_count`, each parent's sub-issues summary and children index, each blocked issue's count of open blockers), and the attachment counters (lib/db/attachments.ts). For data written before these existed (an upgrade), or to repair them: an
 * operator's command (`issues:reindex`, tools/cli/admin.ts) that reads the table (or one
 * organisation's part of it) with a Scan, which no request path does.
 *
 * It sets each count to what its Scan saw, so it must run while no issue is written (a maintenance
 * window): a write between the Scan and the count would be counted wrongly. Running it again on
 * unchanged data writes the same values.
 */

/** The derived state as stored, with the issues it derives from and the keys of its holders. */
export interface StoredDerivedState {
  /** Issues whose list and project exist (one waiting for its cascade counts nowhere). */
  issues: IssueState[];
  observed: Derived;
  holderKeys: Map<string, Key>;
  /** Whether a holder's container (its project, its sprint, its issue's list) is there: not in the trash. */
  isLive: (holder: Holder) => boolean;
}

const idIn = (pk: string, marker: string) => Number(new RegExp(`${marker}#(\\d+)`).exec(pk)?.[1]);

/** Reads the derived state of the table (or one organisation's part of it) with a Scan: operators and tests only. */
export async function readDerivedState(orgId?: number): Promise<StoredDerivedState> {
  const observed = emptyDerived();
  const holderKeys = new Map<string, Key>();
  const issues: Record<string, unknown>[] = [];
  const hold = (holder: Holder, item: Record<string, unknown>) => {
    const id = holderId(holder);
    observed.holders.set(id, { holder, attrs: heldCounters(holder.kind, item) });
    holderKeys.set(id, { PK: String(item.PK), SK: String(item.SK) });
  };
  const put = (record: DerivedRecord) => observed.records.set(recordId(record), record);
  await scanPages(
    {
      FilterExpression: `#type IN (:project, :sprint, :issue, :account, :pointer, :entry, :child, :search)${orgId === undefined ? '' : ' AND begins_with(PK, :org)'}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':project': 'project',
        ':sprint': 'sprint',
        ':issue': 'issue',
        ':account': 'account',
        ':pointer': issueKeyItem.type,
        ':entry': 'assigned_issue',
        ':child': subIssueItem.type,
        ':search': 'search_issue',
        ...(orgId === undefined ? {} : { ':org': orgPk(orgId) }),
      },
    },
    (items) => {
      for (const item of items) {
        const pk = String(item.PK);
        const org = idIn(pk, 'ORG');
        if (item.type === 'project') hold({ kind: 'list', orgId: org, projectId: Number(item.id), sprintId: null }, item);
        else if (item.type === 'sprint') {
          hold({ kind: 'list', orgId: org, projectId: Number(item.project_id), sprintId: Number(item.id) }, item);
        } else if (item.type === 'account') hold({ kind: 'account', orgId: org, accountId: Number(item.id) }, item);
        else if (item.type === 'issue') {
          issues.push(item);
          // An issue holds counters of others too (a parent's summary, a blocked issue's open blockers).
          hold({ kind: 'issue', orgId: org, projectId: Number(item.project_id), issueId: Number(item.id) }, item);
        } else if (item.type === subIssueItem.type) {
          const sk = String(item.SK);
          const c = subIssueItem.decode(item);
          // In the derivation's order (records are compared as written).
          put({
            kind: 'sub_issue',
            orgId: org,
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
          });
        } else if (item.type === 'search_issue') {
          const projectId = Number(item.project_id);
          const issueId = Number(item.issue_id);
          // Its count of open blockers is a counter it holds; the rest is the record.
          hold({ kind: 'search', orgId: org, projectId, issueId }, item);
          put(searchRecordFromItem(org, item));
        } else if (item.type === issueKeyItem.type) {
          put({ kind: 'pointer', orgId: org, number: String(item.SK).slice('ISSUEKEY#'.length), ...pointedIssue(item) });
        } else {
          // Entries written before the classification existed read as the issue's defaults.
          put({ kind: 'assigned', orgId: org, accountId: idIn(pk, 'A'), ...assignedEntryItem.decode(item) });
        }
      }
    },
  );
  const live = issues
    .map((item) => issueStateOf(idIn(String(item.PK), 'ORG'), item))
    .filter(
      (s) =>
        observed.holders.has(holderId({ kind: 'list', orgId: s.orgId, projectId: s.projectId, sprintId: s.sprintId })) &&
        observed.holders.has(holderId({ kind: 'list', orgId: s.orgId, projectId: s.projectId, sprintId: null })),
    );
  // What a sprint or project in the trash holds waits there as it was (docs/trash.md): neither its
  // lists' counters nor its issues' are compared with, or set to, a rebuild from the live issues.
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
  return derivations.flatMap((d) => differences(d, liveRebuild(d, state), state.observed));
}

/** A derivation's rebuild from the live issues, on the holders that are live. */
export function liveRebuild(d: (typeof derivations)[number], state: StoredDerivedState): Derived {
  const rebuilt = d.rebuild(state.issues);
  for (const [id, { holder }] of rebuilt.holders) if (!state.isLive(holder)) rebuilt.holders.delete(id);
  return rebuilt;
}

export interface ReindexResult {
  issues: number;
  lists: number;
  pointersWritten: number;
  pointersRemoved: number;
  assignedWritten: number;
  assignedRemoved: number;
  subIssuesWritten: number;
  subIssuesRemoved: number;
  searchWritten: number;
  searchRemoved: number;
  accounts: number;
  /** Issues whose counters kept for them by others (sub-issues summary, open blockers) were set. */
  issueCounters: number;
  /** Attachment counters (an organisation's bytes, an issue's files) set to what their attachments count. */
  attachmentCounters: number;
}

/** See the module comment. `orgId` limits it to one organisation. */
export async function rebuildIssueIndexes(orgId?: number): Promise<ReindexResult> {
  const state = await readDerivedState(orgId);
  const { issues, observed, holderKeys } = state;
  const result: ReindexResult = {
    issues: issues.length,
    lists: 0,
    pointersWritten: 0,
    pointersRemoved: 0,
    assignedWritten: 0,
    assignedRemoved: 0,
    subIssuesWritten: 0,
    subIssuesRemoved: 0,
    searchWritten: 0,
    searchRemoved: 0,
    accounts: 0,
    issueCounters: 0,
    attachmentCounters: 0,
  };
  // Every holder's attributes of every derivation: as rebuilt, or 0 where the rebuild has none.
  const sets = new Map<string, Record<string, number>>();
  // A search record written here carries its count of open blockers (the counter is not a field of the record).
  const blockers = openBlockers.rebuild(issues);
  const blockersOf = (r: DerivedRecord) =>
    blockers.holders.get(
      holderId({
        kind: 'search',
        orgId: r.orgId,
        projectId: (r as SearchRecord).projectId,
        issueId: (r as SearchRecord).issueId,
      }),
    )?.attrs[OPEN_BLOCKERS] ?? 0;
  for (const d of derivations) {
    const expected = liveRebuild(d, state);
    for (const [id, { holder, attrs }] of observed.holders) {
      const wanted = expected.holders.get(id)?.attrs ?? {};
      const owned = [...Object.keys(attrs), ...Object.keys(wanted)].filter((a) => d.owns(holder, a));
      if (owned.length === 0) continue;
      const set = sets.get(id) ?? {};
      for (const attr of owned) set[attr] = wanted[attr] ?? 0;
      sets.set(id, set);
    }
    for (const record of expected.records.values()) {
      const item = recordItem(record);
      if (record.kind === 'search') item[searchRecordItem.stored(OPEN_BLOCKERS)] = blockersOf(record);
      await db.send(new PutCommand({ TableName: tableName(), Item: item }));
      if (record.kind === 'pointer') result.pointersWritten++;
      else if (record.kind === 'assigned') result.assignedWritten++;
      else if (record.kind === 'search') result.searchWritten++;
      else result.subIssuesWritten++;
    }
    for (const [id, record] of observed.records) {
      if (!d.records.includes(record.kind) || expected.records.has(id)) continue;
      await db.send(new DeleteCommand({ TableName: tableName(), Key: recordKey(record) }));
      if (record.kind === 'pointer') result.pointersRemoved++;
      else if (record.kind === 'assigned') result.assignedRemoved++;
      else if (record.kind === 'search') result.searchRemoved++;
      else result.subIssuesRemoved++;
    }
  }
  for (const [id, set] of sets) {
    const holder = observed.holders.get(id)?.holder as Holder;
    const all = Object.entries(set);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: holderKeys.get(id) as Key,
        UpdateExpression: `SET ${all.map((_, i) => `#r${i} = :r${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: Object.fromEntries(all.map(([name], i) => [`#r${i}`, storedCounter(holder.kind, name)])),
        ExpressionAttributeValues: Object.fromEntries(all.map(([, count], i) => [`:r${i}`, count])),
      }),
    );
    if (holder.kind === 'list') result.lists++;
    else if (holder.kind === 'account') result.accounts++;
    else if (holder.kind === 'issue') result.issueCounters++;
  }
  result.attachmentCounters = await rebuildAttachmentCounters(orgId);
  return result;
}

import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { blockOf, RANK_PREFIX } from '../domain/positions.ts';
import { assignmentItems, assignedStateOf } from './assigned.ts';
import { db, tableName } from './client.ts';
import { keys, orgPk, type Key } from './keys.ts';
import { scanPages } from './query.ts';
import type { IssueStatus } from '../schemas/issues.ts';

/**
 * Rebuilds what the issue writes keep beside the issues themselves, from the issues as stored: the
 * rank counters of every list (`rk_<block>` on the sprint, or on the project for its backlog;
 * lib/domain/positions.ts), the issue-number pointers (`ISSUEKEY#`), and the assigned-issue index
 * with each account's `assigned_count` (lib/db/assigned.ts). For data written before these existed
 * (an upgrade), or to repair them: an operator's command (`issues:reindex`, tools/cli/admin.ts)
 * that reads the table (or one organisation's part of it) with a Scan, which no request path does.
 *
 * It sets each count to what its Scan saw, so it must run while no issue is written (a maintenance
 * window): a write between the Scan and the count would be counted wrongly. Running it again on
 * unchanged data writes the same values.
 */

interface Scanned {
  owners: Map<string, { key: Key; rank: Set<string> }>;
  accounts: Map<string, { key: Key; assigned: boolean }>;
  issues: Record<string, unknown>[];
  pointers: Record<string, unknown>[];
  entries: Record<string, unknown>[];
}

const id = (key: Key) => `${key.PK}\u0000${key.SK}`;

async function scan(orgId: number | undefined): Promise<Scanned> {
  const found: Scanned = { owners: new Map(), accounts: new Map(), issues: [], pointers: [], entries: [] };
  await scanPages(
    {
      FilterExpression: `#type IN (:project, :sprint, :issue, :account, :pointer, :entry)${orgId === undefined ? '' : ' AND begins_with(PK, :org)'}`,
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':project': 'project',
        ':sprint': 'sprint',
        ':issue': 'issue',
        ':account': 'account',
        ':pointer': 'issue_key',
        ':entry': 'assigned_issue',
        ...(orgId === undefined ? {} : { ':org': orgPk(orgId) }),
      },
    },
    (items) => {
      for (const item of items) {
        const key = { PK: String(item.PK), SK: String(item.SK) };
        if (item.type === 'project' || item.type === 'sprint') {
          found.owners.set(id(key), { key, rank: new Set(Object.keys(item).filter((k) => k.startsWith(RANK_PREFIX))) });
        } else if (item.type === 'account') {
          found.accounts.set(id(key), { key, assigned: item.assigned_count !== undefined });
        } else if (item.type === 'issue') found.issues.push(item);
        else if (item.type === 'issue_key') found.pointers.push(item);
        else found.entries.push(item);
      }
    },
  );
  return found;
}

/** Sends one item of a transaction-shaped write (as lib/db/assigned.ts builds them) on its own. */
async function sendItem(item: ReturnType<typeof assignmentItems>[number]['item']): Promise<void> {
  if (item.Put) await db.send(new PutCommand(item.Put as never));
  else if (item.Delete) await db.send(new DeleteCommand(item.Delete as never));
}

export interface ReindexResult {
  issues: number;
  lists: number;
  pointersWritten: number;
  pointersRemoved: number;
  assignedWritten: number;
  assignedRemoved: number;
  accounts: number;
}

/** See the module comment. `orgId` limits it to one organisation. */
export async function rebuildIssueIndexes(orgId?: number): Promise<ReindexResult> {
  const found = await scan(orgId);
  const result: ReindexResult = {
    issues: 0,
    lists: 0,
    pointersWritten: 0,
    pointersRemoved: 0,
    assignedWritten: 0,
    assignedRemoved: 0,
    accounts: 0,
  };
  const counts = new Map<string, Map<string, number>>();
  const liveNumbers = new Map<string, string>();
  const liveEntries = new Set<string>();
  const assigned = new Map<string, number>();

  for (const issue of found.issues) {
    const org = Number(issue.org_id);
    const project = Number(issue.project_id);
    const sprint = issue.sprint_id === null || issue.sprint_id === undefined ? null : Number(issue.sprint_id);
    const owner = sprint === null ? keys.project(org, project) : keys.sprint(org, project, sprint);
    // An issue whose list or project is gone waits for its cascade: it counts nowhere.
    if (!found.owners.has(id(owner)) || !found.owners.has(id(keys.project(org, project)))) continue;
    result.issues++;
    const perBlock = counts.get(id(owner)) ?? new Map<string, number>();
    const block = `${RANK_PREFIX}${blockOf(Number(issue.position))}`;
    perBlock.set(block, (perBlock.get(block) ?? 0) + 1);
    counts.set(id(owner), perBlock);

    const pointer = keys.issueKey(org, String(issue.issue_number));
    liveNumbers.set(id(pointer), `${project}#${Number(issue.id)}`);
    await db.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...pointer, type: 'issue_key', project_id: project, issue_id: Number(issue.id) },
      }),
    );
    result.pointersWritten++;

    const state = assignedStateOf(issue as never as { updated_at: string; status: IssueStatus });
    if (state.assigneeId !== null) {
      for (const { item } of assignmentItems(org, project, Number(issue.id), state, state)) await sendItem(item);
      liveEntries.add(id(keys.assignedIssue(org, state.assigneeId, project, Number(issue.id))));
      const account = id(keys.account(org, state.assigneeId));
      assigned.set(account, (assigned.get(account) ?? 0) + 1);
      result.assignedWritten++;
    }
  }

  for (const [ownerId, owner] of found.owners) {
    const perBlock = counts.get(ownerId) ?? new Map<string, number>();
    const stale = [...owner.rank].filter((name) => !perBlock.has(name));
    const all = [...perBlock.entries(), ...stale.map((name) => [name, 0] as const)];
    if (all.length === 0) continue;
    const names = Object.fromEntries(all.map(([name], i) => [`#r${i}`, name]));
    const values = Object.fromEntries(all.map(([, count], i) => [`:r${i}`, count]));
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: owner.key,
        UpdateExpression: `SET ${all.map((_, i) => `#r${i} = :r${i}`).join(', ')}`,
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    result.lists++;
  }

  for (const pointer of found.pointers) {
    const key = { PK: String(pointer.PK), SK: String(pointer.SK) };
    if (liveNumbers.has(id(key))) continue;
    await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
    result.pointersRemoved++;
  }
  for (const entry of found.entries) {
    const key = { PK: String(entry.PK), SK: String(entry.SK) };
    if (liveEntries.has(id(key))) continue;
    await db.send(new DeleteCommand({ TableName: tableName, Key: key }));
    result.assignedRemoved++;
  }
  for (const [accountId, account] of found.accounts) {
    const count = assigned.get(accountId) ?? 0;
    if (count === 0 && !account.assigned) continue;
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: account.key,
        UpdateExpression: 'SET assigned_count = :count',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':count': count },
      }),
    );
    result.accounts++;
  }
  return result;
}

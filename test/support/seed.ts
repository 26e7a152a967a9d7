import { BatchWriteCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { pointerItem } from '../../lib/db/comments/comments.ts';
import { keys, listKeys } from '../../lib/db/core/keys.ts';
import { rankDelta } from '../../lib/model/positions.ts';

/**
 * Fast seeding of big hierarchies for cascade tests: items shaped exactly as the data layer stores
 * them (sprint, issue, comment with its pointer, with their LSI1 keys), written with BatchWrite,
 * and ids taken from the organisation's real sequences. Counters on the parents (the rank index of
 * each list included, lib/model/positions.ts) are set to match. Small tests create through the
 * API instead.
 */

const now = () => new Date().toISOString();

export function sprintItem(orgId: number, projectId: number, sprintId: number, issuesCount = 0) {
  const t = now();
  return {
    ...keys.sprint(orgId, projectId, sprintId),
    LSK: listKeys.sprint(sprintId),
    type: 'sprint',
    org_id: orgId,
    id: sprintId,
    project_id: projectId,
    name: `Sprint ${sprintId}`,
    slug: `sprint-${sprintId}`,
    description: null,
    status: 'planning',
    start_date: null,
    end_date: null,
    actual_end_date: null,
    sprint_lead_id: null,
    issues_count: issuesCount,
    total_story_points: 0,
    completed_story_points: 0,
    created_at: t,
    updated_at: t,
  };
}

export function issueItem(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  issueId: number,
  position: number,
  commentsCount = 0,
) {
  const t = now();
  return {
    ...keys.issue(orgId, projectId, issueId),
    LSK: sprintId === null ? listKeys.backlogIssue(position, issueId) : listKeys.sprintIssue(sprintId, position, issueId),
    type: 'issue',
    org_id: orgId,
    id: issueId,
    project_id: projectId,
    sprint_id: sprintId,
    title: `Issue ${issueId}`,
    description: 'Seeded for a cascade test.',
    status: sprintId === null ? 'backlog' : 'todo',
    story_points: 3,
    position,
    issue_number: `SEED-${issueId}`,
    assignee_id: null,
    started_at: null,
    completed_at: null,
    created_at: t,
    updated_at: t,
    comments_count: commentsCount,
  };
}

export function commentItem(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  issueId: number,
  commentId: number,
  authorId: number,
) {
  const t = now();
  return {
    ...keys.comment(orgId, projectId, issueId, commentId),
    LSK: listKeys.comment(issueId, commentId),
    type: 'comment',
    org_id: orgId,
    id: commentId,
    project_id: projectId,
    issue_id: issueId,
    sprint_id: sprintId,
    body: `Comment ${commentId}`,
    author_id: authorId,
    author_name: 'Ada Admin',
    created_at: t,
    updated_at: t,
  };
}

/** Writes items in BatchWrites of 25, `parallel` at a time, retrying unprocessed ones. */
export async function putAll(items: Record<string, unknown>[], parallel = 8): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) chunks.push(items.slice(i, i + 25));
  let next = 0;
  const worker = async () => {
    while (next < chunks.length) {
      let requests = (chunks[next++] ?? []).map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
        requests = (out.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** Allocates `n` ids of a sequence at once (one ADD), as n creates would have. */
export async function takeIds(orgId: number, name: 'sprint' | 'issue' | 'comment', n: number): Promise<number[]> {
  const out = await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.sequences(orgId),
      UpdateExpression: 'ADD #n :n',
      ExpressionAttributeNames: { '#n': name },
      ExpressionAttributeValues: { ':n': n },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const last = Number(out.Attributes?.[name]);
  return Array.from({ length: n }, (_, i) => last - n + 1 + i);
}

export interface SeededProject {
  sprintIds: number[];
  /** Issue ids by sprint id (`null` for the backlog). */
  issues: Map<number | null, number[]>;
  commentIds: number[];
  items: number;
}

/**
 * Seeds a project with `sprints` sprints of `issuesPerSprint` issues, `backlog` backlog issues, and
 * `commentsPerIssue` comments on every issue. Counters (sprints_count, issues_count,
 * comments_count, backlog_count) are set to match.
 */
export async function seedProject(
  orgId: number,
  projectId: number,
  authorId: number,
  shape: {
    sprints: number;
    issuesPerSprint: number;
    backlog?: number;
    commentsPerIssue: number;
    /** Stored attributes of the n-th issue seeded (0-based, in list order) beside its defaults. */
    issueFields?: (n: number) => Record<string, unknown>;
  },
): Promise<SeededProject> {
  const backlog = shape.backlog ?? 0;
  const issueTotal = shape.sprints * shape.issuesPerSprint + backlog;
  const [sprintIds, issueIds, commentIds] = await Promise.all([
    shape.sprints > 0 ? takeIds(orgId, 'sprint', shape.sprints) : Promise.resolve([]),
    issueTotal > 0 ? takeIds(orgId, 'issue', issueTotal) : Promise.resolve([]),
    issueTotal * shape.commentsPerIssue > 0
      ? takeIds(orgId, 'comment', issueTotal * shape.commentsPerIssue)
      : Promise.resolve([]),
  ]);
  const items: Record<string, unknown>[] = [];
  // Beside the project's items (`items` counts those a project cascade finds in its partition).
  const pointers: Record<string, unknown>[] = [];
  const issues = new Map<number | null, number[]>();
  let issueCursor = 0;
  let commentCursor = 0;
  const parents: (number | null)[] = [...sprintIds, ...(backlog > 0 ? [null] : [])];
  let backlogRank: Record<string, number> = {};
  for (const sprintId of parents) {
    const count = sprintId === null ? backlog : shape.issuesPerSprint;
    const rank = rankDelta(Array.from({ length: count }, (_, i) => ({ to: (i + 1) * 1024 })));
    if (sprintId !== null) items.push({ ...sprintItem(orgId, projectId, sprintId, count), ...rank });
    else backlogRank = rank;
    const ids = issueIds.slice(issueCursor, issueCursor + count);
    issueCursor += count;
    issues.set(sprintId, ids);
    ids.forEach((issueId, i) => {
      const issue = {
        ...issueItem(orgId, projectId, sprintId, issueId, (i + 1) * 1024, shape.commentsPerIssue),
        ...shape.issueFields?.(issueCursor - count + i),
      };
      items.push(issue);
      // The number's pointer, as the create transaction writes it (lib/db/issues/issues.ts: insertIssue).
      pointers.push({
        ...keys.issueKey(orgId, issue.issue_number),
        type: 'issue_key',
        project_id: projectId,
        issue_id: issueId,
        sprint_id: issue.sprint_id ?? null,
        position: issue.position,
      });
      for (let c = 0; c < shape.commentsPerIssue; c++) {
        const commentId = commentIds[commentCursor++] as number;
        const comment = commentItem(orgId, projectId, sprintId, issueId, commentId, authorId);
        items.push(comment);
        // The pointer the data layer writes beside it; a seeded comment, like its pointer, has no version.
        pointers.push(pointerItem(orgId, comment));
      }
    });
  }
  await putAll([...items, ...pointers]);
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: tableName(),
            Key: keys.project(orgId, projectId),
            UpdateExpression: 'ADD sprints_count :s, backlog_count :b, issue_seq :i',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':s': shape.sprints, ':b': backlog, ':i': issueTotal },
          },
        },
      ],
    }),
  );
  // The backlog's rank counters, 100 per update (an update expression is limited to 4 KB).
  const rank = Object.entries(backlogRank);
  for (let i = 0; i < rank.length; i += 100) {
    const chunk = rank.slice(i, i + 100);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        UpdateExpression: `ADD ${chunk.map(([name]) => `${name} :${name}`).join(', ')}`,
        ExpressionAttributeValues: Object.fromEntries(chunk.map(([name, by]) => [`:${name}`, by])),
      }),
    );
  }
  return { sprintIds, issues, commentIds, items: items.length };
}

/** One sprint item and `n` issues in it (no comments), through the same shapes. */
export async function seedSprint(orgId: number, projectId: number, n = 0) {
  const seeded = await seedProject(orgId, projectId, 0, { sprints: 1, issuesPerSprint: n, commentsPerIssue: 0 });
  return { sprintId: seeded.sprintIds[0] as number, issueIds: seeded.issues.get(seeded.sprintIds[0] as number) ?? [] };
}

import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  afterFailure,
  failureMessage,
  MAX_ATTEMPTS,
  noPartitionKeys,
  orphansIn,
  type PendingCascade,
} from '../../lib/model/cascades.ts';
import {
  cascadeParentOf,
  cascadeWorkOf,
  commentFilesOf,
  notePartitionItem,
  pendingCascadeFromItem,
  pendingCascadeItem,
} from '../../lib/db/cascades/cascade-records.ts';

/** What the cascade decides about stream records and swept keys, without a table. */

const removed = (type: string, orgId: number, id: number, projectId?: number): DynamoDBRecord => ({
  eventName: 'REMOVE',
  dynamodb: {
    OldImage: {
      type: { S: type },
      org_id: { N: String(orgId) },
      id: { N: String(id) },
      ...(projectId === undefined ? {} : { project_id: { N: String(projectId) } }),
    },
  },
});

const pendingWrite = (orgId: number, projectId: number, sprintId: number, attempts: number): DynamoDBRecord => ({
  eventName: 'MODIFY',
  dynamodb: {
    NewImage: {
      type: { S: 'cascade' },
      status: { S: 'pending' },
      kind: { S: 'sprint' },
      org_id: { N: String(orgId) },
      project_id: { N: String(projectId) },
      parent_id: { N: String(sprintId) },
      attempts: { N: String(attempts) },
    },
  },
});

const pad = (n: number) => String(n).padStart(10, '0');

describe('cascade work of a batch of stream records', () => {
  it('groups parent records by project partition and ignores comments and writes', () => {
    const work = cascadeWorkOf([
      removed('sprint', 1, 5, 2),
      removed('comment', 1, 9, 2),
      removed('issue', 1, 7, 3),
      removed('project', 1, 2),
      { eventName: 'INSERT', dynamodb: { NewImage: { type: { S: 'issue' } } } },
    ]);
    expect(work.parents).toBe(3);
    expect(work.groups).toEqual([
      {
        orgId: 1,
        projectId: 2,
        entries: [
          { index: 0, parent: { kind: 'sprint', orgId: 1, projectId: 2, sprintId: 5 } },
          { index: 3, parent: { kind: 'project', orgId: 1, projectId: 2 } },
        ],
      },
      { orgId: 1, projectId: 3, entries: [{ index: 2, parent: { kind: 'issue', orgId: 1, projectId: 3, issueId: 7 } }] },
    ]);
    expect(work.continuations).toEqual([]);
  });

  it('keeps the latest write of a pending cascade at the place of its first record', () => {
    const work = cascadeWorkOf([
      pendingWrite(1, 2, 5, 1),
      removed('issue', 1, 7, 3),
      pendingWrite(1, 2, 5, 2),
      pendingWrite(1, 2, 6, 0),
    ]);
    expect(work.continuations.map((c) => [c.index, c.pending.attempts, c.pending.parent])).toEqual([
      [0, 2, { kind: 'sprint', orgId: 1, projectId: 2, sprintId: 5 }],
      [3, 0, { kind: 'sprint', orgId: 1, projectId: 2, sprintId: 6 }],
    ]);
  });
});

describe('orphans a sweep finds in a partition whose project exists', () => {
  it('names the issues of sprints that are gone and the comments of issues that are gone', () => {
    const part = noPartitionKeys();
    for (const item of [
      { SK: `SPRINT#${pad(1)}` },
      { SK: `ISSUE#${pad(10)}`, LSK: `S#${pad(1)}#x` },
      { SK: `ISSUE#${pad(11)}`, LSK: `S#${pad(2)}#x` },
      { SK: `ISSUE#${pad(10)}#C#${pad(100)}` },
      { SK: `ISSUE#${pad(12)}#C#${pad(101)}` },
      { SK: 'SEQ#issue' },
    ])
      notePartitionItem(part, item);
    expect(orphansIn(4, 5, part)).toEqual([
      { kind: 'sprint', orgId: 4, projectId: 5, sprintId: 2 },
      { kind: 'issue', orgId: 4, projectId: 5, issueId: 12 },
    ]);
  });

  it('names nothing when every sprint and issue is there', () => {
    const part = noPartitionKeys();
    notePartitionItem(part, { SK: `SPRINT#${pad(1)}` });
    notePartitionItem(part, { SK: `ISSUE#${pad(10)}`, LSK: `S#${pad(1)}#x` });
    notePartitionItem(part, { SK: `ISSUE#${pad(10)}#C#${pad(100)}` });
    expect(orphansIn(4, 5, part)).toEqual([]);
  });
});

describe('a pending cascade', () => {
  const pending: PendingCascade = {
    parent: { kind: 'issue', orgId: 1, projectId: 2, issueId: 3 },
    after: { PK: 'a', SK: 'b' },
    attempts: 1,
    status: 'pending',
    error: 'x'.repeat(1200),
  };

  it('reads back from its stored attributes, its error cut to 1,000 characters', () => {
    expect(pendingCascadeFromItem(pendingCascadeItem(pending))).toEqual({ ...pending, error: 'x'.repeat(1000) });
  });

  it("of a label's delete reads back too, and tells how to resume it", () => {
    const label: PendingCascade = {
      parent: { kind: 'label', orgId: 1, projectId: 2, labelId: 9 },
      attempts: 5,
      status: 'failed',
    };
    expect(pendingCascadeFromItem(pendingCascadeItem(label))).toEqual(label);
    expect(cascadeParentOf(removed('label', 1, 9, 2))).toEqual(label.parent);
    expect(failureMessage(label).resume).toBe('npm run admin -- cascade:resume --org 1 --project 2 --label 9');
  });

  it("of a trashed label starts at its trash item's removal (a purge or expiry), not at a webhook's", () => {
    const trashRemoved = (kind: string): DynamoDBRecord => ({
      eventName: 'REMOVE',
      dynamodb: {
        OldImage: {
          type: { S: 'trash' },
          kind: { S: kind },
          item_id: { N: '9' },
          stored: { M: { type: { S: kind }, org_id: { N: '1' }, project_id: { N: '2' }, id: { N: '9' } } },
        },
      },
    });
    expect(cascadeParentOf(trashRemoved('label'))).toEqual({ kind: 'label', orgId: 1, projectId: 2, labelId: 9 });
    expect(cascadeParentOf(trashRemoved('webhook'))).toBeUndefined();
    expect(cascadeParentOf({ ...trashRemoved('label'), eventName: 'INSERT' })).toBeUndefined();
  });

  it("of a trashed issue starts at its trash item's removal too, naming its number when it had children", () => {
    const trashRemoved = (children: number): DynamoDBRecord => ({
      eventName: 'REMOVE',
      dynamodb: {
        OldImage: {
          type: { S: 'trash' },
          kind: { S: 'issue' },
          item_id: { N: '9' },
          stored: {
            M: {
              type: { S: 'issue' },
              org_id: { N: '1' },
              project_id: { N: '2' },
              id: { N: '9' },
              issue_number: { S: 'AP-4' },
              sub_issues_total: { N: String(children) },
            },
          },
        },
      },
    });
    expect(cascadeParentOf(trashRemoved(0))).toEqual({ kind: 'issue', orgId: 1, projectId: 2, issueId: 9 });
    expect(cascadeParentOf(trashRemoved(2))).toEqual({ kind: 'issue', orgId: 1, projectId: 2, issueId: 9, number: 'AP-4' });
  });

  it('stays pending after a failure until MAX_ATTEMPTS failures in a row, then is failed', () => {
    expect(afterFailure({ ...pending, attempts: MAX_ATTEMPTS - 2 }, 'boom')).toMatchObject({
      attempts: MAX_ATTEMPTS - 1,
      status: 'pending',
      error: 'boom',
    });
    expect(afterFailure({ ...pending, attempts: MAX_ATTEMPTS - 1 }, 'boom')).toMatchObject({
      attempts: MAX_ATTEMPTS,
      status: 'failed',
    });
  });
});

describe("a comment's attachments", () => {
  const comment = (hasAttachments: boolean) => ({
    type: { S: 'comment' },
    org_id: { N: '1' },
    project_id: { N: '2' },
    issue_id: { N: '3' },
    id: { N: '4' },
    ...(hasAttachments ? { has_attachments: { BOOL: true } } : {}),
  });
  const trashRemoval = (kind: string, stored: Record<string, unknown>): DynamoDBRecord => ({
    eventName: 'REMOVE',
    dynamodb: { OldImage: { type: { S: 'trash' }, kind: { S: kind }, stored: { M: stored } } } as never,
  });
  const files = { orgId: 1, projectId: 2, issueId: 3, commentId: 4 };

  it("follow its removal (into the trash, or with its issue) and its trash item's (a restore, a purge, an expiry)", () => {
    expect(commentFilesOf({ eventName: 'REMOVE', dynamodb: { OldImage: comment(true) } } as never)).toEqual(files);
    expect(commentFilesOf(trashRemoval('comment', comment(true)))).toEqual(files);
  });

  it('ask for nothing when it never had any, and nothing of its writes, nor of other trash items', () => {
    expect(commentFilesOf({ eventName: 'REMOVE', dynamodb: { OldImage: comment(false) } } as never)).toBeUndefined();
    expect(commentFilesOf(trashRemoval('comment', comment(false)))).toBeUndefined();
    expect(commentFilesOf({ eventName: 'INSERT', dynamodb: { NewImage: comment(true) } } as never)).toBeUndefined();
    expect(commentFilesOf(trashRemoval('label', { ...comment(true), type: { S: 'label' } }))).toBeUndefined();
    // A comment's trash item starts no cascade of its own.
    expect(cascadeParentOf(trashRemoval('comment', comment(true)))).toBeUndefined();
  });
});

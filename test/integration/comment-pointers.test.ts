import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asActor } from '../../lib/context/actor.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { findComment, readCommentPointer } from '../../lib/db/comments/comments.ts';
import { restorePointer, writeMissingCommentPointers } from '../../lib/jobs/comment-pointers.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { trashedCommentKey } from '../../lib/db/core/trash.ts';
import { answeredVersion } from '../../lib/model/versions.ts';
import { createComment, deleteComment, getComment, updateComment } from '../../lib/services/comments.ts';
import { ForbiddenError, NotFoundError } from '../../lib/vocabulary/errors.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { meterReads } from '../support/read-meter.ts';
import { seedProject } from '../support/seed.ts';

let calls: ReturnType<typeof meterReads>;
beforeAll(() => {
  calls = meterReads();
});
afterAll(() => calls.stop());

/** Runs a domain call as a request of `caller` would (its writes stamped with the actor and versions), counting its DynamoDB calls. */
const asRequest = <T>(caller: Principal, step: () => Promise<T>) => calls.measure(() => asActor(caller.accountId, step));

async function callers() {
  const org = await newOrganisation();
  const admin: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const member: Principal = { orgId: org.orgId, accountId: org.member.id, role: 'member', tokenHash: '', name: 'Mo Member' };
  return { org, admin, member };
}

/**
 * A comment by `author` on a backlog issue of a new project, its pointer as a create wrote it
 * before pointers carried the comment (where it lives only).
 */
async function underOldPointer(admin: Principal, author: Principal) {
  const project = await createProject(admin, { name: 'Old', prefix: randomPrefix() });
  const issue = await asActor(admin.accountId, () =>
    createIssue(admin, { projectId: project.id, sprintId: null }, { title: 'Old' }),
  );
  const ref = { projectId: project.id, sprintId: null, issueId: issue.id };
  const created = (await asRequest(author, () => createComment(author, ref, { body: 'old' }))).value;
  const pointerKey = keys.commentPointer(admin.orgId, created.id);
  await db.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...pointerKey, type: 'comment_pointer', project_id: project.id, issue_id: issue.id, sprint_id: null, version: 1 },
    }),
  );
  return { project, issue, created, pointerKey };
}

/** A new organisation's project with `issues` seeded backlog issues, a comment each. */
async function backlogComments(issues: number) {
  const { org, admin } = await callers();
  const project = await createProject(admin, { name: 'Old', prefix: randomPrefix() });
  const { commentIds } = await seedProject(org.orgId, project.id, org.admin.id, {
    sprints: 0,
    issuesPerSprint: 0,
    backlog: issues,
    commentsPerIssue: 1,
  });
  return { orgId: org.orgId, projectId: project.id, commentIds };
}

describe('comment pointers written after an upgrade (comments:pointers)', () => {
  it('gives every comment without a pointer its pointer, so that GET /comments/{id} finds it; running it again is harmless', async () => {
    const { org, admin: caller } = await callers();
    const project = await createProject(caller, { name: 'Old', prefix: randomPrefix() });
    const seeded = await seedProject(org.orgId, project.id, org.admin.id, {
      sprints: 1,
      issuesPerSprint: 1,
      backlog: 1,
      commentsPerIssue: 2,
    });
    // As a comment written before pointers existed: its pointer is missing.
    for (const id of seeded.commentIds) {
      await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.commentPointer(org.orgId, id) }));
    }
    for (const id of seeded.commentIds) expect(await findComment(org.orgId, id)).toBeUndefined();

    const first = await writeMissingCommentPointers(org.orgId);
    expect(first.written).toBe(seeded.commentIds.length);
    for (const id of seeded.commentIds) {
      const found = await findComment(org.orgId, id);
      expect(found?.item.id, `comment ${id}`).toBe(id);
    }
    const [inSprint, inBacklog] = [seeded.commentIds[0]!, seeded.commentIds[2]!];
    expect((await findComment(org.orgId, inSprint))?.item.sprint_id).toBe(seeded.sprintIds[0]);
    expect((await findComment(org.orgId, inBacklog))?.item.sprint_id).toBeNull();

    const again = await writeMissingCommentPointers(org.orgId);
    expect(again).toEqual({ comments: seeded.commentIds.length, written: 0, completed: 0 });
    for (const id of seeded.commentIds) expect((await findComment(org.orgId, id))?.item.id).toBe(id);
  });

  it("with --org, touches that organisation's comments only", async () => {
    const seededOrg = async () => {
      const { orgId, commentIds } = await backlogComments(2);
      for (const id of commentIds)
        await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.commentPointer(orgId, id) }));
      return { orgId, commentIds };
    };
    const [a, b] = [await seededOrg(), await seededOrg()];
    expect(await writeMissingCommentPointers(a.orgId)).toEqual({ comments: 2, written: 2, completed: 0 });
    for (const id of b.commentIds) expect(await findComment(b.orgId, id)).toBeUndefined();
    expect(await writeMissingCommentPointers(b.orgId)).toEqual({ comments: 2, written: 2, completed: 0 });
    for (const id of b.commentIds) expect((await findComment(b.orgId, id))?.item.id).toBe(id);
  });

  it('writes no pointer for a comment gone since the Scan read it (a cascade meanwhile is not undone)', async () => {
    const { orgId, projectId, commentIds } = await backlogComments(1);
    const id = commentIds[0]!;
    const pointerKey = keys.commentPointer(orgId, id);
    const commentKey = (await db.send(new GetCommand({ TableName: tableName(), Key: pointerKey, ConsistentRead: true }))).Item!;
    const scanned = (
      await db.send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.comment(orgId, projectId, Number(commentKey.issue_id), id),
          ConsistentRead: true,
        }),
      )
    ).Item!;
    // The cascade removes the pointer, then the comment, after the Scan read it.
    await db.send(new DeleteCommand({ TableName: tableName(), Key: pointerKey }));
    await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: scanned.PK, SK: scanned.SK } }));

    expect(await restorePointer(scanned)).toBe('none');
    expect(
      (await db.send(new GetCommand({ TableName: tableName(), Key: pointerKey, ConsistentRead: true }))).Item,
    ).toBeUndefined();
  });

  it("writes the comment's fixed fields and version on the pointers it adds, so that edits of those comments need no read", async () => {
    const { org, admin } = await callers();
    const project = await createProject(admin, { name: 'Old', prefix: randomPrefix() });
    const seeded = await seedProject(org.orgId, project.id, org.admin.id, {
      sprints: 1,
      issuesPerSprint: 1,
      commentsPerIssue: 1,
    });
    const id = seeded.commentIds[0]!;
    const before = await getComment(admin, id);
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.commentPointer(org.orgId, id) }));

    await writeMissingCommentPointers(org.orgId);

    expect((await readCommentPointer(org.orgId, id))?.fixed).toEqual({
      authorId: org.admin.id,
      authorName: before.author_name,
      createdAt: before.created_at,
      version: 0,
    });
    // The pointer, then the transaction.
    const edited = await asRequest(admin, () => updateComment(admin, id, { body: 'edited' }));
    expect(edited.calls).toBe(2);
    expect(edited.value).toEqual({ ...before, body: 'edited', updated_at: edited.value.updated_at });
    const read = await getComment(admin, id);
    expect(read).toEqual(edited.value);
    expect(answeredVersion(edited.value)).toBe(1);
    expect(answeredVersion(read)).toBe(1);
  });
});

describe('a comment pointer written before pointers carried the comment (where it lives only)', () => {
  it('still leads edits and deletes, which read the comment first, and answers them as before', async () => {
    const { org, admin, member } = await callers();
    const { project, issue, created, pointerKey } = await underOldPointer(admin, member);
    expect((await readCommentPointer(org.orgId, created.id))?.fixed).toBeUndefined();

    await expect(asRequest(admin, () => updateComment(admin, created.id, { body: 'not mine' }))).rejects.toBeInstanceOf(
      ForbiddenError,
    );
    // The pointer, the comment with its ancestors, then the transaction.
    const edited = await asRequest(member, () => updateComment(member, created.id, { body: 'edited' }));
    expect(edited.calls).toBe(3);
    expect(edited.value).toEqual({ ...created, body: 'edited', updated_at: edited.value.updated_at });
    expect(answeredVersion(edited.value)).toBe(2);
    const read = await getComment(member, created.id);
    expect(read).toEqual(edited.value);
    expect(answeredVersion(read)).toBe(2);
    const again = await asRequest(member, () => updateComment(member, created.id, { body: 'again' }));
    expect(answeredVersion(again.value)).toBe(3);
    expect(answeredVersion(await getComment(member, created.id))).toBe(3);

    await expect(asRequest(admin, () => deleteComment(admin, created.id))).rejects.toBeInstanceOf(ForbiddenError);
    // A delete moves the comment into the trash whole, which such a pointer does not carry: the
    // pointer, the comment with its ancestors, then the transaction.
    const deleted = await asRequest(member, () => deleteComment(member, created.id));
    expect(deleted.calls).toBe(3);
    const trashed = await db.send(
      new GetCommand({ TableName: tableName(), Key: trashedCommentKey(org.orgId, created.id), ConsistentRead: true }),
    );
    expect(trashed.Item?.stored).toMatchObject({ id: created.id, body: 'again', version: 3 });
    await expect(getComment(member, created.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(
      (await db.send(new GetCommand({ TableName: tableName(), Key: pointerKey, ConsistentRead: true }))).Item,
    ).toBeUndefined();
    expect(
      (
        await db.send(
          new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, issue.id), ConsistentRead: true }),
        )
      ).Item?.comments_count,
    ).toBe(0);
  });
});

describe('a comment pointer written before pointers carried the comment, after comments:pointers', () => {
  it("carries the comment's fixed fields and its version, so that edits are decided on it again; running it again changes nothing", async () => {
    const { org, admin, member } = await callers();
    const { created, pointerKey } = await underOldPointer(admin, member);
    // Two edits on that pointer since.
    for (const body of ['second', 'third']) await asRequest(member, () => updateComment(member, created.id, { body }));
    const before = await getComment(member, created.id);
    expect(answeredVersion(before)).toBe(3);

    const first = await writeMissingCommentPointers(org.orgId);
    expect(first.completed).toBe(1);
    expect((await readCommentPointer(org.orgId, created.id))?.fixed).toEqual({
      authorId: member.accountId,
      authorName: 'Mo Member',
      createdAt: created.created_at,
      version: 3,
    });
    // The pointer, then the transaction: the comment is not read.
    const edited = await asRequest(member, () => updateComment(member, created.id, { body: 'fourth' }));
    expect(edited.calls).toBe(2);
    expect(answeredVersion(edited.value)).toBe(4);
    expect(await getComment(member, created.id)).toEqual(edited.value);

    const pointer = async () =>
      (await db.send(new GetCommand({ TableName: tableName(), Key: pointerKey, ConsistentRead: true }))).Item;
    const completed = await pointer();
    await writeMissingCommentPointers(org.orgId);
    expect(await pointer()).toEqual(completed);
  });

  it('carries the whole comment, so that its delete moves it into the trash without reading it', async () => {
    const { org, admin, member } = await callers();
    const { project, issue, created } = await underOldPointer(admin, member);
    await asRequest(member, () => updateComment(member, created.id, { body: 'second' }));
    const commentKey = keys.comment(org.orgId, project.id, issue.id, created.id);
    // As a release before pointers carried the body left it: no copy, so a delete reads the comment.
    await writeMissingCommentPointers(org.orgId);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.commentPointer(org.orgId, created.id),
        UpdateExpression: 'REMOVE body',
      }),
    );
    expect((await readCommentPointer(org.orgId, created.id))?.copy).toBeUndefined();

    expect((await writeMissingCommentPointers(org.orgId)).completed).toBe(1);
    const stored = (await db.send(new GetCommand({ TableName: tableName(), Key: commentKey, ConsistentRead: true }))).Item;
    expect((await readCommentPointer(org.orgId, created.id))?.copy).toEqual({
      body: 'second',
      updatedAt: stored?.updated_at,
      updatedBy: member.accountId,
      hasAttachments: false,
    });
    expect((await writeMissingCommentPointers(org.orgId)).completed).toBe(0);
    // The pointer, then the transaction.
    const deleted = await asRequest(member, () => deleteComment(member, created.id));
    expect(deleted.calls).toBe(2);
    const trashed = await db.send(
      new GetCommand({ TableName: tableName(), Key: trashedCommentKey(org.orgId, created.id), ConsistentRead: true }),
    );
    expect(trashed.Item?.stored).toEqual(stored);
  });

  it('refuses, on the pointer alone, a delete whose copy is not the comment (a release that did not write it), and reads it', async () => {
    const { org, member } = await callers();
    const project = await createProject(member, { name: 'Copies', prefix: randomPrefix() });
    const issue = await asActor(member.accountId, () =>
      createIssue(member, { projectId: project.id, sprintId: null }, { title: 'Copies' }),
    );
    const ref = { projectId: project.id, sprintId: null, issueId: issue.id };
    const created = (await asRequest(member, () => createComment(member, ref, { body: 'one' }))).value;
    const commentKey = keys.comment(org.orgId, project.id, issue.id, created.id);
    // The body changed on the comment alone, at the same version and time.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: commentKey,
        UpdateExpression: 'SET body = :b',
        ExpressionAttributeValues: { ':b': 'two' },
      }),
    );
    const stored = (await db.send(new GetCommand({ TableName: tableName(), Key: commentKey, ConsistentRead: true }))).Item;
    const deleted = await asRequest(member, () => deleteComment(member, created.id));
    // The pointer, the refused transaction (which this meter does not count: it throws), the comment
    // with its ancestors, the transaction.
    expect(deleted.calls).toBe(3);
    const trashed = await db.send(
      new GetCommand({ TableName: tableName(), Key: trashedCommentKey(org.orgId, created.id), ConsistentRead: true }),
    );
    expect(trashed.Item?.stored).toEqual(stored);
  });
});

describe('a comment whose pointer is out of step with it', () => {
  it('is edited after reading the comment, with the version the comment then has, when an update did not move the pointer', async () => {
    const { org, member } = await callers();
    const project = await createProject(member, { name: 'Drift', prefix: randomPrefix() });
    const issue = await asActor(member.accountId, () =>
      createIssue(member, { projectId: project.id, sprintId: null }, { title: 'Drift' }),
    );
    const created = (
      await asRequest(member, () =>
        createComment(member, { projectId: project.id, sprintId: null, issueId: issue.id }, { body: 'one' }),
      )
    ).value;
    // As an update by a version of the code that did not move the pointer (during a deployment).
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.comment(org.orgId, project.id, issue.id, created.id),
        UpdateExpression: 'SET body = :body ADD version :one',
        ExpressionAttributeValues: { ':body': 'two', ':one': 1 },
      }),
    );
    expect((await readCommentPointer(org.orgId, created.id))?.fixed?.version).toBe(1);

    // Refused on the pointer alone (the comment is not at the pointer's version), then read and written.
    const edited = await asRequest(member, () => updateComment(member, created.id, { body: 'three' }));
    expect(answeredVersion(edited.value)).toBe(3);
    const read = await getComment(member, created.id);
    expect(read).toEqual(edited.value);
    expect(answeredVersion(read)).toBe(3);
  });
});

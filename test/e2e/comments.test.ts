import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { limits } from '../../lib/schemas/common.ts';
import { randomPrefix, type ApiClient, type ApiResponse, useGateway, orgWithClients } from '../support/api.ts';

const gateway = useGateway();

/** A project with a sprint holding one issue, created through the API; returns its paths. */
async function issueFixture(client: ApiClient) {
  const project = (await client.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const projectPath = `/api/v1/projects/${project.id}`;
  const sprint = (await client.post(`${projectPath}/sprints`, { sprint: { name: 'Sprint 1' } })).body;
  const sprintPath = `${projectPath}/sprints/${sprint.id}`;
  const issue = (await client.post(`${sprintPath}/issues`, { issue: { title: 'Land on the moon' } })).body;
  expect(issue.id, 'fixture issue').toBeTypeOf('number');
  const issuePath = `${sprintPath}/issues/${issue.id}`;
  return { project, sprint, issue, projectPath, sprintPath, issuePath, commentsPath: `${issuePath}/comments` };
}

const comment = (body: string) => ({ comment: { body } });
const ids = (res: ApiResponse) => (res.body as { id: number }[]).map((c) => c.id);
const etag = (res: ApiResponse) => res.headers.get('etag') ?? '';
const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('comments', () => {
  it("creates a comment whose author is the token's account, with 201", async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);

    const res = await member.post(f.commentsPath, { comment: { body: '  **Looks good**\n', author_id: org.admin.id, id: 9 } });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      body: '  **Looks good**\n',
      issue_id: f.issue.id,
      author_id: org.member.id,
      author_name: 'Mo Member',
      created_at: expect.stringMatching(isoMillis),
      updated_at: res.body.created_at,
    });
    expect(res.body.id).not.toBe(9);
    const got = await admin.get(`/api/v1/comments/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('lists comments in creation order, paginated, with X-Total-Count from the counter', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const created: number[] = [];
    for (let i = 0; i < 7; i++) created.push((await (i % 2 ? member : admin).post(f.commentsPath, comment(`c${i}`))).body.id);

    const first = await admin.get(`${f.commentsPath}?per_page=3`);
    expect(first.status).toBe(200);
    expect(ids(first)).toEqual(created.slice(0, 3));
    expect(first.body.map((c: { body: string }) => c.body)).toEqual(['c0', 'c1', 'c2']);
    expect(first.headers.get('x-total-count')).toBe('7');
    expect(first.headers.get('x-per-page')).toBe('3');
    expect(first.headers.get('link')).toContain('rel="next"');

    const seen: number[] = [];
    let url: string | undefined = `${f.commentsPath}?per_page=3`;
    while (url) {
      const res: ApiResponse = await admin.get(url);
      seen.push(...ids(res));
      const next: string | undefined = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
      url = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(seen).toEqual(created);
    const deep = await admin.get(`${f.commentsPath}?page=3&per_page=3`);
    expect(ids(deep)).toEqual(created.slice(6));
    expect(deep.headers.get('x-total-count')).toBe(String(created.length));
    expect(deep.dbCalls).toBeLessThanOrEqual(3);
    expect((await admin.get(`${f.commentsPath}?per_page=0`)).status).toBe(422);
  });

  it('keeps the count exact under concurrent creates', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => admin.post(f.commentsPath, comment(`p${i}`))));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    const list = await admin.get(`${f.commentsPath}?per_page=100`);
    expect(list.headers.get('x-total-count')).toBe('20');
    expect(new Set(ids(list)).size).toBe(20);
    expect(ids(list)).toEqual([...ids(list)].sort((a, b) => a - b));
  });

  it('validates the body: required, a string, not blank, at most 65,535 characters', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const cases: [unknown, string[]][] = [
      [{ comment: {} }, ['body is required']],
      [{ comment: { body: '  \n ' } }, ["body can't be blank"]],
      [{ comment: { body: '' } }, ["body can't be blank"]],
      [{ comment: { body: 42 } }, ['body must be a string']],
      [{ comment: { body: 'x'.repeat(limits.commentBody + 1) } }, ['body is too long (maximum is 65535 characters)']],
      [{ body: 'no wrapper' }, ['comment is required', "body has an unknown key 'body' (known: comment)"]],
    ];
    for (const [payload, errors] of cases) {
      const res = await admin.post(f.commentsPath, payload);
      expect(res.status, JSON.stringify(payload).slice(0, 60)).toBe(422);
      expect(res.body).toEqual({ errors });
    }
    expect((await admin.get(f.commentsPath)).body).toEqual([]);
    const longest = await admin.post(f.commentsPath, comment('y'.repeat(limits.commentBody)));
    expect(longest.status).toBe(201);
    const c = longest.body.id;
    expect((await admin.patch(`/api/v1/comments/${c}`, { comment: { body: ' ' } })).status).toBe(422);
    expect((await admin.patch(`/api/v1/comments/${c}`, { comment: { body: null } })).status).toBe(422);
  });

  it('lets the author update a comment with PATCH or PUT, keeping what was not sent', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const c = (await admin.post(f.commentsPath, comment('first'))).body;

    const patched = await admin.patch(`/api/v1/comments/${c.id}`, { comment: { body: 'second', author_id: 99 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: c.id, body: 'second', author_id: c.author_id, created_at: c.created_at });
    expect(Date.parse(patched.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
    const put = await admin.put(`/api/v1/comments/${c.id}`, { comment: {} });
    expect(put.status).toBe(200);
    expect(put.body.body).toBe('second');
    const third = await admin.put(`/api/v1/comments/${c.id}`, comment('third'));
    expect(third.body.body).toBe('third');
    expect((await admin.get(`/api/v1/comments/${c.id}`)).body).toEqual(third.body);
  });

  it('answers 403 {error} when someone else updates or deletes a comment, even an admin', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const mine = (await member.post(f.commentsPath, comment('by the member'))).body;

    for (const res of [
      await admin.patch(`/api/v1/comments/${mine.id}`, comment('hijacked')),
      await admin.put(`/api/v1/comments/${mine.id}`, comment('hijacked')),
      await admin.delete(`/api/v1/comments/${mine.id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await admin.get(`/api/v1/comments/${mine.id}`)).body.body).toBe('by the member');
    expect((await admin.get(f.commentsPath)).headers.get('x-total-count')).toBe('1');
  });

  it('lets the author delete a comment: 204, then 404, and the count follows', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const a = (await admin.post(f.commentsPath, comment('a'))).body;
    const b = (await admin.post(f.commentsPath, comment('b'))).body;

    const del = await admin.delete(`/api/v1/comments/${a.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await admin.get(`/api/v1/comments/${a.id}`)).status).toBe(404);
    expect((await admin.delete(`/api/v1/comments/${a.id}`)).status).toBe(404);
    expect((await admin.patch(`/api/v1/comments/${a.id}`, comment('x'))).status).toBe(404);
    const list = await admin.get(f.commentsPath);
    expect(ids(list)).toEqual([b.id]);
    expect(list.headers.get('x-total-count')).toBe('1');
  });

  it("answers 404 for another organisation's comments and issues", async () => {
    const a = await orgWithClients(gateway);
    const b = await orgWithClients(gateway);
    const f = await issueFixture(a.admin);
    const c = (await a.admin.post(f.commentsPath, comment('private'))).body;

    for (const res of [
      await b.admin.get(`/api/v1/comments/${c.id}`),
      await b.admin.patch(`/api/v1/comments/${c.id}`, comment('x')),
      await b.admin.delete(`/api/v1/comments/${c.id}`),
      await b.admin.get(f.commentsPath),
      await b.admin.post(f.commentsPath, comment('x')),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    expect((await a.admin.get(`/api/v1/comments/${c.id}`)).body.body).toBe('private');
  });

  it('answers 404 when the path does not lead to the issue', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const other = (await admin.post(`${f.projectPath}/sprints`, { sprint: { name: 'Other' } })).body;
    const otherProject = (await admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } })).body;
    const paths = [
      `${f.projectPath}/sprints/${other.id}/issues/${f.issue.id}/comments`,
      `/api/v1/projects/${otherProject.id}/sprints/${f.sprint.id}/issues/${f.issue.id}/comments`,
      `${f.sprintPath}/issues/${f.issue.id + 1000}/comments`,
      `${f.sprintPath}/issues/abc/comments`,
    ];
    for (const path of paths) {
      expect((await admin.get(path)).status, path).toBe(404);
      expect((await admin.post(path, comment('x'))).status, path).toBe(404);
    }
    for (const id of ['abc', '0', '1.5']) expect((await admin.get(`/api/v1/comments/${id}`)).status).toBe(404);
  });

  it('finds a comment by id right after its creation, with a consistent read of its pointer (no global index)', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    // DynamoDB Local answers a global index at once, so this path must not have one to read: the
    // table the local runtime creates has none (lib/db/core/table.ts), like the one CDK deploys.
    for (let i = 0; i < 5; i++) {
      const created = await admin.post(f.commentsPath, comment(`at once ${i}`));
      const got = await admin.get(`/api/v1/comments/${created.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created.body);
      expect(got.dbCalls).toBeLessThanOrEqual(3);
    }
  });

  it('stays within the DynamoDB call budget (reads <= 3, writes <= 3, auth included), a refused write too', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const created = await admin.post(f.commentsPath, comment('budget'));
    expect(created.status).toBe(201);
    expect(created.dbCalls).toBeLessThanOrEqual(3);
    const id = created.body.id;
    expect((await admin.get(f.commentsPath)).dbCalls).toBeLessThanOrEqual(3);
    expect((await admin.get(`/api/v1/comments/${id}`)).dbCalls).toBeLessThanOrEqual(3);
    const patched = await admin.patch(`/api/v1/comments/${id}`, comment('b'));
    expect([patched.status, patched.dbCalls]).toEqual([200, 3]);
    // Someone else's comment: the pointer names its author, so no write is tried before the 403.
    for (const res of [
      await member.patch(`/api/v1/comments/${id}`, comment('b')),
      await member.delete(`/api/v1/comments/${id}`),
    ]) {
      expect([res.status, res.dbCalls]).toEqual([403, 3]);
    }
    const deleted = await admin.delete(`/api/v1/comments/${id}`);
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
  });
});

describe('comment writes on the pointer alone', () => {
  it("takes the author's name from the token; a token issued before tokens carried it reads the account", async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const named = await member.post(f.commentsPath, comment('named'));
    expect([named.status, named.body.author_name, named.dbCalls]).toEqual([201, 'Mo Member', 3]);

    // As a token item written before this change: no name on it.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(hashToken(org.member.token)),
        UpdateExpression: 'REMOVE #name',
        ExpressionAttributeNames: { '#name': 'name' },
      }),
    );
    const unnamed = await member.post(f.commentsPath, comment('unnamed'));
    expect(unnamed.status).toBe(201);
    expect(unnamed.body).toMatchObject({ author_id: org.member.id, author_name: 'Mo Member' });
    expect(unnamed.dbCalls).toBe(4);
    expect((await admin.get(`/api/v1/comments/${unnamed.body.id}`)).body.author_name).toBe('Mo Member');

    // A regenerated token carries the name again.
    const token = (await member.post('/api/v1/me/token')).body.token as string;
    // (The new token's first request may take a second call for its bucket, carried over from the old one.)
    expect((await member.get('/api/v1/me', { token })).status).toBe(200);
    const renewed = await member.post(f.commentsPath, comment('renewed'), { token });
    expect([renewed.status, renewed.body.author_name, renewed.dbCalls]).toEqual([201, 'Mo Member', 3]);
  });

  it('answers every edit with the ETag the next GET gives, on the pointer alone or after reading the comment', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const c = (await admin.post(f.commentsPath, comment('v1'))).body;
    const path = `/api/v1/comments/${c.id}`;
    const next = (await admin.post(`${f.projectPath}/sprints`, { sprint: { name: 'Next' } })).body;
    const edits: [string, () => Promise<ApiResponse>, number][] = [
      ['on the pointer', () => admin.patch(path, comment('v2')), 3],
      ['without a body (the comment is read for the answer)', () => admin.put(path, { comment: {} }), 4],
      ['on the pointer again: the read edit moved its version too', () => admin.patch(path, comment('v4')), 3],
      [
        'with the issue moved away (refused, then read)',
        async () => {
          expect((await admin.patch(f.issuePath, { issue: { sprint_id: next.id } })).status).toBe(200);
          return admin.patch(path, comment('v5'));
        },
        5,
      ],
      [
        'on the pointer again: the read edit pointed it at the sprint the issue is in now',
        () => admin.put(path, comment('v6')),
        3,
      ],
      [
        'with the issue back where the comment was written (refused, then read)',
        async () => {
          expect(
            (await admin.patch(`${f.projectPath}/sprints/${next.id}/issues/${f.issue.id}`, { issue: { sprint_id: f.sprint.id } }))
              .status,
          ).toBe(200);
          return admin.put(path, comment('v7'));
        },
        5,
      ],
      ['on the pointer once more', () => admin.patch(path, comment('v8')), 3],
    ];
    let version = 1;
    for (const [label, edit, calls] of edits) {
      const res = await edit();
      expect([res.status, res.dbCalls], label).toEqual([200, calls]);
      expect(etag(res), label).toMatch(new RegExp(`^"${++version}-`));
      const read = await admin.get(path);
      expect(read.body, label).toEqual(res.body);
      expect(etag(read), label).toBe(etag(res));
    }
    expect((await admin.get(path)).body).toMatchObject({ body: 'v8', author_name: 'Ada Admin', created_at: c.created_at });
  });

  it('writes with If-Match: the current ETag on the pointer alone, a stale one 412 with nothing written', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const c = await admin.post(f.commentsPath, comment('first'));
    const path = `/api/v1/comments/${c.body.id}`;

    const written = await admin.patch(path, comment('second'), { headers: { 'If-Match': etag(c) } });
    expect([written.status, written.dbCalls]).toEqual([200, 3]);
    for (const res of [
      await admin.patch(path, comment('lost'), { headers: { 'If-Match': etag(c) } }),
      await admin.delete(path, { headers: { 'If-Match': etag(c) } }),
    ]) {
      expect(res.status).toBe(412);
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    const read = await admin.get(path);
    expect(read.body.body).toBe('second');
    expect(etag(read)).toBe(etag(written));
    expect((await admin.get(f.commentsPath)).headers.get('x-total-count')).toBe('1');
    const deleted = await admin.delete(path, { headers: { 'If-Match': etag(written) } });
    expect([deleted.status, deleted.dbCalls]).toEqual([204, 3]);
    expect((await admin.get(f.commentsPath)).headers.get('x-total-count')).toBe('0');
  });
});

describe('comments of moved and deleted issues', () => {
  it('follow their issue to another sprint and to the backlog', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const c = (await admin.post(f.commentsPath, comment('travels'))).body;
    const next = (await admin.post(`${f.projectPath}/sprints`, { sprint: { name: 'Next' } })).body;

    expect((await admin.patch(f.issuePath, { issue: { sprint_id: next.id } })).status).toBe(200);
    const movedPath = `${f.projectPath}/sprints/${next.id}/issues/${f.issue.id}/comments`;
    expect(ids(await admin.get(movedPath))).toEqual([c.id]);
    expect((await admin.get(f.commentsPath)).status).toBe(404);
    const got = await admin.get(`/api/v1/comments/${c.id}`);
    expect(got.status).toBe(200);
    // The one read over budget: the sprint the issue moved to is not where the comment was written,
    // so it costs one more GetItem after the BatchGet (writes check it inside their transaction).
    expect(got.dbCalls).toBeLessThanOrEqual(4);
    // A write tried on the pointer alone is refused (the issue is no longer in the sprint the comment
    // was written in); the comment is then read with its ancestors and written: 2 calls more.
    const edited = await admin.patch(`/api/v1/comments/${c.id}`, comment('still mine'));
    expect(edited.status).toBe(200);
    expect(edited.dbCalls).toBeLessThanOrEqual(5);
    const read = await admin.get(`/api/v1/comments/${c.id}`);
    expect(read.body).toEqual(edited.body);
    expect(etag(read)).toBe(etag(edited));
    // That edit pointed the comment's pointer at the sprint its issue is in now: reads are back to 3.
    expect(read.dbCalls).toBe(3);
    expect((await admin.post(movedPath, comment('second'))).status).toBe(201);

    // the sprint it moved to is deleted: the comments are gone with it at once
    expect((await admin.delete(`${f.projectPath}/sprints/${next.id}`)).status).toBe(204);
    expect((await admin.get(`/api/v1/comments/${c.id}`)).status).toBe(404);
    expect((await admin.patch(`/api/v1/comments/${c.id}`, comment('x'))).status).toBe(404);
    expect((await admin.delete(`/api/v1/comments/${c.id}`)).status).toBe(404);
  });

  it('stay readable when their issue goes back to the backlog', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const c = (await admin.post(f.commentsPath, comment('parked'))).body;
    expect((await admin.patch(f.issuePath, { issue: { sprint_id: null } })).status).toBe(200);
    expect((await admin.delete(f.sprintPath)).status).toBe(204);
    expect((await admin.get(`/api/v1/comments/${c.id}`)).body.body).toBe('parked');
    expect((await admin.patch(`/api/v1/comments/${c.id}`, comment('edited'))).status).toBe(200);
    expect((await admin.delete(`/api/v1/comments/${c.id}`)).status).toBe(204);
  });

  it('can be written and listed on a backlog issue, and follow it into a sprint', async () => {
    const { admin, member } = await orgWithClients(gateway);
    const f = await issueFixture(admin);
    const parked = (await admin.post(`${f.projectPath}/issues`, { issue: { title: 'Someday' } })).body;
    const backlogPath = `${f.projectPath}/issues/${parked.id}/comments`;

    const created = await member.post(backlogPath, comment('for later'));
    expect(created.status).toBe(201);
    expect(created.dbCalls).toBeLessThanOrEqual(4);
    expect(created.body).toMatchObject({ issue_id: parked.id, author_id: expect.any(Number), author_name: 'Mo Member' });
    const list = await admin.get(backlogPath);
    expect(list.dbCalls).toBeLessThanOrEqual(3);
    expect(ids(list)).toEqual([created.body.id]);
    expect(list.headers.get('x-total-count')).toBe('1');
    // only under its current parent: a backlog issue is not in any sprint, a sprint issue not in the backlog
    expect((await admin.get(`${f.sprintPath}/issues/${parked.id}/comments`)).status).toBe(404);
    expect((await admin.get(`${f.projectPath}/issues/${f.issue.id}/comments`)).status).toBe(404);
    expect((await admin.post(`${f.projectPath}/issues/${f.issue.id}/comments`, comment('x'))).status).toBe(404);

    expect((await admin.patch(`${f.projectPath}/issues/${parked.id}`, { issue: { sprint_id: f.sprint.id } })).status).toBe(200);
    expect((await admin.get(backlogPath)).status).toBe(404);
    expect(ids(await admin.get(`${f.sprintPath}/issues/${parked.id}/comments`))).toEqual([created.body.id]);
    expect((await member.delete(`/api/v1/comments/${created.body.id}`)).status).toBe(204);
  });

  for (const deleted of ['issue', 'sprint', 'project'] as const) {
    it(`answer 404 at once when their ${deleted} is deleted, to the author too`, async () => {
      const { admin, member } = await orgWithClients(gateway);
      const f = await issueFixture(admin);
      const c = (await member.post(f.commentsPath, comment('orphan'))).body;
      const path = { issue: f.issuePath, sprint: f.sprintPath, project: f.projectPath }[deleted];

      expect((await admin.delete(path)).status).toBe(204);

      for (const res of [
        await member.get(`/api/v1/comments/${c.id}`),
        await member.patch(`/api/v1/comments/${c.id}`, comment('x')),
        await member.delete(`/api/v1/comments/${c.id}`),
        await admin.delete(`/api/v1/comments/${c.id}`),
        await member.get(f.commentsPath),
        await member.post(f.commentsPath, comment('x')),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: expect.any(String) });
      }
    });
  }
});

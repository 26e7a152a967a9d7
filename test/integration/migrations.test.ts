import { DeleteCommand, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { storedCounter } from '../../lib/db/issues/counters.ts';
import { recordKey } from '../../lib/db/issues/issue-write.ts';
import { keys, migrationsPk } from '../../lib/db/core/keys.ts';
import { acquireMigrationLease, readMigrationLease, readMigrationRecords } from '../../lib/db/core/migrations.ts';
import { readDerivedState } from '../../lib/jobs/reindex.ts';
import { derivations, differences } from '../../lib/model/derivations.ts';
import { LEASE_MS, type MigrationRecord } from '../../lib/model/migrations.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { migrations } from '../../lib/migrations/index.ts';
import { migrationStatus, type MigrationReporter, runMigrations } from '../../lib/migrations/runner.ts';
import { scanStepItems } from '../../lib/migrations/steps.ts';
import { routes } from '../../lib/routes.ts';
import { apiClient, type ApiClient, newOrganisation, randomPrefix, startGateway } from '../support/api.ts';
import { budgetOf } from '../support/call-budgets.ts';
import { injectFault } from '../support/faults.ts';
import { npmStart, READY, stop } from '../support/npm-start.ts';
import { freePort } from '../../tools/local/dynamodb.ts';
import { emptyOwnTable, wholeTable } from '../support/own-table.ts';

/**
 * Data migrations (lib/migrations) on a table of this file's own: they run over the whole table,
 * which the other test files share. Fixtures are written in the previous release's layout: tokens
 * without the account's name, comments without pointers (or with pointers lacking the comment's
 * fields), issues without any of the derived state the issue writes keep (counters, rank index,
 * number pointers, assigned-issue index, sub-issue records).
 */
// Each test migrates a whole table and checks it through the API: seconds alone, more on shared cores.
vi.setConfig({ testTimeout: 180_000 });

let gateway: Awaited<ReturnType<typeof startGateway>>;
beforeAll(async () => {
  // Its table is its own (the `own-table` project of vitest.config.ts; test/support/env.ts names it
  // before any module reads the name, which this file's own code would be too late for, and
  // test/support/own-table.ts makes it).
  expect(tableName()).toMatch(/-own-\d+$/);
  gateway = await startGateway();
});
afterAll(async () => {
  await gateway?.close();
});
// Each test migrates the table it finds: its own fixture's items, not those the tests before it left.
beforeEach(emptyOwnTable);

const routeOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;

interface Fixture {
  orgId: number;
  admin: ApiClient;
  member: ApiClient;
  tokens: string[];
  memberId: number;
  projectId: number;
  sprintId: number;
  issues: { id: number; key: string; sprintId: number | null }[];
  comments: number[];
}

/** An organisation with issues and comments, made through the API, then taken back to the previous release's layout. */
async function previousRelease(): Promise<Fixture> {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const member = apiClient(gateway.baseUrl, org.member.token);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Old', prefix: randomPrefix() } })).body;
  const sprint = (await admin.post(`/api/v1/projects/${project.id}/sprints`, { sprint: { name: 'S1' } })).body;
  const issues: Fixture['issues'] = [];
  for (let i = 0; i < 6; i++) {
    const sprintId = i % 2 ? sprint.id : null;
    const base = `/api/v1/projects/${project.id}${sprintId ? `/sprints/${sprintId}` : ''}/issues`;
    const res = await admin.post(base, {
      issue: {
        title: `Issue ${i}`,
        story_points: i,
        assignee_id: i < 4 ? org.member.id : null,
        ...(i === 5 ? { parent_id: issues[0]!.id } : {}),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    issues.push({ id: res.body.id, key: res.body.issue_number, sprintId });
  }
  const comments: number[] = [];
  for (const issue of issues.slice(0, 3)) {
    const base = `/api/v1/projects/${project.id}${issue.sprintId ? `/sprints/${issue.sprintId}` : ''}/issues/${issue.id}`;
    const res = await member.post(`${base}/comments`, { comment: { body: `On ${issue.key}` } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    comments.push(res.body.id);
  }

  // Tokens issued before token items carried the account's name.
  for (const token of [org.admin.token, org.member.token]) {
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.token(hashToken(token)),
        UpdateExpression: 'REMOVE #n',
        ExpressionAttributeNames: { '#n': 'name' },
      }),
    );
  }
  // A comment written before pointers, and a pointer written before pointers carried the comment's fields.
  await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.commentPointer(org.orgId, comments[0]!) }));
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.commentPointer(org.orgId, comments[1]!),
      UpdateExpression: 'REMOVE author_id, author_name, created_at, #v, body, updated_at',
      ExpressionAttributeNames: { '#v': 'version' },
    }),
  );
  // A pointer written before pointers carried the comment's body.
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.commentPointer(org.orgId, comments[2]!),
      UpdateExpression: 'REMOVE body, updated_at',
    }),
  );
  // Issues written before their derived state: no derived record, no derived counter.
  const { observed, holderKeys } = await readDerivedState(org.orgId);
  for (const record of observed.records.values())
    await db.send(new DeleteCommand({ TableName: tableName(), Key: recordKey(record) }));
  for (const [id, { holder, attrs }] of observed.holders) {
    const owned = Object.keys(attrs).filter((a) => derivations.some((d) => d.owns(holder, a)));
    if (owned.length === 0) continue;
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: holderKeys.get(id)!,
        UpdateExpression: `REMOVE ${owned.map((_, i) => `#a${i}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(owned.map((a, i) => [`#a${i}`, storedCounter(holder.kind, a)])),
      }),
    );
  }
  // A project made before workflows: no states (items, nor their copy on the project), issues without one.
  const projectItem = (
    await db.send(new GetCommand({ TableName: tableName(), Key: keys.project(org.orgId, project.id), ConsistentRead: true }))
  ).Item!;
  const workflowAttributes = Object.keys(projectItem).filter((a) => /^(W[SHM]#|workflow_|state)/.test(a));
  expect(workflowAttributes.length).toBeGreaterThan(5);
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.project(org.orgId, project.id),
      UpdateExpression: `REMOVE ${workflowAttributes.map((_, i) => `#w${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(workflowAttributes.map((a, i) => [`#w${i}`, a])),
    }),
  );
  for (let stateId = 1; stateId <= 5; stateId++)
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.state(org.orgId, project.id, stateId) }));
  for (const issue of issues)
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.issue(org.orgId, project.id, issue.id),
        UpdateExpression: 'REMOVE state_id',
      }),
    );
  expect(await derivedDifferences(org.orgId)).not.toEqual([]);
  return {
    orgId: org.orgId,
    admin,
    member,
    tokens: [org.admin.token, org.member.token],
    memberId: org.member.id,
    projectId: project.id,
    sprintId: sprint.id,
    issues,
    comments,
  };
}

/** Every difference between an organisation's derived state and its rebuild from its issues. */
async function derivedDifferences(orgId: number): Promise<string[]> {
  const { issues, observed } = await readDerivedState(orgId);
  return derivations.flatMap((d) => differences(d, d.rebuild(issues), observed));
}

/** Forgets every migration record (and lease): the next run migrates again what the fixtures wrote. */
async function forgetMigrations() {
  const out = await db.send(
    new ScanCommand({ TableName: tableName(), FilterExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': migrationsPk } }),
  );
  for (const item of out.Items ?? [])
    await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
}

/**
 * The whole table but the migrations' partition, in key order; without the activity the change
 * feed writes a moment after each write (its entries and counts), which no migration touches.
 */
async function tableContents() {
  const items = (await wholeTable()).filter((item) => item.PK !== migrationsPk && !/#A#/.test(String(item.SK)));
  for (const item of items) delete item.activity_count;
  const id = (i: Record<string, unknown>) => `${String(i.PK)} ${String(i.SK)}`;
  return items.sort((a, b) => (id(a) < id(b) ? -1 : 1));
}

/** The API answers in the new layout, within its call budgets. */
async function expectMigrated(f: Fixture, assignedSince: number[] = []) {
  expect(await derivedDifferences(f.orgId)).toEqual([]);
  for (const token of f.tokens) {
    const item = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.token(hashToken(token)), ConsistentRead: true }),
    );
    expect(typeof item.Item?.name).toBe('string');
  }
  for (const id of f.comments) {
    const res = await f.admin.get(`/api/v1/comments/${id}`);
    expect(res.status).toBe(200);
    expect(res.dbCalls).toBeLessThanOrEqual(budgetOf(routeOf('GET', '/api/v1/comments/{id}')).calls);
    const pointer = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.commentPointer(f.orgId, id), ConsistentRead: true }),
    );
    expect(pointer.Item?.author_id).toBeDefined();
    // The whole comment, so that its delete moves it into the trash without reading it.
    expect(pointer.Item?.body).toBe(res.body.body);
    expect(pointer.Item?.updated_at).toBe(res.body.updated_at);
  }
  for (const issue of f.issues) {
    const res = await f.admin.get(`/api/v1/issues/${issue.key}`);
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(issue.id);
    expect(res.dbCalls).toBeLessThanOrEqual(budgetOf(routeOf('GET', '/api/v1/issues/{issue_key}')).calls);
    // In its category's state, the one the migration made, though no issue was rewritten.
    expect(res.body.state_id).toBe(['backlog', 'todo', 'in_progress', 'done', 'cancelled'].indexOf(res.body.status) + 1);
    expect(res.body.status_category).toBe(res.body.status);
    const stored = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.issue(f.orgId, f.projectId, issue.id), ConsistentRead: true }),
    );
    // Not rewritten by the migration (an API write made meanwhile may have given it one).
    expect([undefined, null, res.body.state_id]).toContain(stored.Item?.state_id);
  }
  const states = await f.admin.get(`/api/v1/projects/${f.projectId}/states`);
  expect(states.body.map((s: { id: number; name: string }) => [s.id, s.name])).toEqual([
    [1, 'backlog'],
    [2, 'todo'],
    [3, 'in_progress'],
    [4, 'done'],
    [5, 'cancelled'],
  ]);
  const mine = await f.member.get('/api/v1/me/issues?per_page=100');
  expect(mine.status).toBe(200);
  expect((mine.body as { id: number }[]).map((i) => i.id).sort()).toEqual(
    [...f.issues.slice(0, 4).map((i) => i.id), ...assignedSince].sort(),
  );
  // A comment by a token that now carries its name: the floor of a write, no read of the account.
  const first = f.issues[0]!;
  const comment = await f.member.post(`/api/v1/projects/${f.projectId}/issues/${first.id}/comments`, {
    comment: { body: 'after' },
  });
  expect(comment.status).toBe(201);
  expect(comment.body.author_name).toBe('Mo Member');
  expect(comment.dbCalls).toBeLessThanOrEqual(
    budgetOf(routeOf('POST', '/api/v1/projects/{project_id}/issues/{issue_id}/comments')).calls,
  );
}

const done = (records: MigrationRecord[]) => records.every((r) => r.status === 'done');

describe('data migrations', () => {
  it('record every migration done without running any on a table that never held an organisation', async () => {
    const outcome = await runMigrations();
    expect(outcome).toEqual({ state: 'done', ran: [] });
    const records = await migrationStatus();
    expect(records.map((r) => [r.name, r.status, r.baseline, r.steps])).toEqual(migrations.map((m) => [m.name, 'done', true, 0]));
  });

  it('bring data of the previous release to the new layout: the API answers correctly within its budgets; a second run changes nothing', async () => {
    const f = await previousRelease();
    // Before: a comment without a pointer cannot be found, nor an issue by its number.
    expect((await f.admin.get(`/api/v1/comments/${f.comments[0]}`)).status).toBe(404);
    expect((await f.admin.get(`/api/v1/issues/${f.issues[0]!.key}`)).status).toBe(404);
    await forgetMigrations();

    const outcome = await runMigrations();
    expect(outcome.state).toBe('done');
    expect(outcome.ran.map((m) => [m.name, m.status])).toEqual(migrations.map((m) => [m.name, 'done']));
    const records = await migrationStatus();
    expect(done(records)).toBe(true);
    expect(records[0]!.counts).toMatchObject({ tokens: 2, named: 2 });
    expect(records[1]!.counts).toMatchObject({ comments: 3, written: 1, completed: 2 });
    expect(records[2]!.counts).toMatchObject({ organisations: 1, rebuilds: 1 });
    expect(records[3]!.counts).toMatchObject({ organisations: 1, workflows: 1 });
    // The pointers 0002 wrote and completed carry the comments already.
    expect(records[4]!.counts).toMatchObject({ comments: 3, written: 0, completed: 0 });
    for (const issue of f.issues) {
      const stored = await db.send(
        new GetCommand({ TableName: tableName(), Key: keys.issue(f.orgId, f.projectId, issue.id), ConsistentRead: true }),
      );
      expect(stored.Item && 'state_id' in stored.Item, `issue ${issue.key} rewritten`).toBe(false);
    }
    expect(records.every((r) => r.startedAt && r.finishedAt && r.cursor === undefined && r.runs === 1)).toBe(true);
    expect(await readMigrationLease()).toBeUndefined();
    await expectMigrated(f);

    // Run again: nothing pending, nothing written. And the migrations themselves, forgotten and run
    // again from the start, find nothing to change either.
    const before = await tableContents();
    expect(await runMigrations()).toEqual({ state: 'done', ran: [] });
    await forgetMigrations();
    const again = await runMigrations();
    expect(again.state).toBe('done');
    expect(again.ran.map((m) => m.counts)).toEqual([
      expect.objectContaining({ named: 0 }),
      expect.objectContaining({ written: 0, completed: 0 }),
      expect.objectContaining({ rebuilds: 0, differences: 0 }),
      expect.objectContaining({ workflows: 0, rebuilds: 0, differences: 0 }),
      expect.objectContaining({ written: 0, completed: 0 }),
    ]);
    expect(await tableContents()).toEqual(before);
  });

  it('continue an interrupted run from the step it had reached, to the same end state', async () => {
    const f = await previousRelease();
    await forgetMigrations();
    const saved = { ...scanStepItems };
    Object.assign(scanStepItems, { tokens: 2, comments: 1 });
    try {
      const runs: string[] = [];
      const cursors: unknown[] = [];
      // Two Scans of the whole table at one item a step (0002 and 0005): a few hundred runs.
      for (let i = 0; i < 400; i++) {
        const outcome = await runMigrations({ maxSteps: 1 });
        runs.push(outcome.state);
        if (outcome.state === 'done') break;
        // Between runs, the record says where the next step starts.
        const running = [...(await readMigrationRecords()).values()].find((r) => r.status === 'running');
        cursors.push(running?.cursor);
      }
      expect(cursors.filter((c) => c !== undefined).length).toBeGreaterThan(migrations.length);
      expect(runs.at(-1)).toBe('done');
      expect(runs.length).toBeGreaterThan(migrations.length + 3);
    } finally {
      Object.assign(scanStepItems, saved);
    }
    const records = await migrationStatus();
    expect(done(records)).toBe(true);
    expect(records[0]!.steps).toBeGreaterThan(1);
    expect(records[0]!.runs).toBeGreaterThan(1);
    expect(records[1]!.counts.comments).toBe(await countComments());
    await expectMigrated(f);
  });

  it('record a failed migration as failed and report it; those after it wait; the next run resumes it', async () => {
    const f = await previousRelease();
    await forgetMigrations();
    const reported: string[] = [];
    const reporter: MigrationReporter = {
      started: (r) => reported.push(`started ${r.name}`),
      stepped: () => undefined,
      finished: (r) => reported.push(`finished ${r.name}`),
      failed: (r) => reported.push(`failed ${r.name}: ${r.error}`),
    };
    // The first pointer the comment migration writes fails with an error nobody expects.
    const fault = injectFault({
      commands: ['TransactWriteItemsCommand'],
      fault: 'Unknown',
      times: 1,
      when: (input) => JSON.stringify(input).includes('"COMMENT#'),
    });
    try {
      const outcome = await runMigrations({ reporter });
      expect(outcome.state).toBe('failed');
      expect(outcome.failed).toEqual({
        name: '0002-comment-pointers',
        error: expect.stringContaining('Injected fault') as string,
      });
    } finally {
      fault.remove();
    }
    expect(reported).toEqual([
      'started 0001-token-names',
      'finished 0001-token-names',
      'started 0002-comment-pointers',
      expect.stringMatching(/^failed 0002-comment-pointers: .*Injected fault/) as string,
    ]);
    const records = await migrationStatus();
    expect(records.map((r) => r.status)).toEqual(['done', 'failed', 'pending', 'pending', 'pending']);
    expect(records[1]!.error).toContain('Injected fault');
    expect(await readMigrationLease()).toBeUndefined();

    const resumed = await runMigrations();
    expect(resumed.state).toBe('done');
    const after = await migrationStatus();
    expect(done(after)).toBe(true);
    expect(after[1]!.runs).toBe(2);
    expect(after[1]!.error).toBeUndefined();
    await expectMigrated(f);
  });

  it('let one runner at a time run them: another is busy until the lease runs out', async () => {
    await previousRelease();
    await forgetMigrations();
    expect(await acquireMigrationLease('someone-else', Date.now(), Date.now() + LEASE_MS)).toBe(true);
    expect(await runMigrations()).toEqual({ state: 'busy', ran: [] });
    expect((await migrationStatus()).every((r) => r.status === 'pending')).toBe(true);
    // A holder that died: its lease runs out, and the next runner takes it over.
    expect(await acquireMigrationLease('someone-else', Date.now(), Date.now() - 1)).toBe(true);
    expect((await runMigrations()).state).toBe('done');
  });

  it('give the lease back when a record cannot be written, so that a retry runs at once', async () => {
    const f = await previousRelease();
    await forgetMigrations();
    const fault = injectFault({
      commands: ['TransactWriteItemsCommand'],
      fault: 'Unknown',
      times: 1,
      when: (input) => JSON.stringify(input).includes('"MIGRATION#0001-token-names"'),
    });
    try {
      await expect(runMigrations()).rejects.toThrow(/Injected fault/);
    } finally {
      fault.remove();
    }
    expect(await readMigrationLease()).toBeUndefined();
    expect((await runMigrations()).state).toBe('done');
    await expectMigrated(f);
  });

  it('run when `npm start` starts, before it listens: its API answers in the new layout from the first request', async () => {
    const f = await previousRelease();
    await forgetMigrations();
    const service = npmStart({
      PORT: String(await freePort()),
      DYNAMODB_PORT: String(await freePort()),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      TABLE_NAME: tableName(),
    });
    try {
      const [, base] = await service.waitFor(READY);
      const output = service.output();
      expect(output).toMatch(/Data migrations done in \d+ ms: 0001-token-names done \(\d+ steps\), 0002-comment-pointers done/);
      expect(output.indexOf('Data migrations done')).toBeLessThan(output.indexOf('Listening on'));
      expect(done(await migrationStatus())).toBe(true);
      const local = apiClient(base!, f.tokens[0]);
      expect((await local.get(`/api/v1/comments/${f.comments[0]}`)).status).toBe(200);
      expect((await local.get(`/api/v1/issues/${f.issues[0]!.key}`)).status).toBe(200);
      expect(await stop(service)).toBe(0);
    } finally {
      service.proc.kill('SIGKILL');
    }
    await expectMigrated(f);
  });

  it('lose no API write made while they run', async () => {
    const f = await previousRelease();
    await forgetMigrations();
    const saved = { ...scanStepItems };
    // Steps of 10 items: about 30 steps, each one beside the writes below, which still outlast the
    // 40 writes (steps of 2 items took twice as long, with no more steps between two writes).
    Object.assign(scanStepItems, { tokens: 10, comments: 10 });
    const started = Date.now();
    const created: { id: number; key: string; assigned: boolean }[] = [];
    let migrating = true;
    const writes = (async () => {
      for (let i = 0; (migrating || i < 6) && i < 40; i++) {
        const inSprint = i % 2 === 1;
        const base = `/api/v1/projects/${f.projectId}${inSprint ? `/sprints/${f.sprintId}` : ''}/issues`;
        const res = await f.admin.post(base, {
          issue: { title: `During ${i}`, story_points: 1, assignee_id: i % 3 ? null : f.memberId },
        });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        created.push({ id: res.body.id, key: res.body.issue_number, assigned: i % 3 === 0 });
        const moved = f.issues[i % f.issues.length]!;
        const from = `/api/v1/projects/${f.projectId}${moved.sprintId ? `/sprints/${moved.sprintId}` : ''}/issues/${moved.id}`;
        const res2 = await f.admin.patch(from, { issue: { status: 'in_progress' } });
        expect([200, 404]).toContain(res2.status);
      }
    })();
    try {
      let outcome;
      do outcome = await runMigrations({ maxSteps: 1 });
      while (outcome.state !== 'done' && outcome.state !== 'failed');
      expect(outcome.state).toBe('done');
    } finally {
      migrating = false;
      Object.assign(scanStepItems, saved);
    }
    await writes;
    console.log(`migrated in ${Date.now() - started} ms beside ${created.length} creates and as many updates`);
    expect(created.length).toBeGreaterThan(5);
    for (const issue of created) expect((await f.admin.get(`/api/v1/issues/${issue.key}`)).status).toBe(200);
    const backlog = await f.admin.get(`/api/v1/projects/${f.projectId}/issues?per_page=1`);
    const sprint = await f.admin.get(`/api/v1/projects/${f.projectId}/sprints/${f.sprintId}/issues?per_page=1`);
    expect(Number(backlog.headers.get('x-total-count')) + Number(sprint.headers.get('x-total-count'))).toBe(
      f.issues.length + created.length,
    );
    await expectMigrated(
      f,
      created.filter((c) => c.assigned).map((c) => c.id),
    );
  });
});

async function countComments(): Promise<number> {
  let n = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: '#t = :c',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':c': 'comment' },
        ExclusiveStartKey: start,
      }),
    );
    n += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return n;
}

import { spawn } from 'node:child_process';
import { migrations } from '../../lib/migrations/index.ts';
import { runMigrations } from '../../lib/migrations/runner.ts';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../tools/local/dynamodb.ts';
import { repoRoot } from '../../infra/paths.ts';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { savePendingCascade } from '../../lib/jobs/cascade.ts';
import { keys, projectPk } from '../../lib/db/core/keys.ts';
import { createProject } from '../../lib/services/projects.ts';
import { apiClient, newOrganisation, randomPrefix, useGateway } from '../support/api.ts';
import { itemsIn } from '../support/cascade.ts';
import { commentItem, issueItem, putAll, sprintItem } from '../support/seed.ts';
import { adminCommand } from '../support/admin-cli.ts';

// Its table is its own, found empty (vitest.config.ts, test/support/own-table.ts): `cascade:sweep`
// and the migrations read a whole table, which then holds only what this file wrote; made as this
// release makes a table (`npm start` records its data migrations done on a table that never held
// an organisation).
beforeAll(async () => {
  await runMigrations();
});
const gateway = useGateway();

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: repoRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: tableName(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm run -s admin -- <args>`: exactly what scripts run. */
const npmAdmin = (...args: string[]) => run('npm', ['run', '-s', 'admin', '--', ...args]);
/** The same CLI without npm in front (test/support/admin-cli.ts), for the many argument checks. */
const admin = (args: string[], env?: Record<string, string>) => run(...adminCommand(args), env);

/** Runs `fn` over `items` two at a time: each CLI run is a whole Node process, and the machine is shared. */
async function inPairs<T, R>(items: T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += 2) results.push(...(await Promise.all(items.slice(i, i + 2).map(fn))));
  return results;
}

/** stdout must be exactly one JSON document (one line), and it is returned parsed. */
function onlyJson(result: Run): any {
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.endsWith('\n')).toBe(true);
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout);
}

const TOKEN = /^stk_[A-Za-z0-9_-]{43}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
let seq = 0;
const email = (name: string) => `${name}-${Date.now().toString(36)}-${seq++}@example.com`;

describe('admin CLI', () => {
  it('org:create prints {"organisation","account","token"} and nothing else; the token is an admin token that works', async () => {
    const address = email('ada');
    const out = onlyJson(
      await npmAdmin('org:create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', address.toUpperCase()),
    );
    expect(Object.keys(out)).toEqual(['organisation', 'account', 'token']);
    expect(out.organisation).toEqual({ id: expect.any(Number), name: 'Acme', created_at: expect.stringMatching(DATE_TIME) });
    expect(out.account).toEqual({
      id: 1,
      name: 'Ada',
      email: address,
      handle: null,
      role: 'admin',
      created_at: expect.stringMatching(DATE_TIME),
    });
    expect(out.token).toMatch(TOKEN);
    const me = await apiClient(gateway.baseUrl, out.token).get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ account: out.account, organisation: out.organisation, unread_notifications: 0 });
  }, 60_000);

  it('account:create prints {"account","token"}; the token works with the role asked for', async () => {
    const org = await newOrganisation();
    const address = email('bob');
    const out = onlyJson(
      await npmAdmin('account:create', '--org', String(org.orgId), '--name', 'Bob', '--email', address, '--role', 'member'),
    );
    expect(Object.keys(out)).toEqual(['account', 'token']);
    expect(out.account).toEqual({
      id: expect.any(Number),
      name: 'Bob',
      email: address,
      handle: null,
      role: 'member',
      created_at: expect.stringMatching(DATE_TIME),
    });
    expect(out.token).toMatch(TOKEN);
    const bob = apiClient(gateway.baseUrl, out.token);
    expect((await bob.get('/api/v1/me')).body).toMatchObject({ account: out.account, organisation: { id: org.orgId } });
    expect((await bob.post('/api/v1/accounts', { account: { name: 'X', email: email('x') } })).status).toBe(403);
    const boss = onlyJson(
      await admin(['account:create', '--org', String(org.orgId), '--name', 'Boss', '--email', email('boss'), '--role', 'admin']),
    );
    expect(
      (await apiClient(gateway.baseUrl, boss.token).post('/api/v1/accounts', { account: { name: 'Y', email: email('y') } }))
        .status,
    ).toBe(201);
  }, 60_000);

  it('token:regenerate prints {"token"}: the new token works and the old one is refused at once', async () => {
    const org = await newOrganisation();
    const out = onlyJson(await npmAdmin('token:regenerate', '--org', String(org.orgId), '--account', String(org.member.id)));
    expect(Object.keys(out)).toEqual(['token']);
    expect(out.token).toMatch(TOKEN);
    expect((await apiClient(gateway.baseUrl, org.member.token).get('/api/v1/me')).status).toBe(401);
    const me = await apiClient(gateway.baseUrl, out.token).get('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.account.id).toBe(org.member.id);
    expect((await apiClient(gateway.baseUrl, org.admin.token).get('/api/v1/me')).status).toBe(200);
  }, 60_000);

  it('issues:reindex says what it checked and what it repaired: nothing on a healthy organisation, the lost pointer once', async () => {
    const org = await newOrganisation();
    const client = apiClient(gateway.baseUrl, org.admin.token);
    const project = (await client.post('/api/v1/projects', { project: { name: 'R', prefix: randomPrefix() } })).body;
    const issue = (await client.post(`/api/v1/projects/${project.id}/issues`, { issue: { title: 'one' } })).body;
    const reindex = async () => {
      const result = await admin(['issues:reindex', '--org', String(org.orgId)]);
      return { out: onlyJson(result), said: result.stderr.trim() };
    };
    for (let run = 0; run < 2; run++) {
      const { out, said } = await reindex();
      expect(out.checked).toMatchObject({ issues: 1, lists: 1, accounts: 2 });
      expect(Object.values(out.repaired)).toEqual(Object.values(out.repaired).map(() => 0));
      expect(said).toBe(`admin: issues:reindex ${out.summary}`);
      expect(said).toMatch(
        /^admin: issues:reindex checked 1 issues, 1 lists, 2 accounts, \d+ records, \d+ attachment counters; repaired: nothing$/,
      );
    }
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issueKey(org.orgId, issue.issue_number) }));
    const { out, said } = await reindex();
    expect(out.repaired.pointers).toBe(1);
    expect(out.differences).toEqual([expect.stringContaining(`${issue.issue_number}`)]);
    expect(said).toMatch(/; repaired: 1 pointers$/);
    expect((await reindex()).said).toMatch(/; repaired: nothing$/);
  }, 120_000);

  it('token:revoke prints {"revoked":true} and the token is refused; a later regenerate gives the account a token again', async () => {
    const org = await newOrganisation();
    const out = onlyJson(await npmAdmin('token:revoke', '--org', String(org.orgId), '--account', String(org.admin.id)));
    expect(out).toEqual({ revoked: true });
    expect((await apiClient(gateway.baseUrl, org.admin.token).get('/api/v1/me')).status).toBe(401);
    // DynamoDB Local runs with one shared database: other credentials and another region see the same data.
    const again = onlyJson(
      await admin(['token:regenerate', '--org', String(org.orgId), '--account', String(org.admin.id)], {
        AWS_ACCESS_KEY_ID: 'SomeoneElse',
        AWS_SECRET_ACCESS_KEY: 'another-secret',
        AWS_REGION: 'eu-west-3',
      }),
    );
    expect((await apiClient(gateway.baseUrl, again.token).get('/api/v1/me')).status).toBe(200);
  }, 60_000);

  it('migrations:status prints every data migration in order with its record; migrations:run prints the outcome of a run', async () => {
    // The file's table was made by this release: its migrations are recorded done without running.
    const status = onlyJson(await admin(['migrations:status']));
    expect(status.migrations.map((m: { name: string; status: string }) => [m.name, m.status])).toEqual(
      migrations.map((m) => [m.name, 'done']),
    );
    expect(status.migrations[0]).toMatchObject({ baseline: true, steps: 0, counts: {} });
    expect(status.migrations[0].finishedAt).toMatch(DATE_TIME);
    expect(status).toHaveProperty('lease');
    expect(onlyJson(await admin(['migrations:run']))).toEqual({ state: 'done', ran: [] });
    expect((await admin(['migrations:run', '--steps', '0'])).code).toBe(2);
  });

  it('refuses bad arguments with a message on stderr, nothing on stdout and exit status 2', async () => {
    const org = await newOrganisation();
    const o = String(org.orgId);
    const cases: [string[], RegExp][] = [
      [[], /a command is required/],
      [['org:delete', '--name', 'x'], /unknown command "org:delete"/],
      [['org:create', '--name', 'Acme', '--admin-name', 'Ada'], /--admin-email is required/],
      [['org:create', '--name', '  ', '--admin-name', 'Ada', '--admin-email', 'a@example.com'], /--name is required/],
      [['org:create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', 'not-an-email'], /--admin-email/],
      [['org:create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', 'a@example.com', '--role', 'admin'], /--role/],
      [['org:create', '--name', 'Acme', '--admin-name', 'Ada', '--admin-email', 'a@example.com', 'extra'], /extra/],
      [['account:create', '--org', o, '--name', 'Bo', '--email', 'bo@example.com', '--role', 'owner'], /--role/],
      [['account:create', '--org', o, '--name', 'Bo', '--email', 'bo@example.com'], /--role is required/],
      [
        ['account:create', '--org', 'abc', '--name', 'Bo', '--email', 'bo@example.com', '--role', 'member'],
        /--org must be a positive integer/,
      ],
      [['account:create', '--org', o, '--name', 'Bo', '--email', 'bo@', '--role', 'member'], /--email/],
      [['token:regenerate', '--org', o, '--account', '1.5'], /--account must be a positive integer/],
      [['token:regenerate', '--org', '0', '--account', '1'], /--org must be a positive integer/],
      [['token:revoke', '--org', o], /--account is required/],
      [['token:revoke', '--org', '-1', '--account', '1'], /--org/],
    ];
    const results = await inPairs(cases, ([args]) => admin(args));
    results.forEach((result, i) => {
      const [args, message] = cases[i]!;
      const what = args.join(' ') || '(no arguments)';
      expect(result.code, what).toBe(2);
      expect(result.stdout, what).toBe('');
      expect(result.stderr, what).toMatch(message);
      expect(result.stderr, what).toContain('Usage:');
    });
    // Nothing was created in the organisation by any of them.
    expect((await apiClient(gateway.baseUrl, org.admin.token).get('/api/v1/accounts')).body).toHaveLength(2);
  }, 120_000);

  it('keeps stdout empty under npm run -s when the arguments are bad', async () => {
    const result = await npmAdmin('account:create', '--org', 'x');
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--org must be a positive integer|is required/);
  }, 60_000);

  it('reports what went wrong, with a non-zero exit and empty stdout, when the command cannot be done', async () => {
    const org = await newOrganisation();
    const taken = email('taken');
    await createAccountInOrg(org.orgId, { name: 'Taken', email: taken, role: 'member' });
    const port = await freePort();
    const runs = [
      () => admin(['account:create', '--org', '999999999', '--name', 'Bo', '--email', 'bo@example.com', '--role', 'member']),
      () => admin(['token:regenerate', '--org', String(org.orgId), '--account', '999']),
      () =>
        admin([
          'account:create',
          '--org',
          String(org.orgId),
          '--name',
          'Again',
          '--email',
          taken.toUpperCase(),
          '--role',
          'member',
        ]),
      () => admin(['token:revoke', '--org', '1', '--account', '1'], { DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` }),
    ];
    const results = await inPairs(runs, (run) => run());
    const messages = [
      /organisation does not exist/,
      /Account not found/,
      /email has already been taken/,
      /cannot reach DynamoDB/,
    ];
    results.forEach((result, i) => {
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(messages[i]!);
    });
  }, 120_000);
});

describe('cascade operations', () => {
  /** Items left under parents that are gone, with no stream record to remove them (ids far from any real one). */
  async function orphans() {
    const org = await newOrganisation();
    const o = org.orgId;
    const caller = { orgId: o, accountId: org.admin.id, role: 'admin' as const, tokenHash: '' };
    const live = await createProject(caller, { name: 'Live', prefix: randomPrefix() });
    const goneProject = 900_001;
    await putAll([
      // a project that is gone, with a sprint, an issue and a comment left
      sprintItem(o, goneProject, 1),
      issueItem(o, goneProject, 1, 1, 1024),
      commentItem(o, goneProject, 1, 1, 1, org.admin.id),
      // in a live project: issues of a sprint that is gone, comments of an issue that is gone
      issueItem(o, live.id, 900_002, 900_003, 1024),
      commentItem(o, live.id, 900_002, 900_003, 900_004, org.admin.id),
      commentItem(o, live.id, null, 900_005, 900_006, org.admin.id),
    ]);
    return { orgId: o, live, goneProject, caller };
  }

  it(
    'cascade:sweep finds the cascades nobody finished (--dry-run changes nothing), then finishes them',
    { timeout: 120_000 },
    async () => {
      const { orgId, live, goneProject } = await orphans();
      const expected = [
        { kind: 'project', orgId, projectId: goneProject },
        { kind: 'sprint', orgId, projectId: live.id, sprintId: 900_002 },
        { kind: 'issue', orgId, projectId: live.id, issueId: 900_005 },
      ];

      const dry = onlyJson(await admin(['cascade:sweep', '--dry-run']));
      expect(dry.orphans).toEqual(expect.arrayContaining(expected));
      expect(await itemsIn({ pk: projectPk(orgId, goneProject) })).toHaveLength(3);

      const swept = onlyJson(await npmAdmin('cascade:sweep'));
      expect(swept.finished).toEqual(
        expect.arrayContaining([
          { cascade: expected[0], deleted: 3 },
          { cascade: expected[1], deleted: 2 },
          { cascade: expected[2], deleted: 1 },
        ]),
      );
      expect(await itemsIn({ pk: projectPk(orgId, goneProject) })).toEqual([]);
      // What is left in the live project's partition is its own workflow: the five states it was created with.
      const left = await itemsIn({ pk: projectPk(orgId, live.id) });
      expect(left.map((i) => i.SK)).toEqual([1, 2, 3, 4, 5].map((id) => keys.state(orgId, live.id, id).SK));
    },
  );

  it('cascade:resume finishes a cascade given up, and refuses one whose parent still exists', { timeout: 120_000 }, async () => {
    const { orgId, live, goneProject } = await orphans();
    await savePendingCascade({
      parent: { kind: 'project', orgId, projectId: goneProject },
      attempts: 5,
      status: 'failed',
      error: 'x',
    });

    const refused = await admin(['cascade:resume', '--org', String(orgId), '--project', String(live.id)]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('still exists');
    expect(refused.stdout).toBe('');
    const one = onlyJson(
      await npmAdmin('cascade:resume', '--org', String(orgId), '--project', String(live.id), '--sprint', '900002'),
    );
    expect(one.resumed).toEqual([{ cascade: { kind: 'sprint', orgId, projectId: live.id, sprintId: 900_002 }, deleted: 2 }]);
    const all = onlyJson(await admin(['cascade:resume']));
    expect(all.resumed).toContainEqual({ cascade: { kind: 'project', orgId, projectId: goneProject }, deleted: 3 });
    expect(await itemsIn({ pk: projectPk(orgId, goneProject) })).toEqual([]);
    expect(onlyJson(await admin(['cascade:resume'])).resumed).not.toContainEqual(
      expect.objectContaining({ cascade: { kind: 'project', orgId, projectId: goneProject } }),
    );
  });
});

import { spawn } from 'node:child_process';
import { describe, expect, inject, it } from 'vitest';
import { tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { getItem } from '../../lib/db/core/transactions.ts';
import { accountIdsOfHandles, HANDLES_PER_LOOKUP } from '../../lib/db/organisation/accounts.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { repoRoot } from '../../infra/paths.ts';
import { adminCommand } from '../support/admin-cli.ts';
import { apiClient, orgWithClients, useGateway, type ApiClient } from '../support/api.ts';

const gateway = useGateway();

const setHandle = (client: ApiClient, handle: string | null) => client.patch('/api/v1/me', { account: { handle } });

/** The account's handle as stored, and the account its guard names (undefined: no guard). */
async function stored(orgId: number, accountId: number, handle: string) {
  const account = await getItem<Record<string, unknown>>(keys.account(orgId, accountId));
  const guard = await getItem<Record<string, unknown>>(keys.handle(orgId, handle));
  return { handle: account?.handle, guardOf: guard?.account_id };
}

describe('PATCH /me: the caller sets its handle', () => {
  it('sets a handle, lower-cased, and shows it on GET /me and the accounts list', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const res = await setHandle(member, 'Mo.Member');
    expect(res.status).toBe(200);
    expect(res.body.account).toMatchObject({ id: org.member.id, handle: 'mo.member', role: 'member' });
    expect(res.body.organisation.id).toBe(org.orgId);
    // The token, the account with its organisation, then the one transaction.
    expect(res.dbCalls).toBeLessThanOrEqual(3);
    expect((await member.get('/api/v1/me')).body).toEqual(res.body);
    const listed = (await admin.get('/api/v1/accounts')).body as { id: number; handle: string | null }[];
    expect(listed.find((a) => a.id === org.member.id)?.handle).toBe('mo.member');
    expect(listed.find((a) => a.id === org.admin.id)?.handle).toBeNull();
    expect(await stored(org.orgId, org.member.id, 'mo.member')).toEqual({ handle: 'mo.member', guardOf: org.member.id });
  });

  it('changes a handle: the old one is free at once for another account', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    expect((await setHandle(member, 'mo')).status).toBe(200);
    const changed = await setHandle(member, 'mo-2');
    expect(changed.status).toBe(200);
    expect(changed.body.account.handle).toBe('mo-2');
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: 'mo-2', guardOf: undefined });
    const taken = await setHandle(admin, 'mo');
    expect(taken.status).toBe(200);
    expect(taken.body.account.handle).toBe('mo');
  });

  it('sets the handle it already has again, changing nothing', async () => {
    const { org, member } = await orgWithClients(gateway);
    await setHandle(member, 'mo');
    const again = await setHandle(member, 'MO');
    expect(again.status).toBe(200);
    expect(again.body.account.handle).toBe('mo');
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: 'mo', guardOf: org.member.id });
  });

  it('clears a handle with null, freeing it', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    await setHandle(member, 'mo');
    const cleared = await setHandle(member, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.account.handle).toBeNull();
    expect((await member.get('/api/v1/me')).body.account.handle).toBeNull();
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: undefined, guardOf: undefined });
    expect((await setHandle(admin, 'mo')).status).toBe(200);
  });

  it('refuses a handle another account of the organisation has, in any case: 409 naming it, nothing written', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    await setHandle(admin, 'ana');
    await setHandle(member, 'mo');
    for (const handle of ['ana', 'ANA', 'Ana']) {
      const res = await setHandle(member, handle);
      expect(res.status, handle).toBe(409);
      expect(res.body).toEqual({ error: 'handle "ana" is already taken by another account of the organisation' });
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: 'mo', guardOf: org.member.id });
    expect(await stored(org.orgId, org.admin.id, 'ana')).toEqual({ handle: 'ana', guardOf: org.admin.id });
  });

  it('takes a handle that an account of another organisation has', async () => {
    const first = await orgWithClients(gateway);
    const second = await orgWithClients(gateway);
    expect((await setHandle(first.member, 'same')).status).toBe(200);
    const res = await setHandle(second.member, 'same');
    expect(res.status).toBe(200);
    expect(res.body.account.handle).toBe('same');
  });

  it('refuses a handle that breaks the rule: 422 saying the rule, nothing written', async () => {
    const { org, member } = await orgWithClients(gateway);
    await setHandle(member, 'mo');
    for (const handle of ['', '-mo', 'mo.', 'mo mo', 'mo@x', 'x'.repeat(40), '@mo']) {
      const res = await setHandle(member, handle);
      expect(res.status, handle).toBe(422);
      expect(res.body.errors, handle).toEqual([
        'handle must be 1 to 39 letters (a-z) or digits, with "-", "_" or "." allowed inside (not first, not last)',
      ]);
    }
    const notAString = await member.patch('/api/v1/me', { account: { handle: 7 } });
    expect(notAString.status).toBe(422);
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: 'mo', guardOf: org.member.id });
  });

  it('answers as GET /me when the body changes nothing, and ignores the read-only fields of the account', async () => {
    const { org, member } = await orgWithClients(gateway);
    const me = (await member.get('/api/v1/me')).body;
    const res = await member.patch('/api/v1/me', { account: { ...me.account, name: 'Renamed', role: 'admin' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(me);
    expect((await member.patch('/api/v1/me', { account: { nickname: 'x' } })).status).toBe(422);
    expect((await member.patch('/api/v1/me', { handle: 'mo' })).status).toBe(422);
    expect(await stored(org.orgId, org.member.id, 'mo')).toEqual({ handle: undefined, guardOf: undefined });
  });

  it('lets one of two accounts racing for a handle have it', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const answers = await Promise.all([setHandle(admin, 'race'), setHandle(member, 'race')]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = answers[0]!.status === 200 ? org.admin.id : org.member.id;
    expect((await stored(org.orgId, winner, 'race')).guardOf).toBe(winner);
  });
});

describe('accountIdsOfHandles', () => {
  it('finds the accounts of handles in any case, in one read, leaving out those no account has', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    await setHandle(admin, 'ana');
    await setHandle(member, 'mo.b');
    const other = await orgWithClients(gateway);
    await setHandle(other.member, 'elsewhere');
    const found = await accountIdsOfHandles(org.orgId, ['ANA', 'mo.b', 'Mo.B', 'nobody', 'elsewhere']);
    expect(found).toEqual(
      new Map([
        ['ana', org.admin.id],
        ['mo.b', org.member.id],
      ]),
    );
    expect(await accountIdsOfHandles(org.orgId, [])).toEqual(new Map());
  });

  it(`looks up at most ${HANDLES_PER_LOOKUP} handles at once`, async () => {
    const { org } = await orgWithClients(gateway);
    const many = Array.from({ length: HANDLES_PER_LOOKUP }, (_, i) => `h${i}`);
    expect((await accountIdsOfHandles(org.orgId, many)).size).toBe(0);
    await expect(accountIdsOfHandles(org.orgId, [...many, 'one-more'])).rejects.toThrow(RangeError);
  });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function admin(args: string[]): Promise<Run> {
  const [command, argv] = adminCommand(args);
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, {
      cwd: repoRoot,
      env: { ...process.env, DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'), TABLE_NAME: tableName() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run admin -- account:handle', () => {
  it('sets, refuses and clears an account handle through the same rules as PATCH /me', async () => {
    const { org, member } = await orgWithClients(gateway);
    const bob = await createAccountInOrg(org.orgId, { name: 'Bob', email: `bob-${org.orgId}@example.com`, role: 'member' });
    const base = ['account:handle', '--org', String(org.orgId), '--account', String(bob.account.id)];

    const set = await admin([...base, '--handle', 'Bob']);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ account: { ...bob.account, handle: 'bob' } });
    expect((await apiClient(gateway.baseUrl, bob.token).get('/api/v1/me')).body.account.handle).toBe('bob');

    expect((await setHandle(member, 'mo')).status).toBe(200);
    const [taken, invalid, both] = await Promise.all([
      admin([...base, '--handle', 'MO']),
      admin([...base, '--handle', 'bob.']),
      admin([...base, '--handle', 'x', '--clear']),
    ]);
    expect([taken.code, invalid.code, both.code]).toEqual([1, 1, 2]);
    expect(taken.stderr).toContain('handle "mo" is already taken');
    expect(invalid.stderr).toContain('handle must be 1 to 39 letters');
    expect(both.stderr).toContain('either --handle HANDLE or --clear');

    const cleared = await admin([...base, '--clear']);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout).account.handle).toBeNull();
    expect(await stored(org.orgId, bob.account.id, 'bob')).toEqual({ handle: undefined, guardOf: undefined });
  }, 60_000);
});

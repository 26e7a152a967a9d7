import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getOrganisation } from '../../lib/db/organisation/organisation.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, type Key } from '../../lib/db/core/keys.ts';
import { nextId } from '../../lib/db/core/sequences.ts';
import { createAccountInOrg, createOrganisation, listAccounts } from '../../lib/services/accounts.ts';
import { authenticate } from '../../lib/services/auth.ts';
import { NotFoundError, ValidationError } from '../../lib/vocabulary/errors.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject, deleteProject, getProject, listProjects, updateProject } from '../../lib/services/projects.ts';
import { hashToken } from '../../lib/model/tokens.ts';

let seq = 0;
const tag = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

/** A fresh organisation and its admin as a caller of the domain. */
async function newCaller(): Promise<Principal> {
  const org = await createOrganisation(`Org ${tag()}`, { name: 'Admin', email: `admin-${tag()}@example.com` });
  return { orgId: org.organisation.id, accountId: org.account.id, role: 'admin', tokenHash: hashToken(org.token) };
}

const getItem = async (key: Key) =>
  (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
const projectsCount = async (orgId: number) => (await getOrganisation(orgId))?.projectsCount;
const accountsCount = async (orgId: number) => (await getOrganisation(orgId))?.accountsCount;
const allProjects = async (caller: Principal) => (await listProjects(caller, { page: 1, perPage: 100 })).items;
const allAccounts = async (caller: Principal) => (await listAccounts(caller, { page: 1, perPage: 100 })).items;

type Sent = { input: unknown };
const original = db.send.bind(db) as (command: unknown) => Promise<unknown>;

/**
 * Fault injection: `hook` sees every command the data layer sends and may act before it (or
 * instead of it, by throwing). It sends its own commands through `original`.
 */
function interceptSends(hook: (command: Sent) => Promise<void> | void) {
  vi.spyOn(db, 'send').mockImplementation((async (command: Sent) => {
    await hook(command);
    return original(command);
  }) as never);
}
afterEach(() => {
  vi.restoreAllMocks();
});

const transactItems = (command: Sent): NonNullable<TransactWriteCommandInput['TransactItems']> =>
  command instanceof TransactWriteCommand ? (command.input.TransactItems ?? []) : [];

describe('per-organisation id sequences', () => {
  it('hand out distinct consecutive numbers to parallel callers', async () => {
    const { orgId } = await newCaller();
    const ids = await Promise.all(Array.from({ length: 40 }, () => nextId(orgId, 'sprint')));
    expect(new Set(ids).size).toBe(40);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('are separate per organisation and per kind: each starts at 1', async () => {
    const a = await newCaller();
    const b = await newCaller();
    expect(a.accountId).toBe(1);
    expect(b.accountId).toBe(1);
    expect((await createProject(a, { name: 'A', prefix: 'AA' })).id).toBe(1);
    expect((await createProject(b, { name: 'B', prefix: 'AA' })).id).toBe(1);
    expect((await createProject(a, { name: 'A2', prefix: 'AB' })).id).toBe(2);
  });

  it('give parallel project creates distinct ids, every one of them listed and counted', async () => {
    const caller = await newCaller();
    const created = await Promise.all(
      Array.from({ length: 15 }, (_, i) => createProject(caller, { name: `P${i}`, prefix: `P${i}` })),
    );
    const ids = created.map((p) => p.id);
    expect(new Set(ids).size).toBe(15);
    expect((await allProjects(caller)).map((p) => p.id)).toEqual([...ids].sort((x, y) => x - y));
    expect(await projectsCount(caller.orgId)).toBe(15);
  });
});

describe('counters', () => {
  it('equal the real number of projects after parallel creates and deletes', async () => {
    const caller = await newCaller();
    const first = await Promise.all(
      Array.from({ length: 10 }, (_, i) => createProject(caller, { name: `F${i}`, prefix: `F${i}` })),
    );
    // Deletes of half of them race creates of ten more, and a second delete of each doomed project.
    const doomed = first.filter((_, i) => i % 2 === 0);
    const results = await Promise.allSettled([
      ...doomed.map((p) => deleteProject(caller, p.id)),
      ...doomed.map((p) => deleteProject(caller, p.id)),
      ...Array.from({ length: 10 }, (_, i) => createProject(caller, { name: `S${i}`, prefix: `S${i}` })),
    ]);
    const deletes = results.slice(0, doomed.length * 2);
    expect(deletes.filter((r) => r.status === 'fulfilled')).toHaveLength(doomed.length);
    for (const r of deletes) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(NotFoundError);
    const remaining = await allProjects(caller);
    expect(remaining).toHaveLength(15);
    expect(await projectsCount(caller.orgId)).toBe(remaining.length);
    expect((await listProjects(caller, { page: 1, perPage: 1 })).total).toBe(15);
  });

  it('equal the real number of accounts after parallel creates, some refused as duplicates', async () => {
    const caller = await newCaller();
    const emails = Array.from({ length: 12 }, (_, i) => `user${i % 6}@example.com`);
    const results = await Promise.allSettled(
      emails.map((email) => createAccountInOrg(caller.orgId, { name: 'U', email, role: 'member' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(6);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as ValidationError).errors).toEqual(['email has already been taken']);
    expect(await allAccounts(caller)).toHaveLength(7);
    expect(await accountsCount(caller.orgId)).toBe(7);
  });
});

describe('project prefixes', () => {
  it('are unique under concurrency: of 10 parallel creates with one prefix exactly one succeeds', async () => {
    const caller = await newCaller();
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => createProject(caller, { name: `Race ${i}`, prefix: 'RACE' })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as ValidationError).errors).toEqual(['prefix has already been taken']);
    const projects = await allProjects(caller);
    expect(projects).toHaveLength(1);
    expect(projects[0]?.prefix).toBe('RACE');
    expect(await projectsCount(caller.orgId)).toBe(1);
  });

  it('are unique under concurrency when several projects switch to the same prefix', async () => {
    const caller = await newCaller();
    const projects = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createProject(caller, { name: `M${i}`, prefix: `M${i}` })),
    );
    const results = await Promise.allSettled(projects.map((p) => updateProject(caller, p.id, { prefix: 'SAME' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const prefixes = (await allProjects(caller)).map((p) => p.prefix);
    expect(prefixes.filter((p) => p === 'SAME')).toHaveLength(1);
    // The losers kept their prefixes, and those are still guarded.
    for (const p of projects) {
      const now = await getProject(caller, p.id);
      if (now.prefix !== 'SAME') {
        expect(now.prefix).toBe(p.prefix);
        await expect(createProject(caller, { name: 'x', prefix: p.prefix })).rejects.toBeInstanceOf(ValidationError);
      }
    }
  });

  it('are freed by a delete and by a prefix change', async () => {
    const caller = await newCaller();
    const a = await createProject(caller, { name: 'A', prefix: 'FREE' });
    await deleteProject(caller, a.id);
    const b = await createProject(caller, { name: 'B', prefix: 'FREE' });
    await updateProject(caller, b.id, { prefix: 'MOVD' });
    expect((await createProject(caller, { name: 'C', prefix: 'FREE' })).prefix).toBe('FREE');
    expect(await getItem(keys.prefix(caller.orgId, 'MOVD'))).toMatchObject({ project_id: b.id });
  });

  it('stay consistent when a prefix change races a delete of the same project', async () => {
    const caller = await newCaller();
    const p = await createProject(caller, { name: 'Racy', prefix: 'OLDP' });
    // The prefix change commits between the delete's read of the project and its transaction.
    let raced = false;
    interceptSends(async (command) => {
      const items = transactItems(command);
      if (!raced && items.some((i) => i.Delete?.Key?.SK === keys.project(caller.orgId, p.id).SK)) {
        raced = true;
        vi.restoreAllMocks();
        await updateProject(caller, p.id, { prefix: 'NEWP' });
        interceptSends(() => undefined);
      }
    });
    await deleteProject(caller, p.id);
    vi.restoreAllMocks();
    expect(raced).toBe(true);
    await expect(getProject(caller, p.id)).rejects.toBeInstanceOf(NotFoundError);
    // Neither prefix may stay taken by a project that no longer exists.
    expect(await getItem(keys.prefix(caller.orgId, 'OLDP'))).toBeUndefined();
    expect(await getItem(keys.prefix(caller.orgId, 'NEWP'))).toBeUndefined();
    expect((await createProject(caller, { name: 'Again', prefix: 'NEWP' })).prefix).toBe('NEWP');
    expect(await projectsCount(caller.orgId)).toBe(1);
  });

  it('stay consistent when a prefix change races another prefix change of the same project', async () => {
    const caller = await newCaller();
    const p = await createProject(caller, { name: 'Twice', prefix: 'ONE' });
    let raced = false;
    interceptSends(async (command) => {
      const items = transactItems(command);
      if (!raced && items.some((i) => i.Put?.Item?.SK === keys.prefix(caller.orgId, 'TWO').SK)) {
        raced = true;
        vi.restoreAllMocks();
        await updateProject(caller, p.id, { prefix: 'THRE' });
        interceptSends(() => undefined);
      }
    });
    const result = await updateProject(caller, p.id, { prefix: 'TWO' });
    vi.restoreAllMocks();
    expect(raced).toBe(true);
    // The later change wins; the project was never "not found", and only its prefix stays guarded.
    expect(result.prefix).toBe('TWO');
    expect((await getProject(caller, p.id)).prefix).toBe('TWO');
    expect(await getItem(keys.prefix(caller.orgId, 'TWO'))).toMatchObject({ project_id: p.id });
    expect(await getItem(keys.prefix(caller.orgId, 'THRE'))).toBeUndefined();
    expect(await getItem(keys.prefix(caller.orgId, 'ONE'))).toBeUndefined();
  });
});

describe("another organisation's data", () => {
  it('is unreachable by id: the same id names a different project in each organisation', async () => {
    const a = await newCaller();
    const b = await newCaller();
    const pa = await createProject(a, { name: 'Of A', prefix: 'SAME' });
    const other = await createProject(a, { name: 'Of A too', prefix: 'TWO' });
    const pb = await createProject(b, { name: 'Of B', prefix: 'SAME' });
    expect(pb.id).toBe(pa.id);
    expect((await getProject(b, pa.id)).name).toBe('Of B');
    await expect(getProject(b, other.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(updateProject(b, other.id, { name: 'Hijacked' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(updateProject(b, other.id, { prefix: 'HIJ' })).rejects.toBeInstanceOf(NotFoundError);
    await expect(deleteProject(b, other.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(await getProject(a, other.id)).toEqual(other);
    expect((await allProjects(b)).map((p) => p.name)).toEqual(['Of B']);
    expect(await projectsCount(a.orgId)).toBe(2);
    expect(await projectsCount(b.orgId)).toBe(1);
    // B's failed prefix change to HIJ left no guard behind.
    expect(await getItem(keys.prefix(b.orgId, 'HIJ'))).toBeUndefined();
  });
});

describe('a failed write', () => {
  it('leaves nothing behind when the prefix is taken', async () => {
    const caller = await newCaller();
    const kept = await createProject(caller, { name: 'Kept', prefix: 'TAKN' });
    await expect(createProject(caller, { name: 'Loser', prefix: 'TAKN' })).rejects.toBeInstanceOf(ValidationError);
    // The loser's id was spent (a gap, never reused), but nothing was written under it.
    const next = await createProject(caller, { name: 'Next', prefix: 'NEXT' });
    expect(next.id).toBe(kept.id + 2);
    expect(await getItem(keys.project(caller.orgId, kept.id + 1))).toBeUndefined();
    expect(await getItem(keys.prefix(caller.orgId, 'TAKN'))).toMatchObject({ project_id: kept.id });
    expect(await projectsCount(caller.orgId)).toBe(2);
  });

  it('leaves the project, its prefix and the guards as they were when a prefix change is refused', async () => {
    const caller = await newCaller();
    const a = await createProject(caller, { name: 'A', prefix: 'AAA' });
    await createProject(caller, { name: 'B', prefix: 'BBB' });
    await expect(updateProject(caller, a.id, { prefix: 'BBB', name: 'Renamed' })).rejects.toBeInstanceOf(ValidationError);
    expect(await getProject(caller, a.id)).toEqual(a);
    expect(await getItem(keys.prefix(caller.orgId, 'AAA'))).toMatchObject({ project_id: a.id });
    await expect(createProject(caller, { name: 'C', prefix: 'AAA' })).rejects.toBeInstanceOf(ValidationError);
  });

  it('leaves no guard for a prefix change of a project that does not exist', async () => {
    const caller = await newCaller();
    await expect(updateProject(caller, 424242, { prefix: 'GHST' })).rejects.toBeInstanceOf(NotFoundError);
    expect(await getItem(keys.prefix(caller.orgId, 'GHST'))).toBeUndefined();
  });

  it('that DynamoDB cancels leaves no project, no prefix guard and an unchanged count', async () => {
    const caller = await newCaller();
    interceptSends((command) => {
      if (transactItems(command).length) {
        throw Object.assign(new Error('Transaction cancelled'), {
          name: 'TransactionCanceledException',
          CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
        });
      }
    });
    await expect(createProject(caller, { name: 'Doomed', prefix: 'DOOM' })).rejects.toThrow();
    vi.restoreAllMocks();
    expect(await allProjects(caller)).toEqual([]);
    expect(await projectsCount(caller.orgId)).toBe(0);
    expect((await createProject(caller, { name: 'Fine', prefix: 'DOOM' })).prefix).toBe('DOOM');
  });

  it('of an account with a taken e-mail leaves no account, no usable token and an unchanged count', async () => {
    const caller = await newCaller();
    const email = `dup-${tag()}@example.com`;
    await createAccountInOrg(caller.orgId, { name: 'First', email, role: 'member' });
    let tokenHash: string | undefined;
    interceptSends((command) => {
      for (const item of transactItems(command)) {
        const pk = item.Put?.Item?.PK;
        if (typeof pk === 'string' && pk.startsWith('TOKEN#')) tokenHash = pk.slice('TOKEN#'.length);
      }
    });
    await expect(
      createAccountInOrg(caller.orgId, { name: 'Second', email: email.toUpperCase(), role: 'admin' }),
    ).rejects.toBeInstanceOf(ValidationError);
    vi.restoreAllMocks();
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await getItem(keys.token(tokenHash!))).toBeUndefined();
    expect((await allAccounts(caller)).map((a) => a.name)).toEqual(['Admin', 'First']);
    expect(await accountsCount(caller.orgId)).toBe(2);
  });

  it('of an account in an organisation that does not exist leaves nothing, not even an id sequence', async () => {
    const { orgId } = await newCaller();
    const ghost = orgId + 1_000_000;
    await expect(
      createAccountInOrg(ghost, { name: 'Nobody', email: `n-${tag()}@example.com`, role: 'member' }),
    ).rejects.toMatchObject({
      errors: ['organisation does not exist'],
    });
    expect(await getItem(keys.sequences(ghost))).toBeUndefined();
    expect(await getItem(keys.org(ghost))).toBeUndefined();
  });

  it("of a token rotation that loses a race leaves the winner's token working", async () => {
    const org = await createOrganisation(`Org ${tag()}`, { name: 'Admin', email: `admin-${tag()}@example.com` });
    const { regenerateOwnToken, regenerateToken } = await import('../../lib/services/accounts.ts');
    const caller: Principal = {
      orgId: org.organisation.id,
      accountId: org.account.id,
      role: 'admin',
      tokenHash: hashToken(org.token),
    };
    // An admin-CLI rotation commits between the request's authentication and its own rotation.
    let cliToken: string | undefined;
    interceptSends(async (command) => {
      if (!cliToken && transactItems(command).length) {
        vi.restoreAllMocks();
        cliToken = await regenerateToken(caller.orgId, caller.accountId);
        interceptSends(() => undefined);
      }
    });
    await expect(regenerateOwnToken(caller)).rejects.toMatchObject({ status: 401 });
    vi.restoreAllMocks();
    expect((await authenticate({ Authorization: `Bearer ${cliToken}` })).principal.accountId).toBe(caller.accountId);
    await expect(authenticate({ Authorization: `Bearer ${org.token}` })).rejects.toMatchObject({ status: 401 });
  });
});

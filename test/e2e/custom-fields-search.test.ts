import { beforeAll, describe, expect, it } from 'vitest';
import { followPages, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';

/**
 * `cf.<key>:` in a search (docs/search.md#custom-fields), through the REST API: fields made with
 * `POST /api/v1/projects/{id}/fields`, issues written with `custom_fields` by key, and the search
 * (`GET /api/v1/issues?q=`, `POST /api/v1/issues/search`) answering exactly the issues each query
 * means. One key means each project's own field: `severity` is a select in one project and a text
 * in another; a third project has no fields at all. A key no project has matches nothing.
 */

const gateway = useGateway();

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function ok<T = any>(p: Promise<{ status: number; body: any }>): Promise<T> {
  const res = await p;
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

interface World {
  admin: ApiClient;
  member: ApiClient;
  ids: { admin: number; member: number };
  /** Issue ids by name. */
  issue: Record<string, number>;
  prefix: string;
}

let world: World;

beforeAll(async () => {
  const { admin, member, org } = await orgWithClients(gateway);
  const ids = { admin: org.admin.id, member: org.member.id };
  const project = async (name: string) => {
    const prefix = randomPrefix();
    return ok(admin.post('/api/v1/projects', { project: { name, prefix } }));
  };
  const [first, second, third] = [await project('Fields one'), await project('Fields two'), await project('Fields none')];
  const field = (projectId: number, body: Record<string, unknown>) =>
    ok(admin.post(`/api/v1/projects/${projectId}/fields`, { field: body }));
  await field(first.id, { name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high' }] });
  await field(first.id, { name: 'Tags', type: 'multi_select', options: [{ name: 'ui' }, { name: 'api' }] });
  await field(first.id, { name: 'Customer', type: 'text' });
  await field(first.id, { name: 'Estimate', type: 'number' });
  await field(first.id, { name: 'Release', type: 'date' });
  await field(first.id, { name: 'Owner', type: 'account' });
  await field(first.id, { name: 'Site', type: 'url' });
  await field(first.id, { name: 'Flag', type: 'checkbox' });
  // The same key, another type: a text field.
  await field(second.id, { name: 'Severity', type: 'text' });

  const issue: Record<string, number> = {};
  const create = async (name: string, projectId: number, customFields?: Record<string, unknown>) => {
    const made = await ok(
      admin.post(`/api/v1/projects/${projectId}/issues`, {
        issue: { title: `Issue ${name}`, ...(customFields ? { custom_fields: customFields } : {}) },
      }),
    );
    issue[name] = made.id;
  };
  await create('i1', first.id, {
    severity: 'high',
    tags: ['ui'],
    customer: 'Acme Corp',
    estimate: 3,
    release: day(2),
    owner: ids.admin,
    site: 'https://acme.example/x',
    flag: true,
  });
  await create('i2', first.id, {
    severity: 'low',
    tags: ['api', 'ui'],
    customer: 'Beta Ltd',
    estimate: 5.5,
    release: day(-10),
    owner: ids.member,
    flag: false,
  });
  await create('i3', first.id);
  await create('j1', second.id, { severity: 'very HIGH indeed' });
  await create('j2', second.id);
  await create('k1', third.id);
  world = { admin, member, ids, issue, prefix: first.prefix };
});

const names = (ids: number[]) =>
  ids
    .map((id) => Object.entries(world.issue).find(([, v]) => v === id)?.[0] ?? `other ${id}`)
    .sort()
    .join(' ');

async function found(q: string, client = world.admin): Promise<string> {
  const { items } = await followPages<{ id: number }>(client, `/api/v1/issues?q=${encodeURIComponent(q)}&per_page=100`);
  return names(items.map((i) => i.id));
}

describe('cf.<key>: in a search', () => {
  it('answers each query with exactly the issues it means, each project reading the key as its own field', async () => {
    const cases: [string, string][] = [
      ['cf.severity:high', 'i1 j1'],
      ['cf.SEVERITY:HIGH', 'i1 j1'],
      ['-cf.severity:low', 'i1 i3 j1 j2 k1'],
      ['has:cf.severity', 'i1 i2 j1'],
      // `no:` is of the issues whose project has the field; a negation is of every issue.
      ['no:cf.severity', 'i3 j2'],
      ['-has:cf.severity', 'i3 j2 k1'],
      ['cf.severity:low,high', 'i1 i2 j1'],
      [`cf.severity:high project:${world.prefix}`, 'i1'],
      ['cf.severity:high OR cf.tags:api', 'i1 i2 j1'],
      ['cf.tags:ui', 'i1 i2'],
      ['cf.tags:api', 'i2'],
      ['cf.customer:"Acme Corp"', 'i1'],
      ['cf.customer:acme', 'i1'],
      ['cf.estimate:3', 'i1'],
      ['cf.estimate:>3', 'i2'],
      ['cf.estimate:>=3', 'i1 i2'],
      ['cf.estimate:<5.5', 'i1'],
      ['cf.estimate:<=5.5', 'i1 i2'],
      ['cf.estimate:1..4', 'i1'],
      [`cf.release:${day(2)}`, 'i1'],
      ['cf.release:>-1d', 'i1'],
      ['cf.release:<-7d', 'i2'],
      [`cf.release:${day(-20)}..${day(0)}`, 'i2'],
      ['cf.owner:me', 'i1'],
      [`cf.owner:${world.ids.member}`, 'i2'],
      ['cf.site:acme.example', 'i1'],
      ['cf.site:"https://acme.example/x"', 'i1'],
      ['cf.flag:true', 'i1'],
      ['cf.flag:false', 'i2 i3'],
      ['has:cf.flag', 'i1'],
      ['cf.nokey:x', ''],
      ['-cf.nokey:x', 'i1 i2 i3 j1 j2 k1'],
    ];
    for (const [q, expected] of cases) expect(await found(q), q).toBe(expected);
    // `me` follows the caller.
    expect(await found('cf.owner:me', world.member)).toBe('i2');
  });

  it('answers the values by key, and the JSON form searches the same', async () => {
    const res = await world.admin.get(`/api/v1/issues?q=${encodeURIComponent('cf.estimate:>3')}`);
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(1);
    expect(res.body[0].custom_fields).toMatchObject({ severity: 'low', tags: ['ui', 'api'], estimate: 5.5, flag: false });
    const body = await world.admin.post('/api/v1/issues/search', { and: [{ cf: { key: 'estimate', gt: 3 } }] });
    expect(body.status).toBe(200);
    expect(body.body.map((i: { id: number }) => i.id)).toEqual([world.issue.i2]);
    const has = await world.admin.post('/api/v1/issues/search', {
      and: [{ not: { cf: { key: 'severity', has: true } } }, { cf: { key: 'flag', in: ['false'] } }],
    });
    expect(names(has.body.map((i: { id: number }) => i.id))).toBe('i3');
  });

  it('a query it cannot read is a 422 naming the place; a JSON form it cannot read names the path', async () => {
    const cases: [string, string][] = [
      ['cf.9x:1', "q: at 4: expected a custom field's key after 'cf.'"],
      ['cf.estimate:>abc', "q: at 13: expected a number or a date (YYYY-MM-DD, or a relative time such as -7d), got 'abc'"],
      ['cf.estimate:', "q: at 1: expected a value after 'cf.estimate:'"],
      ['stauts:todo', "q: at 1: unknown qualifier 'stauts'"],
    ];
    for (const [q, message] of cases) {
      const res = await world.admin.get(`/api/v1/issues?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(422);
      expect(res.body.errors[0]).toContain(message);
    }
    const body = await world.admin.post('/api/v1/issues/search', { and: [{ cf: { key: 'Severity', in: ['high'] } }] });
    expect(body.status).toBe(422);
    expect(body.body.errors.join(' ')).toContain('and.0.cf.key must be a field key');
    const typo = await world.admin.post('/api/v1/issues/search', { and: [{ cff: { key: 'severity', in: ['high'] } }] });
    expect(typo.status).toBe(422);
    expect(typo.body.errors.join(' ')).toContain("has an unknown field 'cff' (known: title, project");
    expect(typo.body.errors.join(' ')).toContain(', cf, not, and, or)');
  });
});

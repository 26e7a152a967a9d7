import { describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf, bounds, eventually } from '../support/eventually.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';

const gateway = useGateway();

async function orgWithProject() {
  const { org, admin, member } = await orgWithClients(gateway);
  const project = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const p = `/api/v1/projects/${project.id}`;
  return { org, admin, member, project, p, fields: `${p}/fields` };
}

const created = async (client: ApiClient, path: string, body: unknown) => {
  const res = await client.post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};

/** One field of every type, created in this order. */
const everyType = [
  { name: 'Customer', type: 'text' },
  { name: 'Estimate', type: 'number' },
  { name: 'Target date', type: 'date' },
  { name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high', color: '#B60205' }] },
  { name: 'Platforms', type: 'multi_select', options: [{ name: 'ios' }, { name: 'web' }, { name: 'android' }] },
  { name: 'Owner', type: 'account' },
  { name: 'Spec', type: 'url' },
  { name: 'Regression', type: 'checkbox' },
];

describe('custom field definitions', () => {
  it('creates, lists, reads, updates and deletes fields; members read them, only admins change them', async () => {
    const { admin, member, fields, project } = await orgWithProject();
    const made = [];
    for (const field of everyType) made.push(await created(admin, fields, { field }));
    expect(made.map((f) => f.key)).toEqual([
      'customer',
      'estimate',
      'target_date',
      'severity',
      'platforms',
      'owner',
      'spec',
      'regression',
    ]);
    const severity = made[3];
    expect(severity).toMatchObject({
      project_id: project.id,
      name: 'Severity',
      type: 'select',
      required: false,
      description: null,
      options: [
        { name: 'low', color: '#6b7280' },
        { name: 'high', color: '#b60205' },
      ],
    });
    expect((await member.get(fields)).body.map((f: { id: number }) => f.id)).toEqual(made.map((f) => f.id));
    expect((await member.get(`${fields}/${severity.id}`)).body).toEqual(severity);
    // Members read; only admins change (403), and a project they cannot see is 404 first.
    expect((await member.post(fields, { field: { name: 'Nope', type: 'text' } })).status).toBe(403);
    expect((await member.patch(`${fields}/${severity.id}`, { field: { name: 'Nope' } })).status).toBe(403);
    expect((await member.delete(`${fields}/${severity.id}`)).status).toBe(403);
    expect((await member.post('/api/v1/projects/999999999/fields', { field: { name: 'Nope', type: 'text' } })).status).toBe(404);

    const renamed = await admin.patch(`${fields}/${severity.id}`, {
      field: { name: 'Impact', description: 'How badly it hurts.', required: true },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    // Its key and type never change: a body sent back with them is taken, and they are ignored.
    expect(renamed.body).toMatchObject({ key: 'severity', type: 'select', name: 'Impact', required: true });
    const back = await admin.put(`${fields}/${severity.id}`, { field: { ...renamed.body, key: 'other', type: 'text' } });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ key: 'severity', type: 'select' });

    expect((await admin.delete(`${fields}/${made[0].id}`)).status).toBe(204);
    expect((await admin.get(`${fields}/${made[0].id}`)).status).toBe(404);
    expect((await admin.get(fields)).body).toHaveLength(7);
  });

  it('answers 422 naming each problem, and writes nothing', async () => {
    const { admin, fields } = await orgWithProject();
    await created(admin, fields, { field: { name: 'Severity', type: 'select', options: [{ name: 'low' }] } });
    const refused = async (body: unknown, ...messages: RegExp[]) => {
      const res = await admin.post(fields, body);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      for (const m of messages) expect(res.body.errors.join('\n')).toMatch(m);
    };
    await refused({ field: { name: 'severity', type: 'text' } }, /name: has already been taken/);
    await refused({ field: { name: 'Other', key: 'severity', type: 'text' } }, /key: 'severity' is already/);
    await refused({ field: { name: 'Other', key: 'Bad Key', type: 'text' } }, /key must be lower-case letters/);
    await refused({ field: { name: 'Other', type: 'colour' } }, /type must be one of: text, number, date/);
    await refused({ field: { name: 'Other', type: 'text', options: [{ name: 'a' }] } }, /only a select or multi_select/);
    await refused({ field: { name: 'Other', type: 'select', options: [{ name: 'a' }, { name: 'A' }] } }, /'A' is given twice/);
    await refused({ field: { name: 'Other', type: 'text', reqired: true } }, /unknown key 'reqired': did you mean 'required'\?/);
    await refused({ field: { name: '', type: 'text' } }, /name can't be blank/);
    expect((await admin.get(fields)).body).toHaveLength(1);
  });

  it('holds a project to 30 fields', async () => {
    const { admin, fields } = await orgWithProject();
    for (let i = 0; i < 30; i++) await created(admin, fields, { field: { name: `Field ${i}`, type: 'text' } });
    const res = await admin.post(fields, { field: { name: 'One more', type: 'text' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(['fields: a project may have at most 30 custom fields']);
  });
});

describe('custom field values on issues', () => {
  it('are written by key or name, validated by type, shown by key on every issue answer', async () => {
    const { admin, org, p, fields } = await orgWithProject();
    for (const field of everyType) await created(admin, fields, { field });
    const issue = await created(admin, `${p}/issues`, {
      issue: {
        title: 'Typed',
        custom_fields: {
          customer: 'Acme Corp',
          Estimate: 3.5,
          'target date': '2026-12-31',
          severity: 'HIGH',
          platforms: ['web', 'ios'],
          owner: org.member.id,
          spec: 'https://example.com/spec',
          regression: true,
        },
      },
    });
    const expected = {
      customer: 'Acme Corp',
      estimate: 3.5,
      target_date: '2026-12-31',
      severity: 'high',
      platforms: ['ios', 'web'],
      owner: org.member.id,
      spec: 'https://example.com/spec',
      regression: true,
    };
    expect(issue.custom_fields).toEqual(expected);
    // Every read shows them: by id in the backlog, by key, in a list.
    expect((await admin.get(`${p}/issues/${issue.id}`)).body.custom_fields).toEqual(expected);
    expect((await admin.get(`/api/v1/issues/${issue.issue_number}`)).body.custom_fields).toEqual(expected);
    expect((await admin.get(`${p}/issues`)).body[0].custom_fields).toEqual(expected);
    // A plain issue shows every field: null, a checkbox false.
    const plain = await created(admin, `${p}/issues`, { issue: { title: 'Plain' } });
    expect(plain.custom_fields).toEqual({
      customer: null,
      estimate: null,
      target_date: null,
      severity: null,
      platforms: null,
      owner: null,
      spec: null,
      regression: false,
    });
    // An update names only what it changes; null clears one.
    const updated = await admin.patch(`${p}/issues/${issue.id}`, {
      issue: { custom_fields: { estimate: null, severity: 'low' } },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.custom_fields).toEqual({ ...expected, estimate: null, severity: 'low' });
    // An issue read and sent back keeps its values.
    const read = (await admin.get(`${p}/issues/${issue.id}`)).body;
    const sentBack = await admin.put(`${p}/issues/${issue.id}`, { issue: read });
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
    expect(sentBack.body.custom_fields).toEqual(read.custom_fields);
  });

  it('refuses a wrong value with a 422 naming the field, what it takes and the nearest option, and writes nothing', async () => {
    const { admin, p, fields } = await orgWithProject();
    for (const field of everyType) await created(admin, fields, { field });
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'Kept', custom_fields: { severity: 'low' } } });
    const refused = async (custom_fields: unknown, ...messages: string[]) => {
      const res = await admin.patch(`${p}/issues/${issue.id}`, { issue: { custom_fields } });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.errors).toEqual(messages);
    };
    await refused(
      { severity: 'hgh' },
      "custom_fields.severity: 'hgh' is no option of Severity (did you mean 'high'?); options: low, high",
    );
    await refused(
      { sevrity: 'high' },
      "custom_fields: unknown field 'sevrity' (did you mean 'severity'?); fields: customer, estimate, target_date, severity, platforms, owner, spec, regression",
    );
    await refused(
      { estimate: 'three', target_date: '2026-02-30' },
      'custom_fields.estimate: must be a number between -1000000000000000 and 1000000000000000 or null (Estimate is a number field)',
      'custom_fields.target_date: must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists) or null (Target date is a date field)',
    );
    await refused(
      { spec: 'ftp://example.com' },
      expect.stringContaining('custom_fields.spec: must be an http or https URL') as never,
    );
    await refused({ owner: 999_999_999 }, 'custom_fields: an account field takes an account of this organisation');
    expect((await admin.get(`${p}/issues/${issue.id}`)).body).toEqual(issue);
  });

  it('holds required fields on create, and an update may not clear one', async () => {
    const { admin, p, fields } = await orgWithProject();
    await created(admin, fields, { field: { name: 'Team', type: 'text', required: true } });
    const missing = await admin.post(`${p}/issues`, { issue: { title: 'No team' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([`custom_fields.team: is required (Team: a string of at most 1000 characters)`]);
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'Team', custom_fields: { team: 'Core' } } });
    const cleared = await admin.patch(`${p}/issues/${issue.id}`, { issue: { custom_fields: { team: null } } });
    expect(cleared.status).toBe(422);
    // Other writes leave it alone.
    expect((await admin.patch(`${p}/issues/${issue.id}`, { issue: { title: 'Renamed' } })).status).toBe(200);
  });

  it('shows a renamed option at once; a deleted option or field is no longer shown, and its values go', async () => {
    const { admin, org, project, p, fields } = await orgWithProject();
    const severity = await created(admin, fields, { field: everyType[3] });
    const platforms = await created(admin, fields, { field: everyType[4] });
    const issue = await created(admin, `${p}/issues`, {
      issue: { title: 'Options', custom_fields: { severity: 'high', platforms: ['ios', 'web'] } },
    });
    const [low, high] = severity.options;
    const renamed = await admin.patch(`${fields}/${severity.id}`, {
      field: { options: [low, { ...high, name: 'critical' }] },
    });
    expect(renamed.body.options.map((o: { id: number }) => o.id)).toEqual([low.id, high.id]);
    const read = (await admin.get(`${p}/issues/${issue.id}`)).body;
    expect(read.custom_fields).toMatchObject({ severity: 'critical', platforms: ['ios', 'web'] });
    expect(read.version).toBe(issue.version);
    // The option list without 'web': it goes, and so does its value.
    await admin.patch(`${fields}/${platforms.id}`, { field: { options: [{ name: 'ios' }, { name: 'android' }] } });
    expect((await admin.get(`${p}/issues/${issue.id}`)).body.custom_fields.platforms).toEqual(['ios']);
    expect((await admin.delete(`${fields}/${severity.id}`)).status).toBe(204);
    expect((await admin.get(`${p}/issues/${issue.id}`)).body.custom_fields).toEqual({ platforms: ['ios'] });
    // The run's cascade consumer takes both off the stored issue: the field's value, the option's.
    const [web] = platforms.options.filter((o: { name: string }) => o.name === 'web');
    await eventually(
      'the cascades to settle the stored values',
      async () =>
        (await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, issue.id) }))).Item,
      (item) => {
        const values = (item?.custom_fields ?? {}) as Record<string, unknown>;
        return !(String(severity.id) in values) && !(values[String(platforms.id)] as number[]).includes(web.id);
      },
      bounds.cascade(),
    );
  });

  it('records each change with its values before and after, and a revert undoes it', async () => {
    const { admin, p, fields } = await orgWithProject();
    const severity = await created(admin, fields, { field: everyType[3] });
    const estimate = await created(admin, fields, { field: everyType[1] });
    const issue = await created(admin, `${p}/issues`, { issue: { title: 'History', custom_fields: { severity: 'low' } } });
    await admin.patch(`${p}/issues/${issue.id}`, { issue: { custom_fields: { severity: 'high', estimate: 8 } } });
    const [entry] = await activityOf(admin, `${p}/issues/${issue.id}`, 1, (e) => e.event === 'issue.updated');
    const [low, high] = severity.options;
    expect(entry.changes).toEqual([
      {
        field: 'custom_fields',
        from: { [severity.id]: low.id, [estimate.id]: null },
        to: { [severity.id]: high.id, [estimate.id]: 8 },
      },
    ]);
    const reverted = await admin.post(`/api/v1/activity/${entry.id}/revert`);
    expect(reverted.status, JSON.stringify(reverted.body)).toBe(200);
    expect((await admin.get(`${p}/issues/${issue.id}`)).body.custom_fields).toEqual({ severity: 'low', estimate: null });
  });

  it('filter the issue lists and the board with `fields`: custom field terms of the search language', async () => {
    const { admin, org, p, fields } = await orgWithProject();
    for (const field of everyType) await created(admin, fields, { field });
    const make = (title: string, custom_fields: Record<string, unknown>) =>
      created(admin, `${p}/issues`, { issue: { title, custom_fields } });
    const a = await make('A', { severity: 'high', estimate: 5, owner: org.admin.id });
    const b = await make('B', { severity: 'low', estimate: 2, platforms: ['web'] });
    const c = await make('C', {});
    const listed = async (fieldsQuery: string) => {
      const res = await admin.get(`${p}/issues?fields=${encodeURIComponent(fieldsQuery)}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.map((i: { id: number }) => i.id);
    };
    expect(await listed('cf.severity:high')).toEqual([a.id]);
    expect(await listed('cf.estimate:>3')).toEqual([a.id]);
    expect(await listed('-cf.severity:low')).toEqual([a.id, c.id]);
    expect(await listed('has:cf.severity')).toEqual([a.id, b.id]);
    expect(await listed('cf.platforms:web OR cf.owner:me')).toEqual([a.id, b.id]);
    // The backlog's board: each column counts and shows the matching issues.
    const board = await admin.get(`${p}/backlog/board?fields=${encodeURIComponent('cf.estimate:>=2')}`);
    expect(board.status, JSON.stringify(board.body)).toBe(200);
    const shownOnBoard = board.body.columns.flatMap((c: { issues: { id: number }[] }) => c.issues.map((i) => i.id));
    expect(shownOnBoard.sort()).toEqual([a.id, b.id].sort());
    expect(board.body.columns.reduce((n: number, c: { count: number }) => n + c.count, 0)).toBe(2);
    expect(board.body.complete).toBe(true);
    const other = await admin.get(`${p}/issues?fields=${encodeURIComponent('is:open')}`);
    expect(other.status).toBe(422);
    expect(other.body.errors[0]).toMatch(/^fields: takes custom field terms only/);
  });
});

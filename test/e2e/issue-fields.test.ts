import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { type ApiClient, followPages, nextLink, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { seedProject } from '../support/seed.ts';
import { activityOf } from '../support/eventually.ts';

/**
 * Priority, type and due date of an issue: validated on create and update, answered on every
 * representation (the defaults for issues written before they existed), and filtered on in the
 * sprint and backlog lists and in `GET /me/issues`, combined with AND with the other filters.
 */

const gateway = useGateway();

interface Shown {
  id: number;
  position: number;
  title: string;
  priority: string;
  type: string;
  due_date: string | null;
}

async function project(admin: ApiClient) {
  const p = (await admin.post('/api/v1/projects', { project: { name: 'Apollo', prefix: randomPrefix() } })).body;
  const sprints = `/api/v1/projects/${p.id}/sprints`;
  const sprint = (await admin.post(sprints, { sprint: { name: 'Sprint 1' } })).body;
  return { project: p, sprint, issues: `${sprints}/${sprint.id}/issues`, backlog: `/api/v1/projects/${p.id}/issues` };
}

const follow = (client: ApiClient, url: string) => followPages<Shown>(client, url);
const idsOf = (res: { items: { id: number }[] }) => res.items.map((i) => i.id);

const badDates = [
  '2026-02-30',
  '2025-02-29',
  '2026-13-01',
  '2026-1-01',
  '26-01-01',
  '20261231',
  '2026-12-31T00:00:00Z',
  '',
  'tomorrow',
];

describe('priority, type and due date of an issue', () => {
  it('default to none, task and null, and round-trip through create, PATCH and PUT on both issue routes and every read', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { issues, backlog } = await project(admin);
    for (const base of [issues, backlog]) {
      const plain = await admin.post(base, { issue: { title: 'plain' } });
      expect(plain.status).toBe(201);
      expect(plain.body).toMatchObject({ priority: 'none', type: 'task', due_date: null });

      const made = await admin.post(base, {
        issue: { title: 'full', priority: 'urgent', type: 'bug', due_date: '2028-02-29', assignee_id: org.admin.id },
      });
      expect(made.status).toBe(201);
      expect(made.body).toMatchObject({ priority: 'urgent', type: 'bug', due_date: '2028-02-29' });
      const path = `${base}/${made.body.id}`;
      expect((await admin.get(path)).body).toMatchObject({ priority: 'urgent', type: 'bug', due_date: '2028-02-29' });

      const patched = await admin.patch(path, { issue: { priority: 'low' } });
      expect(patched.status).toBe(200);
      // Only what is sent changes.
      expect(patched.body).toMatchObject({ priority: 'low', type: 'bug', due_date: '2028-02-29' });
      const put = await admin.put(path, { issue: { type: 'epic', due_date: null } });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ priority: 'low', type: 'epic', due_date: null });

      const read = (await admin.get(path)).body;
      expect(read).toMatchObject({ priority: 'low', type: 'epic', due_date: null });
      expect((await admin.get(`/api/v1/issues/${read.issue_number}`)).body).toMatchObject({ priority: 'low', type: 'epic' });
      const listed = (await admin.get(base)).body as Shown[];
      expect(listed.find((i) => i.id === made.body.id)).toMatchObject({ priority: 'low', type: 'epic', due_date: null });
      expect(listed.find((i) => i.id === plain.body.id)).toMatchObject({ priority: 'none', type: 'task', due_date: null });
    }
    const mine = (await admin.get('/api/v1/me/issues')).body as Shown[];
    expect(mine.map((i) => [i.priority, i.type, i.due_date])).toEqual([
      ['low', 'epic', null],
      ['low', 'epic', null],
    ]);
  });

  it("stores the issue's type beside the kind of item it is, never over it", async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { project: p, backlog } = await project(admin);
    const made = (await admin.post(backlog, { issue: { title: 'typed', type: 'epic' } })).body;
    await admin.patch(`${backlog}/${made.id}`, { issue: { type: 'bug' } });
    const stored = await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, p.id, made.id), ConsistentRead: true }),
    );
    expect(stored.Item).toMatchObject({ type: 'issue', issue_type: 'bug' });
    expect((await admin.get(`${backlog}/${made.id}`)).body.type).toBe('bug');
  });

  it('records each change in the activity history with from and to (the change feed, as webhooks carry it)', async () => {
    const { admin } = await orgWithClients(gateway);
    const { issues } = await project(admin);
    const made = (await admin.post(issues, { issue: { title: 'tracked' } })).body;
    const path = `${issues}/${made.id}`;
    await admin.patch(path, { issue: { priority: 'urgent', type: 'bug', due_date: '2027-05-01' } });
    await admin.patch(path, { issue: { due_date: null, priority: 'urgent' } });
    const entries = await activityOf<{ event: string; changes: unknown[] }>(admin, path, 3);
    expect(entries.map((e) => e.event)).toEqual(['issue.created', 'issue.updated', 'issue.updated']);
    expect(entries[1]?.changes).toEqual([
      { field: 'priority', from: 'none', to: 'urgent' },
      { field: 'type', from: 'task', to: 'bug' },
      { field: 'due_date', from: null, to: '2027-05-01' },
    ]);
    // A value sent again unchanged is no change.
    expect(entries[2]?.changes).toEqual([{ field: 'due_date', from: '2027-05-01', to: null }]);
  }, 90_000);

  it('keeps them when an issue moves between lists and when a sprint completion carries it to the backlog', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { project: p, sprint, issues, backlog } = await project(admin);
    const fields = { priority: 'high', type: 'story', due_date: '2027-01-15', assignee_id: org.admin.id };
    const moved = (await admin.post(issues, { issue: { title: 'moved', ...fields } })).body;
    const carried = (await admin.post(issues, { issue: { title: 'carried', ...fields } })).body;
    expect((await admin.patch(`${issues}/${moved.id}`, { issue: { sprint_id: null } })).body).toMatchObject(fields);
    expect((await admin.post(`/api/v1/projects/${p.id}/sprints/${sprint.id}/activate`)).status).toBe(200);
    expect((await admin.post(`/api/v1/projects/${p.id}/sprints/${sprint.id}/complete`)).status).toBe(200);
    expect((await admin.get(`${backlog}/${carried.id}`)).body).toMatchObject(fields);
    // The assignee's index entries were rewritten by both moves with the fields: still filtered right.
    const mine = await follow(admin, '/api/v1/me/issues?priority=high&type=story&due_after=2027-01-15');
    expect(idsOf(mine).sort()).toEqual([moved.id, carried.id].sort());
  });

  it('answers 422 {errors} naming the field for bad values, and writes nothing', async () => {
    const { admin } = await orgWithClients(gateway);
    const { issues, backlog } = await project(admin);
    const kept = (await admin.post(backlog, { issue: { title: 'kept', priority: 'high', type: 'bug', due_date: '2027-03-01' } }))
      .body;
    const bad: [Record<string, unknown>, string][] = [
      [{ priority: 'critical' }, 'priority must be one of: none, low, medium, high, urgent'],
      [{ priority: 'HIGH' }, 'priority must be one of: none, low, medium, high, urgent'],
      [{ priority: null }, 'priority must be one of: none, low, medium, high, urgent'],
      [{ priority: 3 }, 'priority must be one of: none, low, medium, high, urgent'],
      [{ type: 'feature' }, 'type must be one of: task, story, bug, epic'],
      [{ type: null }, 'type must be one of: task, story, bug, epic'],
      [{ type: ['bug'] }, 'type must be one of: task, story, bug, epic'],
      ...badDates.map((d): [Record<string, unknown>, string] => [
        { due_date: d },
        'due_date must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)',
      ]),
      [{ due_date: 20261231 }, 'due_date must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)'],
    ];
    for (const [fields, message] of bad) {
      for (const base of [issues, backlog]) {
        const created = await admin.post(base, { issue: { title: 'refused', ...fields } });
        expect(created.status, JSON.stringify(fields)).toBe(422);
        expect(created.body, JSON.stringify(fields)).toEqual({ errors: [message] });
      }
      const patched = await admin.patch(`${backlog}/${kept.id}`, { issue: { title: 'changed', ...fields } });
      expect(patched.status, JSON.stringify(fields)).toBe(422);
      expect(patched.body.errors, JSON.stringify(fields)).toEqual([message]);
    }
    // Nothing written: no refused issue in either list, the kept one unchanged.
    expect((await admin.get(backlog)).body.map((i: Shown) => i.title)).toEqual(['kept']);
    expect((await admin.get(issues)).body).toEqual([]);
    expect((await admin.get(`${backlog}/${kept.id}`)).body).toEqual({ ...kept, position: 1 });
    // Every problem at once.
    const many = await admin.post(backlog, { issue: { title: 'x', priority: 'p', type: 't', due_date: '2026-02-30' } });
    expect(many.body.errors).toHaveLength(3);
  });

  it('answers the defaults for issues written before these fields existed, and the filters treat them so', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { project: p, backlog } = await project(admin);
    const seeded = await seedProject(org.orgId, p.id, org.admin.id, {
      sprints: 0,
      issuesPerSprint: 0,
      backlog: 3,
      commentsPerIssue: 0,
    });
    const old = seeded.issues.get(null) ?? [];
    const read = (await admin.get(`${backlog}/${old[0]}`)).body;
    expect(read).toMatchObject({ priority: 'none', type: 'task', due_date: null });
    expect(idsOf(await follow(admin, `${backlog}?priority=none&type=task`))).toEqual(old);
    expect(idsOf(await follow(admin, `${backlog}?priority=low`))).toEqual([]);
    expect(idsOf(await follow(admin, `${backlog}?due_before=2999-01-01`))).toEqual([]);
    // Changed once: from the default.
    expect((await admin.patch(`${backlog}/${old[1]}`, { issue: { priority: 'medium' } })).body).toMatchObject({
      priority: 'medium',
      type: 'task',
    });
    expect(idsOf(await follow(admin, `${backlog}?priority=medium`))).toEqual([old[1]]);
  });
});

describe('filters on priority, type and due date', () => {
  const spec = [
    { title: 'Login page broken', status: 'todo', priority: 'urgent', type: 'bug', due_date: '2027-03-01', mine: true },
    { title: 'Fix LOGIN timeout', status: 'in_progress', priority: 'high', type: 'bug', due_date: '2027-03-10', mine: false },
    { title: 'Write docs', status: 'todo', priority: 'low', type: 'task', due_date: null, mine: true },
    { title: 'Release notes', status: 'done', priority: 'high', type: 'story', due_date: '2027-02-28', mine: true },
    { title: 'login epic', status: 'todo', priority: 'none', type: 'epic', due_date: '2027-03-31', mine: false },
  ];

  async function listed(admin: ApiClient, base: string, accountId: number) {
    const made: { id: number }[] = [];
    for (const { mine, ...issue } of spec) {
      made.push((await admin.post(base, { issue: { ...issue, assignee_id: mine ? accountId : null } })).body);
    }
    return (...k: number[]) => k.map((i) => made[i]?.id);
  }

  it('filter the sprint and backlog lists alone and combined with status, assignee and q, with places in the whole list', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { issues, backlog } = await project(admin);
    for (const base of [issues, backlog]) {
      const at = await listed(admin, base, org.admin.id);
      const ids = async (query: string) => idsOf(await follow(admin, `${base}?${query}`));

      const urgent = await follow(admin, `${base}?priority=urgent,high`);
      expect(idsOf(urgent)).toEqual(at(0, 1, 3));
      expect(urgent.items.map((i) => i.position)).toEqual([1, 2, 4]);
      expect(urgent.total).toBe(3);
      expect(await ids('priority=none')).toEqual(at(4));
      expect(await ids('type=bug')).toEqual(at(0, 1));
      expect(await ids('type=story,epic,task')).toEqual(at(2, 3, 4));
      // Both bounds inclusive; an issue without a due date matches neither.
      expect(await ids('due_before=2027-03-01')).toEqual(at(0, 3));
      expect(await ids('due_after=2027-03-10')).toEqual(at(1, 4));
      expect(await ids('due_after=2027-03-01&due_before=2027-03-10')).toEqual(at(0, 1));
      expect(await ids('due_after=2027-03-02&due_before=2027-03-09')).toEqual([]);
      expect(await ids('due_after=2000-01-01')).toEqual(at(0, 1, 3, 4));

      expect(await ids('priority=high&type=bug')).toEqual(at(1));
      expect(await ids('type=bug&status=todo')).toEqual(at(0));
      expect(await ids(`priority=urgent,high,low&assignee_id=${org.admin.id}`)).toEqual(at(0, 2, 3));
      expect(await ids('q=login&type=bug,epic&due_before=2027-03-15')).toEqual(at(0, 1));
      expect(await ids(`q=login&priority=high,urgent&status=todo&assignee_id=${org.admin.id}&due_after=2027-01-01`)).toEqual(
        at(0),
      );
      expect(await ids('assignee_id=none&priority=low')).toEqual([]);
    }
  });

  it('filter /me/issues alone and combined with status, newest update first, within its call budget', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { issues, backlog } = await project(admin);
    const inSprint = await listed(admin, issues, org.admin.id);
    const inBacklog = await listed(admin, backlog, org.admin.id);
    // Newest update first: the backlog's (made last) first, each list newest first.
    const newest = (...k: number[]) => [...inBacklog(...k), ...inSprint(...k)].reverse().sort((a, b) => Number(b) - Number(a));
    const ids = async (query: string) => idsOf(await follow(admin, `/api/v1/me/issues?${query}`));

    expect(await ids('priority=urgent,high')).toEqual(newest(0, 3));
    expect(await ids('type=task')).toEqual(newest(2));
    expect(await ids('due_before=2027-03-01')).toEqual(newest(0, 3));
    expect(await ids('due_after=2027-03-01')).toEqual(newest(0));
    expect(await ids('priority=high&status=done')).toEqual(newest(3));
    expect(await ids('priority=high&type=story&status=todo')).toEqual([]);
    const page = await admin.get('/api/v1/me/issues?priority=urgent&type=bug');
    expect(page.body.map((i: Shown) => i.position).sort()).toEqual([1, 1]);
    const plain = await admin.get('/api/v1/me/issues');
    // The entries carry what is filtered on: a filtered page costs what an unfiltered one does.
    expect(page.dbCalls).toBeLessThanOrEqual(plain.dbCalls);
    expect(page.dbCalls).toBeLessThanOrEqual(5);
  });

  it('answer 422 {errors} to hostile values on the sprint list, the backlog and /me/issues', async () => {
    const { admin } = await orgWithClients(gateway);
    const { issues, backlog } = await project(admin);
    await admin.post(backlog, { issue: { title: 'x' } });
    const hostile = [
      'priority=',
      'priority=critical',
      'priority=high,,low',
      'priority=HIGH',
      'priority=high;drop',
      'priority=high,',
      'type=',
      'type=feature',
      'type=bug,Bug',
      "type=bug' OR 1=1",
      ...badDates.map((d) => `due_before=${encodeURIComponent(d)}`),
      ...badDates.map((d) => `due_after=${encodeURIComponent(d)}`),
      'due_before=1700000000',
      'priority=high&page=2',
    ];
    for (const query of hostile) {
      for (const base of [issues, backlog, '/api/v1/me/issues']) {
        const res = await admin.get(`${base}?${query}`);
        expect(res.status, `${base}?${query}`).toBe(422);
        expect(res.body.errors, `${base}?${query}`).toEqual([expect.any(String)]);
      }
    }
    expect((await admin.get(`${backlog}?priority=critical`)).body.errors).toEqual([
      'priority must be one or more of none, low, medium, high, urgent, separated by commas',
    ]);
    expect((await admin.get(`${backlog}?type=feature`)).body.errors).toEqual([
      'type must be one or more of task, story, bug, epic, separated by commas',
    ]);
    expect((await admin.get(`${backlog}?due_before=2026-02-30`)).body.errors).toEqual([
      'due_before must be a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)',
    ]);
    // A misspelt filter is refused, not ignored.
    expect((await admin.get(`${backlog}?priorities=high`)).status).toBe(422);
    expect((await admin.get('/api/v1/me/issues?due=2027-01-01')).status).toBe(422);
  });

  it('page a filtered list by cursor with the filters in the links, X-Total-Count exact on the last page', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const { backlog } = await project(admin);
    const priorities = ['none', 'low', 'medium', 'high', 'urgent'];
    for (let i = 0; i < 30; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          admin.post(backlog, {
            issue: {
              title: `I${i + k}`,
              priority: priorities[(i + k) % 5],
              type: (i + k) % 2 === 0 ? 'bug' : 'task',
              due_date: `2027-01-${String(((i + k) % 28) + 1).padStart(2, '0')}`,
              assignee_id: org.admin.id,
            },
          }),
        ),
      );
    }
    const all = (await admin.get(`${backlog}?per_page=100`)).body as Shown[];
    const expected = all
      .map((i, k) => ({ ...i, position: k + 1 }))
      .filter((i) => ['high', 'urgent'].includes(i.priority) && i.type === 'bug' && (i.due_date ?? '') <= '2027-01-20');
    const query = 'priority=high,urgent&type=bug&due_before=2027-01-20&per_page=2';
    const first = await admin.get(`${backlog}?${query}`);
    const link = first.headers.get('link') ?? '';
    for (const kept of ['priority=high%2Curgent', 'type=bug', 'due_before=2027-01-20']) expect(link).toContain(kept);
    expect(link).not.toContain('rel="last"');
    expect(nextLink(first)).toContain('cursor=');
    const walked = await follow(admin, `${backlog}?${query}`);
    expect(walked.items.map((i) => [i.id, i.position])).toEqual(expected.map((i) => [i.id, i.position]));
    expect(walked.total).toBe(expected.length);
    expect(walked.pages).toBe(Math.ceil(expected.length / 2));
    expect(expected.length).toBeGreaterThan(2);

    const mine = await follow(admin, `/api/v1/me/issues?${query}`);
    expect(idsOf(mine).sort()).toEqual(expected.map((i) => i.id).sort());
    expect(mine.total).toBe(expected.length);
  });
});

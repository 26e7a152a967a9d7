import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  issueComparator,
  matches,
  parseSelection,
  printSelection,
  type SelectableIssue,
  type Selection,
} from '../../lib/model/selection.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../lib/db/core/client.ts';
import { recordItem } from '../../lib/db/issues/issue-write.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { MAX_BLOCKS } from '../../lib/services/relations.ts';
import { SEARCH_SCAN } from '../../lib/db/issues/search.ts';
import { pool } from '../support/pool.ts';
import { putAll } from '../support/seed.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { apiClient, type ApiClient, followPages, nextLink, orgWithClients, randomPrefix, useGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';

/**
 * The search of an organisation (`GET /api/v1/issues?q=`, `POST /api/v1/issues/search`;
 * docs/search.md) against a brute-force evaluation: an organisation with three projects, each with
 * an active, a planned and a completed sprint and a backlog, and issues whose every field varies;
 * for a generated set of queries (each qualifier alone, negated, OR lists, combinations, every
 * sort, and OR / AND / NOT / parentheses) the answer, every page followed, must be exactly the issues the evaluator selects among
 * all the organisation's issues fetched through the lists, in the order of the query. Another
 * organisation's issues never appear; `@me` follows the caller.
 */

const gateway = useGateway();

interface Seeded {
  orgId: number;
  admin: ApiClient;
  member: ApiClient;
  ids: { admin: number; member: number };
  prefixes: string[];
  /** Every issue of the organisation as the lists show it, with its author. */
  issues: SelectableIssue[];
  activeSprintIds: Set<number>;
  sprintIds: { active: number; planned: number; completed: number }[];
  otherOrgNumbers: Set<string>;
  parentId: number;
}

const STATUSES = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'] as const;
const PRIORITIES = ['none', 'low', 'medium', 'high', 'urgent'] as const;
const TYPES = ['task', 'story', 'bug', 'epic'] as const;
const WORDS = ['Login page', 'Sign in flow', 'Billing export', 'login timeout', 'Dark mode', 'Search box'];
const LABELS = ['bug', 'ui', 'Good First'];

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function ok<T = any>(p: Promise<{ status: number; body: any; text?: string }>): Promise<T> {
  const res = await p;
  if (res.status >= 300) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body as T;
}

async function seed(): Promise<Seeded> {
  const { admin, member, org } = await orgWithClients(gateway);
  const ids = { admin: org.admin.id, member: org.member.id };
  const prefixes: string[] = [];
  const authors = new Map<number, number>();
  const sprintIds: Seeded['sprintIds'] = [];
  const listPaths: string[] = [];
  let n = 0;
  let parentId = 0;
  for (let p = 0; p < 3; p++) {
    const prefix = randomPrefix();
    const project = await ok(admin.post('/api/v1/projects', { project: { name: `Search ${p}`, prefix } }));
    prefixes.push(project.prefix);
    const base = `/api/v1/projects/${project.id}`;
    for (const name of LABELS) await ok(admin.post(`${base}/labels`, { label: { name } }));
    const sprint = (name: string) => ok(admin.post(`${base}/sprints`, { sprint: { name } }));
    const [completed, active, planned] = [await sprint('Done'), await sprint('Now'), await sprint('Next')];
    const create = async (list: string, i: number) => {
      const client = i % 3 === 0 ? member : admin;
      const issue = await ok(
        client.post(list, {
          issue: {
            title: `${WORDS[i % WORDS.length]} ${n}`,
            status: STATUSES[i % STATUSES.length],
            priority: PRIORITIES[(i * 3) % PRIORITIES.length],
            type: TYPES[(i + p) % TYPES.length],
            story_points: i % 4 === 0 ? null : (i * 2) % 9,
            assignee_id: i % 3 === 0 ? null : i % 3 === 1 ? ids.admin : ids.member,
            due_date: i % 5 === 0 ? null : day((i % 7) - 3),
            labels: LABELS.filter((_, l) => (i >> l) & 1),
          },
        }),
      );
      n++;
      authors.set(issue.id, client === member ? ids.member : ids.admin);
      return issue;
    };
    const backlog = `${base}/issues`;
    const lists = [
      `${base}/sprints/${completed.id}/issues`,
      `${base}/sprints/${active.id}/issues`,
      `${base}/sprints/${planned.id}/issues`,
      backlog,
    ];
    const made: any[] = [];
    for (let i = 0; i < 16; i++) made.push(await create(lists[i % lists.length] as string, i + p));
    // Parents and blockers inside the project.
    const parent = made[3];
    parentId ||= parent.id;
    const pathOf = (issue: { id: number; sprint_id: number | null }) =>
      issue.sprint_id === null ? `${backlog}/${issue.id}` : `${base}/sprints/${issue.sprint_id}/issues/${issue.id}`;
    for (const child of [made[7], made[11]]) await ok(admin.patch(pathOf(child), { issue: { parent_id: parent.id } }));
    // An open blocker and a closed one.
    await ok(
      admin.post(`/api/v1/issues/${made[1].issue_number}/relations`, {
        relation: { type: 'blocks', issue_key: made[5].issue_number },
      }),
    );
    await ok(
      admin.post(`/api/v1/issues/${made[4].issue_number}/relations`, {
        relation: { type: 'blocks', issue_key: made[6].issue_number },
      }),
    );
    await ok(admin.post(`${base}/sprints/${completed.id}/activate`, {}));
    await ok(admin.post(`${base}/sprints/${completed.id}/complete`, {}));
    await ok(admin.post(`${base}/sprints/${active.id}/activate`, {}));
    sprintIds.push({ active: active.id, planned: planned.id, completed: completed.id });
    listPaths.push(...lists);
  }
  const issues: SelectableIssue[] = [];
  const prefixOf = new Map<number, string>();
  for (const path of listPaths) {
    for (const issue of (await followPages(admin, `${path}?per_page=100`)).items) {
      const projectId = Number(/projects\/(\d+)/.exec(path)?.[1]);
      if (!prefixOf.has(projectId)) prefixOf.set(projectId, String(issue.issue_number).split('-')[0] as string);
      issues.push({
        id: issue.id,
        title: issue.title,
        project_prefix: String(issue.issue_number).split('-')[0] as string,
        sprint_id: issue.sprint_id,
        status: issue.status,
        assignee_id: issue.assignee_id,
        author_id: authors.get(issue.id) as number,
        labels: issue.labels.map((l: { name: string }) => l.name),
        priority: issue.priority,
        type: issue.type,
        parent_id: issue.parent_id,
        story_points: issue.story_points,
        created_at: issue.created_at,
        updated_at: issue.updated_at,
        due_date: issue.due_date,
        blocked: issue.blocked,
      });
    }
  }
  // Another organisation, with issues of the same titles and labels.
  const other = await orgWithClients(gateway);
  const op = await ok(other.admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } }));
  await ok(other.admin.post(`/api/v1/projects/${op.id}/labels`, { label: { name: 'bug' } }));
  const otherOrgNumbers = new Set<string>();
  for (const title of WORDS) {
    const issue = await ok(
      other.admin.post(`/api/v1/projects/${op.id}/issues`, {
        issue: { title, labels: ['bug'], assignee_id: other.org.admin.id },
      }),
    );
    otherOrgNumbers.add(issue.issue_number);
  }
  return {
    orgId: org.orgId,
    admin,
    member,
    ids,
    prefixes,
    issues,
    activeSprintIds: new Set(sprintIds.map((s) => s.active)),
    sprintIds,
    otherOrgNumbers,
    parentId,
  };
}

let world: Seeded;
beforeAll(async () => {
  world = await seed();
}, 120_000);

/** What the evaluator selects among all issues, in the query's order. */
function expected(selection: Selection, me: number): number[] {
  const context = { me, now: new Date(), activeSprintIds: world.activeSprintIds };
  return world.issues
    .filter((issue) => matches(selection, issue, context))
    .sort(issueComparator(selection.sort))
    .map((i) => i.id);
}

async function search(client: ApiClient, q: string, perPage = 7) {
  return followPages<{ id: number; issue_number: string }>(
    client,
    `/api/v1/issues?q=${encodeURIComponent(q)}&per_page=${perPage}`,
  );
}

/** The queries checked: every qualifier alone, negated, OR lists, combinations, every sort. */
function queries(): string[] {
  const [a, b] = world.prefixes as [string, string];
  const s = world.sprintIds[0] as Seeded['sprintIds'][number];
  const single = [
    '',
    'login',
    '"sign in"',
    'LOGIN page',
    `project:${a}`,
    `project:${a},${b}`,
    'sprint:active',
    `sprint:${s.planned}`,
    `sprint:${s.completed}`,
    'sprint:none',
    'no:sprint',
    'status:todo,in_progress',
    'status:done',
    'is:open',
    'is:closed',
    'is:blocked',
    'assignee:@me',
    `assignee:${world.ids.member}`,
    'no:assignee',
    'author:@me',
    `author:${world.ids.member}`,
    'label:bug',
    'label:ui,"good first"',
    'no:label',
    'priority:high,urgent',
    'priority:>=medium',
    'priority:low..high',
    'type:bug',
    'type:story,epic',
    `parent:${world.parentId}`,
    'no:parent',
    'points:3',
    'points:>=4',
    'points:<3',
    'points:1..5',
    'no:points',
    'created:>-1d',
    `created:${day(0)}`,
    'created:<-1d',
    'updated:>-1h',
    `updated:${day(0)}..${day(1)}`,
    'updated:<-2d',
    'due:<+0d',
    'due:+0d..+3d',
    `due:${day(1)}`,
    'no:due',
  ];
  const negated = single.filter((q) => q !== '').map((q) => `-${q}`);
  const combined = [
    'is:open type:bug assignee:@me updated:>-7d',
    `project:${a} sprint:active is:open`,
    'no:assignee priority:>=high is:open',
    'is:open due:<+0d sort:due-asc',
    'is:open due:+0d..+7d sort:due-asc',
    'login type:bug -label:ui',
    '"sign in" sprint:none',
    'author:@me -is:closed',
    'is:blocked status:todo,in_progress,backlog',
    `parent:${world.parentId} -status:done,cancelled`,
    `project:${a},${b} label:bug,ui -no:points`,
    '-sprint:active -no:sprint',
    'label:bug label:ui',
  ];
  const sorts = ['created', 'updated', 'priority', 'due', 'points'].flatMap((f) => [`is:open sort:${f}-asc`, `sort:${f}-desc`]);
  // OR, AND, NOT and parentheses as GitHub's advanced search spells them; AND binds tighter than OR.
  const grouped = [
    'type:bug OR type:story',
    '(label:bug OR label:ui) is:open',
    'NOT label:bug',
    '-(label:bug OR label:ui)',
    `project:${a} OR sprint:active`,
    'is:open type:bug OR is:closed type:story',
    'type:bug AND is:open OR type:epic AND -is:open',
    'NOT (sprint:active OR no:sprint)',
    'assignee:@me OR author:@me',
    '(priority:>=high OR is:blocked) -no:due sort:due-asc',
    'updated:>-1h OR no:points',
    '(updated:>-1h is:open) OR type:epic sort:priority-desc',
    'login OR "sign in" OR billing',
    'type:bug AND (label:ui OR NOT label:bug)',
    `(parent:${world.parentId} OR is:blocked) is:open`,
    'type:bug OR type:story sort:created-asc',
    `-(project:${a} (is:open OR no:assignee)) -(type:task OR (points:>=4 label:"good first"))`,
  ];
  return [...single, ...negated, ...combined, ...sorts, ...grouped];
}

describe('search', () => {
  it('answers every query exactly as a brute-force evaluation of all the organisation’s issues, pages followed', async () => {
    expect(world.issues.length).toBeGreaterThanOrEqual(48);
    const failures: string[] = [];
    let answered = 0;
    // A query that does not name @me answers the same to any admin of the organisation: another
    // admin asks those, with a token of its own (each token has its own rate-limit bucket, and
    // the queries, a few at once, are more pages than one token's burst).
    const tag = Math.random().toString(36).slice(2);
    const asker = await createAccountInOrg(world.orgId, { name: 'Asker', email: `asker-${tag}@example.com`, role: 'admin' });
    const anyAdmin = apiClient(gateway.baseUrl, asker.token);
    const asked = queries().flatMap((q) =>
      (
        [
          [q.includes('@me') ? world.admin : anyAdmin, world.ids.admin],
          [world.member, world.ids.member],
        ] as const
      )
        .filter(([, me]) => me !== world.ids.member || q.includes('@me'))
        .map(([client, me]) => ({ q, client, me })),
    );
    // Each query's pages one after another, a few queries at once: they only read.
    await pool(asked.length, 4, async (i) => {
      const { q, client, me } = asked[i]!;
      const found = (await search(client, q)).items;
      const got = found.map((issue) => issue.id);
      const want = expected(parseSelection(q), me);
      // Not trivially equal: most queries select some issues but not all.
      if (want.length > 0 && want.length < world.issues.length) answered++;
      if (JSON.stringify(got) !== JSON.stringify(want))
        failures.push(`${q} (as ${me}): got ${got.join(',')}, want ${want.join(',')}`);
      if (found.some((issue) => world.otherOrgNumbers.has(issue.issue_number)))
        failures.push(`${q}: another organisation's issue`);
    });
    expect(failures.sort()).toEqual([]);
    expect(answered).toBeGreaterThan(queries().length * 0.7);
  }, 60_000);

  it('follows the caller: @me is the admin for the admin and the member for the member', async () => {
    const mine = (await search(world.member, 'assignee:@me', 100)).items.map((i) => i.id);
    const theirs = (await search(world.admin, 'assignee:@me', 100)).items.map((i) => i.id);
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
    expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
  });

  it('answers the JSON form as the query string, with the next link in the GET form', async () => {
    const q = 'is:open label:bug,ui sort:updated-desc';
    const selection = parseSelection(q);
    const first = await world.admin.post('/api/v1/issues/search', { ...selection, per_page: 3 });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(3);
    const next = nextLink(first);
    expect(next).toContain(`q=${encodeURIComponent(printSelection(selection)).replace(/%20/g, '+')}`);
    const rest = await followPages<{ id: number }>(world.admin, next as string);
    expect([...first.body, ...rest.items].map((i: { id: number }) => i.id)).toEqual(expected(selection, world.ids.admin));
    expect(first.body[0]).toMatchObject({
      project_id: expect.any(Number),
      issue_number: expect.any(String),
      position: expect.any(Number),
      labels: expect.any(Array),
    });
    expect(Object.keys(first.body[0])).toContain('sprint_id');
  });

  it('answers OR, NOT and groups in the JSON form as in the query string', async () => {
    const q = '(label:bug OR label:ui) -(type:bug OR no:assignee) sort:created-asc';
    const selection = parseSelection(q);
    expect(selection.and[0]).toEqual({ or: [{ label: { in: ['bug'] } }, { label: { in: ['ui'] } }] });
    const want = expected(selection, world.ids.admin);
    expect(want.length).toBeGreaterThan(0);
    const first = await world.admin.post('/api/v1/issues/search', { ...selection, per_page: 2 });
    expect(first.status).toBe(200);
    const next = nextLink(first);
    expect(new URL(next!, gateway.baseUrl).searchParams.get('q')).toBe(q);
    const rest = (await followPages<{ id: number }>(world.admin, next!)).items;
    expect([...first.body, ...rest].map((i: { id: number }) => i.id)).toEqual(want);
    const lonely = await world.admin.post('/api/v1/issues/search', { and: [{ or: [{ is: 'open' }] }] });
    expect(lonely.status).toBe(422);
    expect(lonely.body.errors).toEqual(['and.0.or must hold at least 2 conditions (one condition needs no "or")']);
  });

  it('refuses a query it cannot read with a 422 naming the place and what was expected, and a bad JSON selection or cursor', async () => {
    const cases: [string, string][] = [
      ['is:open status:', "q: at 9: expected a value after 'status:'"],
      ['stauts:todo', 'q: at 1: unknown qualifier'],
      ['label:bug,', "q: at 10: expected a value after ','"],
      ['"sign in', 'q: at 1: unterminated quote'],
      ['points:5..1', 'q: at 8: the range'],
      ['type:bug OR', "q: at 10: expected a term after 'OR'"],
      ['(type:bug OR type:story', "q: at 1: unclosed '('"],
      ['OR', "q: at 1: expected a term before 'OR'"],
    ];
    for (const [q, message] of cases) {
      const res = await world.admin.get(`/api/v1/issues?q=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(422);
      expect(res.body.errors[0]).toContain(message);
    }
    const body = await world.admin.post('/api/v1/issues/search', { and: [{ category: { in: ['tdo'] } }] });
    expect(body.status).toBe(422);
    expect(body.body.errors.join(' ')).toContain('and.0.category.in.0');
    // A state no project has: the search says so, naming the states there are.
    const state = await world.admin.post('/api/v1/issues/search', { and: [{ status: { in: ['tdo'] } }] });
    expect(state.status).toBe(422);
    expect(state.body.errors).toEqual([
      "status: no project has a state named 'tdo' (known: backlog, todo, in_progress, done, cancelled)",
    ]);
    const extra = await world.admin.post('/api/v1/issues/search', { and: [], filter: 1 });
    expect(extra.status).toBe(422);
    const cursor = await world.admin.get('/api/v1/issues?q=is:open&cursor=bm90IGEgY3Vyc29y');
    expect(cursor.status).toBe(422);
    const page = await world.admin.get('/api/v1/issues?q=is:open&page=2');
    expect(page.status).toBe(422);
    const unknown = await world.admin.get('/api/v1/issues?query=is:open');
    expect(unknown.status).toBe(422);
  });
});

describe('search bound', () => {
  it(`looks through at most ${SEARCH_SCAN} records a page, and sorts other than by update only what fits in one read`, async () => {
    const { admin, org } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Big', prefix: randomPrefix() } }));
    // 1,200 search records straight into the partition (as the derivation writes them): 600 from 2020, 600 from now on.
    const records = Array.from({ length: 1200 }, (_, i) =>
      recordItem({
        kind: 'search',
        orgId: org.orgId,
        projectId: project.id,
        issueId: 10_000 + i,
        number: `${project.prefix}-${i + 1}`,
        title: `Bulk ${i}`,
        sprintId: null,
        position: (i + 1) * 1024,
        status: 'todo',
        priority: (['none', 'low', 'medium', 'high', 'urgent'] as const)[i % 5] as 'none',
        type: 'task',
        labelIds: [],
        assigneeId: null,
        authorId: org.admin.id,
        storyPoints: i % 8,
        dueDate: null,
        parentId: null,
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt:
          i < 600
            ? `2020-06-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`
            : new Date(Date.now() - i).toISOString(),
        sourceKey: null,
      }),
    );
    await putAll(records);

    // Nothing matches: each page looks through its bound and answers what it found (nothing) and where to go on.
    const none = await admin.get('/api/v1/issues?q=zzzz');
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    expect(nextLink(none)).toBeDefined();
    const all = await followPages(admin, '/api/v1/issues?q=zzzz');
    expect(all).toMatchObject({ items: [], pages: 2, total: 0 });
    // Everything, newest first, 100 a page.
    const every = await followPages<{ id: number; updated_at: string }>(admin, '/api/v1/issues?per_page=100');
    expect(every.items).toHaveLength(1200);
    expect(every.items.map((i) => i.updated_at)).toEqual(
      every.items
        .map((i) => i.updated_at)
        .sort()
        .reverse(),
    );

    // An order the index does not keep: refused past the bound, exact within it.
    const refused = await admin.get(`/api/v1/issues?q=${encodeURIComponent('sort:priority-desc')}`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toContain('narrow it with updated:');
    const old = await followPages<{ id: number; priority: string }>(
      admin,
      `/api/v1/issues?per_page=100&q=${encodeURIComponent('updated:<2021-01-01 sort:priority-desc')}`,
    );
    expect(old.items).toHaveLength(600);
    expect(old.items.slice(0, 120).every((i) => i.priority === 'urgent')).toBe(true);
    expect(old.items.at(-1)?.priority).toBe('none');
  }, 30_000);
});

describe('search with OR over the key range', () => {
  it('reads the whole range when updated: stands in an OR or under NOT, and answers exactly', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Ranges', prefix: randomPrefix() } }));
    // 40 search records: 20 updated in 2020, 20 now; one in five urgent.
    const records = Array.from({ length: 40 }, (_, i) =>
      recordItem({
        kind: 'search',
        orgId: org.orgId,
        projectId: project.id,
        issueId: 20_000 + i,
        number: `${project.prefix}-${i + 1}`,
        title: `Ranged ${i}`,
        sprintId: null,
        position: (i + 1) * 1024,
        status: 'todo',
        priority: i % 5 === 0 ? 'urgent' : 'none',
        type: 'task',
        labelIds: [],
        assigneeId: null,
        authorId: org.admin.id,
        sourceKey: null,
        storyPoints: null,
        dueDate: null,
        parentId: null,
        createdAt: '2020-01-01T00:00:00.000Z',
        updatedAt: i < 20 ? `2020-06-01T00:00:${String(i).padStart(2, '0')}.000Z` : new Date(Date.now() - i * 1000).toISOString(),
      }),
    );
    await putAll(records);
    const found = async (q: string) =>
      (await followPages<{ id: number }>(admin, `/api/v1/issues?per_page=100&q=${encodeURIComponent(q)}`)).items
        .map((i) => i.id - 20_000)
        .sort((x, y) => x - y);
    const recent = Array.from({ length: 20 }, (_, i) => i + 20);
    const oldUrgent = [0, 5, 10, 15];
    expect(await found('updated:>-1d')).toEqual(recent);
    expect(await found('updated:>-1d OR priority:urgent')).toEqual([...oldUrgent, ...recent]);
    expect(await found('-(updated:<2021-01-01)')).toEqual(recent);
    expect(await found('NOT updated:>-1d')).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(await found('(updated:<2021-01-01 priority:urgent) OR updated:>-1d')).toEqual([...oldUrgent, ...recent]);
    expect(await found('updated:<2021-01-01 (priority:urgent OR updated:>-1d)')).toEqual(oldUrgent);
  }, 30_000);
});

describe('search and renames', () => {
  it('finds labels by their current names, and a deleted label on no issue (its search records too, once purged)', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Names', prefix: randomPrefix() } }));
    const base = `/api/v1/projects/${project.id}`;
    const label = await ok(admin.post(`${base}/labels`, { label: { name: 'old' } }));
    const issue = await ok(admin.post(`${base}/issues`, { issue: { title: 'Labelled', labels: ['old'] } }));
    const found = async (q: string) =>
      (await ok<{ id: number }[]>(admin.get(`/api/v1/issues?q=${encodeURIComponent(q)}`))).map((i) => i.id);
    expect(await found('label:old')).toEqual([issue.id]);
    await ok(admin.patch(`${base}/labels/${label.id}`, { label: { name: 'new' } }));
    expect(await found('label:old')).toEqual([]);
    expect(await found('label:new')).toEqual([issue.id]);

    await admin.delete(`${base}/labels/${label.id}`);
    expect(await found('label:new')).toEqual([]);
    expect(await found('no:label')).toEqual([issue.id]);
    // Purged from the trash, the cascade takes the id off the issue and off its search record, in one transaction.
    expect((await admin.delete(`/api/v1/trash/label-${label.id}`)).status).toBe(204);
    const record = async () =>
      (await db.send(new GetCommand({ TableName: tableName(), Key: keys.searchIssue(org.orgId, project.id, issue.id) }))).Item;
    await eventually(
      'the label cascade to take the label off the search record',
      record,
      (r) => r?.label_ids === undefined,
      bounds.cascade(),
    );
    expect((await record())?.label_ids).toBeUndefined();
  }, 40_000);
});

describe('search input', () => {
  it('answers any JSON body and any q with 200 or a 422 {errors}, never a 5xx', async () => {
    const { admin } = await orgWithClients(gateway);
    const word = fc.constantFrom('and', 'not', 'sort', 'status', 'label', 'in', 'gte', 'updated', 'per_page', 'cursor', 'is');
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.record({ and: fc.array(fc.dictionary(word, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 2 }), { maxLength: 3 }) }),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.string({ maxLength: 60 }), async (json, q) => {
        const posted = await admin.post('/api/v1/issues/search', json);
        expect([200, 422], JSON.stringify(json)).toContain(posted.status);
        if (posted.status === 422) expect(posted.body.errors).toEqual(expect.any(Array));
        const got = await admin.get(`/api/v1/issues?q=${encodeURIComponent(q)}`);
        expect([200, 422], q).toContain(got.status);
      }),
      { numRuns: 40 },
    );
  }, 30_000);
});

describe('search and blockers', () => {
  it(`keeps is:blocked exact for an issue blocking ${MAX_BLOCKS} others, the most it may block, through a status change in one transaction`, async () => {
    const { admin } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Blocks', prefix: randomPrefix() } }));
    const backlog = `/api/v1/projects/${project.id}/issues`;
    const blocker = await ok(admin.post(backlog, { issue: { title: 'Blocker' } }));
    // The issues it blocks, made in one bulk write (test/e2e/bulk.test.ts checks it writes as single creates would).
    const made = await ok(
      admin.post(`${backlog}/bulk`, {
        items: Array.from({ length: MAX_BLOCKS + 1 }, (_, i) => ({ issue: { title: `Blocked ${i}` } })),
      }),
    );
    const blocked: { id: number; issue_number: string }[] = made.results.map(
      (r: { status: number; issue: { id: number; issue_number: string } }) => {
        expect(r.status).toBe(201);
        return r.issue;
      },
    );
    expect(blocked).toHaveLength(MAX_BLOCKS + 1);
    for (const b of blocked.slice(0, MAX_BLOCKS)) {
      await ok(
        admin.post(`/api/v1/issues/${blocker.issue_number}/relations`, {
          relation: { type: 'blocks', issue_key: b.issue_number },
        }),
      );
    }
    const refused = await admin.post(`/api/v1/issues/${(blocked.at(-1) as { issue_number: string }).issue_number}/relations`, {
      relation: { type: 'blocked_by', issue_key: blocker.issue_number },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toContain(`blocks ${MAX_BLOCKS} issues`);
    const blockedNow = async () =>
      (await followPages<{ id: number }>(admin, '/api/v1/issues?q=is:blocked&per_page=100')).items.length;
    expect(await blockedNow()).toBe(MAX_BLOCKS);
    expect((await admin.patch(`${backlog}/${blocker.id}`, { issue: { status: 'done' } })).status).toBe(200);
    expect(await blockedNow()).toBe(0);
    expect((await admin.delete(`${backlog}/${blocker.id}`)).status).toBe(204);
  }, 60_000);
});

describe('search by key', () => {
  it('finds an issue by its own key, in any case, first among the issues whose title holds it, and with other terms as one more', async () => {
    const { admin } = await orgWithClients(gateway);
    const prefix = randomPrefix();
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Keys', prefix } }));
    const base = `/api/v1/projects/${project.id}/issues`;
    const named = await ok(admin.post(base, { issue: { title: 'The login page', status: 'todo' } }));
    const key = named.issue_number as string;
    // Updated after it, so that the index's order puts them before it.
    const mentions = await ok(admin.post(base, { issue: { title: `Follow-up of ${key}` } }));
    const longer = await ok(admin.post(base, { issue: { title: `Not ${key}0` } }));
    const found = async (q: string) =>
      (await ok<{ id: number }[]>(admin.get(`/api/v1/issues?q=${encodeURIComponent(q)}`))).map((i) => i.id);
    expect(await found(key)).toEqual([named.id, longer.id, mentions.id]);
    expect(await found(key.toLowerCase())).toEqual([named.id, longer.id, mentions.id]);
    expect(await found(`${key} sort:created-desc`)).toEqual([named.id, longer.id, mentions.id]);
    // A key is a whole term: its number's prefix or a part of it is no key.
    expect(await found(`${key}0`)).toEqual([longer.id]);
    expect(await found(`${key} status:todo`)).toEqual([named.id]);
    const posted = await ok<{ id: number }[]>(admin.post('/api/v1/issues/search', { and: [{ title: { contains: key } }] }));
    expect(posted.map((i) => i.id)).toEqual([named.id, longer.id, mentions.id]);
  }, 40_000);
});

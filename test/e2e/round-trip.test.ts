import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { writeLink, type StoredLink } from '../../lib/db/github/github.ts';
import { IssueLink } from '../../lib/schemas/github.ts';
import { asActor } from '../../lib/context/actor.ts';
import { accountsByEmail } from '../../lib/db/organisation/accounts.ts';
import { issueItem } from '../../lib/db/issues/issue-item.ts';
import { readIssueItem } from '../../lib/db/issues/issue-refs.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { updateIssue } from '../../lib/services/issues.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { importExport, type ExportImportReport } from '../../lib/services/import-export/import-export.ts';
import { importIssues } from '../../lib/services/import-export/import.ts';
import { Account } from '../../lib/schemas/accounts.ts';
import { Activity } from '../../lib/schemas/activity.ts';
import { Comment } from '../../lib/schemas/comments.ts';
import { Issue } from '../../lib/schemas/issues.ts';
import { Label } from '../../lib/schemas/labels.ts';
import { Project } from '../../lib/schemas/projects.ts';
import { Sprint } from '../../lib/schemas/sprints.ts';
import { newOrganisation, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';

/**
 * Export, then import into an empty organisation, gives back the same organisation, field by
 * field: the organisation is made by a seeded generator that uses every field of every kind of
 * record (through the API, so its history is real), and every field the answer schemas declare is
 * compared, through the import's id maps. A field added to a schema without export support fails
 * here: the export line misses it, or the organisation made again differs in it.
 */

const gateway = useGateway();

type Line = Record<string, any>;

/** The answer schema of each kind of line, and the fields an export line carries beside it. */
const kinds: Record<string, { schema: z.ZodMiniObject; extras: string[] }> = {
  account: { schema: Account, extras: [] },
  project: { schema: Project, extras: ['last_issue_number', 'states', 'custom_fields'] },
  label: { schema: Label, extras: [] },
  sprint: { schema: Sprint, extras: ['sprint_lead_email', 'history'] },
  issue: { schema: Issue, extras: ['assignee_email', 'author_email', 'watcher_emails', 'relations'] },
  comment: { schema: Comment, extras: ['author_email'] },
  activity: { schema: Activity, extras: ['project_id'] },
};
const fieldsOf = (kind: string) => [
  ...Object.keys((kinds[kind] as { schema: z.ZodMiniObject }).schema.shape),
  ...(kinds[kind]?.extras ?? []),
];

/** A seeded generator of numbers in [0, 1) (mulberry32): the same organisation for the same seed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
  };
}

async function ok(res: Promise<{ status: number; body: any }>, status = 201) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

const statuses = ['backlog', 'todo', 'in_progress', 'In review', 'done', "Won't fix", 'cancelled'] as const;
const priorities = ['none', 'low', 'medium', 'high', 'urgent'] as const;
const types = ['task', 'story', 'bug', 'epic'] as const;

/**
 * An organisation with every kind of record and every field used: accounts of both roles, projects
 * with every field (the GitHub repository, which no route sets, written in the table), labels with
 * descriptions, sprints in every state (a completed one with its report and carried-over issues,
 * an active one with its burndown), issues of every status, priority and type, with points, due
 * dates, labels, assignees, parents, places moved, every kind of relation (one across projects),
 * comments by several authors (one edited, one deleted), issues imported from another tracker, and
 * the history all of this wrote.
 */
async function generate(seed: number, clients: { admin: ApiClient; member: ApiClient }, orgId: number) {
  const r = seeded(seed);
  const { admin, member } = clients;
  const third = await ok(
    admin.post('/api/v1/accounts', { account: { name: 'Third Person', email: `third-${randomPrefix()}@example.com` } }),
  );
  // Handles: the member's is restored with its account; a watcher is one, whoever asked.
  await ok(member.patch('/api/v1/me', { account: { handle: `member-${seed}` } }), 200);
  const people = [
    (await ok(admin.get('/api/v1/me'), 200)).account.id,
    (await ok(member.get('/api/v1/me'), 200)).account.id,
    third.account.id,
  ];
  const as = () => (r.chance(0.5) ? admin : member);
  const projects: { id: number; prefix: string; issues: Line[] }[] = [];
  for (const name of ['Shop', 'Ops']) {
    const project = await ok(
      admin.post('/api/v1/projects', {
        project: {
          name,
          prefix: randomPrefix(),
          description: `${name}: the **whole** thing — 日本語 🎉`,
          documentation_url: 'https://docs.example.com/shop',
          production_url: 'https://shop.example.com',
        },
      }),
    );
    // A repository a project names without its connection (a connection's round trip:
    // test/e2e/github-export.test.ts): written where it is stored.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(orgId, project.id),
        UpdateExpression: 'SET github_repo_owner = :o, github_repo_name = :n',
        ExpressionAttributeValues: { ':o': 'acme', ':n': name.toLowerCase() },
      }),
    );
    const base = `/api/v1/projects/${project.id}`;
    const labels: string[] = [];
    for (const [label, color] of [
      ['bug', '#d73a4a'],
      ['ui', '#0e8a16'],
      ['needs review', '#fbca04'],
    ] as const) {
      await ok(admin.post(`${base}/labels`, { label: { name: label, color, description: `Issues about ${label}` } }));
      labels.push(label);
    }
    // Its own states beside the five (docs/workflows.md): ids, names, colours, order, limits and rules come back as they were.
    await ok(admin.post(`${base}/states`, { state: { name: 'In review', category: 'in_progress', wip_limit: 3 } }));
    await ok(admin.post(`${base}/states`, { state: { name: "Won't fix", category: 'cancelled', color: '#111111' } }));
    // Custom fields: made again with their definitions, values by key and option name.
    await ok(
      admin.post(`${base}/fields`, {
        field: {
          name: 'Severity',
          type: 'select',
          description: 'How bad',
          options: [{ name: 'Low' }, { name: 'High', color: '#ff0000' }],
        },
      }),
    );
    await ok(admin.post(`${base}/fields`, { field: { name: 'Customer', type: 'text' } }));
    const done = await ok(
      admin.post(`${base}/sprints`, {
        sprint: {
          name: 'Done sprint',
          description: 'The first',
          start_date: '2026-11-02',
          end_date: '2026-11-13',
          sprint_lead_id: people[1],
        },
      }),
    );
    const active = await ok(admin.post(`${base}/sprints`, { sprint: { name: 'Active sprint', end_date: '2099-12-31' } }));
    const next = await ok(admin.post(`${base}/sprints`, { sprint: { name: 'Next sprint', description: 'Carried over here' } }));
    const lists = [null, done.id, done.id, active.id, next.id];
    const issues: Line[] = [];
    for (let i = 0; i < 12; i++) {
      const list = r.pick(lists);
      const path = list === null ? `${base}/issues` : `${base}/sprints/${list}/issues`;
      const issue = await ok(
        as().post(path, {
          issue: {
            title: `${name} issue ${i}: ${r.pick(['"quoted"', 'é', '日本語', 'plain'])}`,
            ...(r.chance(0.8) ? { description: `Line one of ${i}\nLine two, with a comma` } : {}),
            status: r.pick(statuses),
            ...(r.chance(0.8) ? { story_points: r.int(0, 13) } : {}),
            ...(r.chance(0.7) ? { assignee_id: r.pick(people) } : {}),
            priority: r.pick(priorities),
            type: r.pick(types),
            ...(r.chance(0.5) ? { due_date: `2027-0${r.int(1, 9)}-1${r.int(0, 9)}` } : {}),
            ...(r.chance(0.7) ? { labels: [...new Set([r.pick(labels), r.pick(labels)])] } : {}),
            ...(r.chance(0.6) ? { custom_fields: { severity: r.pick(['Low', 'High']), customer: `Acme ${i}` } } : {}),
          },
        }),
      );
      issues.push({ ...issue, path: `${path}/${issue.id}`, commentsPath: `${path}/${issue.id}/comments` });
    }
    // Changes: statuses through their times, fields, places, moves between lists, parents.
    for (const issue of issues) {
      if (r.chance(0.5)) {
        const changed = await ok(
          as().patch(issue.path, {
            issue: {
              status: 'in_progress',
              title: `${issue.title} (edited)`,
              ...(r.chance(0.5) ? { priority: r.pick(priorities), labels: [r.pick(labels)] } : {}),
              ...(r.chance(0.5) ? { assignee_id: r.pick(people), story_points: r.int(1, 8) } : {}),
            },
          }),
          200,
        );
        Object.assign(issue, { status: changed.status });
        if (r.chance(0.5))
          Object.assign(issue, {
            status: (await ok(as().patch(issue.path, { issue: { status: r.pick(['done', 'cancelled']) } }), 200)).status,
          });
      }
    }
    const epic = issues[0] as Line;
    await ok(as().patch(epic.path, { issue: { type: 'epic' } }), 200);
    for (const child of issues.slice(1, 4)) await ok(as().patch(child.path, { issue: { parent_id: epic.id } }), 200);
    await ok(as().patch((issues[5] as Line).path, { issue: { parent_id: (issues[4] as Line).id } }), 200);
    const moved = issues.find((i) => i.sprint_id === null);
    if (moved) {
      const to = await ok(as().patch(moved.path, { issue: { sprint_id: active.id } }), 200);
      moved.path = `${base}/sprints/${active.id}/issues/${moved.id}`;
      moved.commentsPath = `${moved.path}/comments`;
      moved.sprint_id = to.sprint_id;
    }
    const inActive = issues.filter((i) => i.sprint_id === active.id);
    if (inActive.length > 1) await ok(as().patch((inActive.at(-1) as Line).path, { issue: { position: 1 } }), 200);
    // Comments by several authors; one edited, one deleted (its history names it).
    for (const issue of issues.slice(0, 6)) {
      await ok(admin.post(issue.commentsPath, { comment: { body: `First on ${issue.issue_number} — 日本語` } }));
      const second = await ok(member.post(issue.commentsPath, { comment: { body: 'Second, "quoted"\nand two lines' } }));
      if (issue === issues[1])
        await ok(member.patch(`/api/v1/comments/${second.id}`, { comment: { body: 'Second, edited' } }), 200);
      if (issue === issues[2]) await ok(member.delete(`/api/v1/comments/${second.id}`), 204);
    }
    // Relations of every kind: an open blocker, a duplicate, related issues.
    const relate = (a: Line, type: string, b: Line) =>
      ok(as().post(`/api/v1/issues/${a.issue_number}/relations`, { relation: { type, issue_key: b.issue_number } }));
    // An open blocker: its issue shows `blocked`.
    await ok(as().patch((issues[6] as Line).path, { issue: { status: 'todo' } }), 200);
    await relate(issues[6] as Line, 'blocks', issues[7] as Line);
    // A change reverted (docs/activity.md): the revert's entry names the entry it undid.
    const reverted = issues[10] as Line;
    const priority = (await admin.get(reverted.path)).body.priority === 'urgent' ? 'low' : 'urgent';
    await ok(as().patch(reverted.path, { issue: { priority } }), 200);
    const [change] = await activityOf<Line>(admin, reverted.path, 1, (e) =>
      e.changes.some((c: Line) => c.field === 'priority' && c.to === priority),
    );
    await ok(as().post(`/api/v1/activity/${change!.id}/revert`), 200);
    await relate(issues[8] as Line, 'duplicates', issues[9] as Line);
    await relate(issues[10] as Line, 'relates_to', issues[11] as Line);
    await relate(issues[9] as Line, 'blocked_by', issues[11] as Line);
    projects.push({ id: project.id, prefix: project.prefix, issues });
    await ok(admin.post(`${base}/sprints/${done.id}/activate`), 200);
    await ok(admin.post(`${base}/sprints/${done.id}/complete`, { carry_over: { sprint_id: next.id } }), 200);
    await ok(admin.post(`${base}/sprints/${active.id}/activate`), 200);
  }
  // Across projects.
  const [a, b] = projects as [(typeof projects)[number], (typeof projects)[number]];
  await ok(
    admin.post(`/api/v1/issues/${b.issues[0]?.issue_number}/relations`, {
      relation: { type: 'relates_to', issue_key: a.issues[1]?.issue_number },
    }),
  );
  // Issues imported from another tracker: their source keys and `issue.imported` history.
  const csv =
    'Summary,Issue key,Issue Type,Status,Created,Updated,Resolved\r\n' +
    'From Jira,DI-127,Bug,Done,25/Feb/26 10:17 PM,26/Feb/26 9:05 AM,26/Feb/26 9:05 AM\r\n' +
    'Also from Jira,DI-128,Story,In Progress,25/Feb/26 10:18 PM,27/Feb/26 9:05 AM,\r\n';
  await importIssues({ orgId, projectId: a.id, format: 'jira-csv' }, [csv]);
  await linkOnGitHub(orgId, a);
  return projects;
}

/**
 * Links of every kind and state on two issues, written as GitHub's deliveries write them
 * (lib/db/github/github.ts): pull requests merged (with a closing word, moved by the automation),
 * open and a draft, a deleted branch, a commit. The open one is written after the merged one it is
 * older than: its issue shows `open`, the state of the pull request that changed last here.
 */
async function linkOnGitHub(orgId: number, project: { id: number; issues: Line[] }) {
  const [x, y] = [project.issues[2] as Line, project.issues[3] as Line];
  const url = 'https://github.com/acme/shop';
  const link = (issue: Line, l: Partial<StoredLink> & Pick<StoredLink, 'kind' | 'ref' | 'state' | 'updatedAt'>): StoredLink => ({
    orgId,
    projectId: project.id,
    issueId: issue.id,
    url: `${url}/${l.kind}/${l.ref}`,
    title: `${l.kind} ${l.ref} for ${issue.issue_number}`,
    author: null,
    closing: false,
    automation: null,
    createdAt: null,
    mergedAt: null,
    closedAt: null,
    ...l,
  });
  const links = [
    link(x, {
      kind: 'pull_request',
      ref: '12',
      state: 'merged',
      author: 'octocat',
      closing: true,
      automation: `moved to done by ${url}/pull/12`,
      createdAt: '2026-11-01T09:00:00.000Z',
      updatedAt: '2026-11-03T10:00:00.000Z',
      mergedAt: '2026-11-03T10:00:00.000Z',
      closedAt: '2026-11-03T10:00:00.000Z',
    }),
    link(x, { kind: 'pull_request', ref: '15', state: 'open', author: 'ada', updatedAt: '2026-11-02T10:00:00.000Z' }),
    link(x, { kind: 'branch', ref: `feature/${x.issue_number}`, state: 'closed', updatedAt: '2026-11-04T10:00:00.000Z' }),
    link(x, { kind: 'commit', ref: 'c'.repeat(40), state: 'merged', author: 'ada', updatedAt: '2026-11-03T09:00:00.000Z' }),
    link(y, { kind: 'pull_request', ref: '16', state: 'draft', updatedAt: '2026-11-05T10:00:00.000Z' }),
  ];
  for (const l of links) await writeLink(l, l, undefined);
  // The status automation's move of its issue, made via the pull request (its activity entry's `via`).
  const admin = [...(await accountsByEmail(orgId)).values()].find((account) => account.role === 'admin')!;
  const issue = (await readIssueItem(orgId, project.id, x.id))!;
  const caller: Principal = { orgId, accountId: admin.id, role: 'admin', tokenHash: 'round-trip' };
  await asActor(admin.id, () =>
    updateIssue(
      caller,
      { projectId: project.id, sprintId: issueItem.field(issue, 'sprintId') },
      x.id,
      { status: issueItem.field(issue, 'status') === 'done' ? 'in_progress' : 'done' },
      { via: `${url}/pull/12` },
    ),
  );
}

/** The organisation's export, every line parsed. */
async function exported(orgId: number): Promise<Line[]> {
  const lines: Line[] = [];
  for await (const line of exportOrganisation(orgId)) lines.push(JSON.parse(line) as Line);
  return lines;
}

/** Every page of `GET /export` by its `next` links, concatenated. */
async function restPages(admin: ApiClient, perPage: number): Promise<string> {
  let text = '';
  let at: string | undefined = `/api/v1/export?per_page=${perPage}`;
  for (let guard = 0; at; guard++) {
    expect(guard).toBeLessThan(2000);
    const res: { status: number; text: string; headers: Headers } = await admin.get(at);
    expect(res.status, res.text).toBe(200);
    text += res.text;
    at = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return text;
}

/** Waits until the change feed has written the history of the generator's writes (two exports a second apart agree). */
async function settled(orgId: number): Promise<string> {
  const body = async () => {
    let text = '';
    for await (const line of exportOrganisation(orgId, new Date(0))) text += `${line}\n`;
    return text;
  };
  let last = await body();
  for (let i = 0; i < 90; i++) {
    await new Promise((done) => setTimeout(done, 1000));
    const now = await body();
    if (now === last) return now;
    last = now;
  }
  throw new Error('the history never settled');
}

/** Whether a value says something (not empty, not a default nothing). */
const used = (v: unknown): boolean =>
  Array.isArray(v)
    ? v.some(used)
    : v !== null && typeof v === 'object'
      ? Object.values(v).some(used)
      : v !== null && v !== undefined && v !== '' && v !== 0 && v !== false;

/**
 * A line of the source as the organisation made again must show it: every id through the
 * import's maps (in the changes an activity entry records too), every issue number through its
 * key map.
 */
function expectedLine(kind: string, line: Line, report: ExportImportReport): Line {
  const { ids } = report;
  const map = (table: keyof ExportImportReport['ids'], v: unknown) => (v === null || v === undefined ? v : ids[table][String(v)]);
  const number = (n: string) => report.keys[n] ?? n;
  const relationId = (id: string) => {
    const [from, kind, to] = id.split('-') as [string, string, string];
    const [x, y] = [Number(map('issues', from)), Number(map('issues', to))];
    return kind === 'relates_to' ? `${Math.min(x, y)}-${kind}-${Math.max(x, y)}` : `${x}-${kind}-${y}`;
  };
  switch (kind) {
    case 'account':
      return { ...line, id: map('accounts', line.id) };
    case 'project':
      return { ...line, id: map('projects', line.id) };
    case 'label':
      return { ...line, id: map('labels', line.id), project_id: map('projects', line.project_id) };
    case 'sprint':
      return {
        ...line,
        id: map('sprints', line.id),
        project_id: map('projects', line.project_id),
        report: line.report && {
          ...line.report,
          sprint_id: map('sprints', line.report.sprint_id),
          carried_over_to: { sprint_id: map('sprints', line.report.carried_over_to.sprint_id) },
        },
      };
    case 'issue':
      return {
        ...line,
        id: map('issues', line.id),
        project_id: map('projects', line.project_id),
        sprint_id: map('sprints', line.sprint_id),
        parent_id: map('issues', line.parent_id),
        assignee_id: map('accounts', line.assignee_id),
        watchers: {
          count: line.watchers.count,
          account_ids: line.watchers.account_ids.map((id: number) => map('accounts', id)).sort((a: number, b: number) => a - b),
        },
        issue_number: number(line.issue_number),
        labels: line.labels.map((l: Line) => ({ ...l, id: map('labels', l.id) })),
        relations: line.relations
          .map((r: Line) => ({
            ...r,
            id: relationId(r.id),
            issue_id: map('issues', r.issue_id),
            issue_number: number(r.issue_number),
            project_id: map('projects', r.project_id),
          }))
          .sort((a: Line, b: Line) => (a.id < b.id ? -1 : 1)),
      };
    case 'comment':
      return {
        ...line,
        id: map('comments', line.id),
        issue_id: map('issues', line.issue_id),
        author_id: map('accounts', line.author_id),
      };
    case 'activity': {
      const change = (c: Line) => {
        const table = ({ assignee_id: 'accounts', sprint_id: 'sprints', parent_id: 'issues', labels: 'labels' } as const)[
          c.field as 'assignee_id'
        ];
        const out: Line = { ...c };
        for (const side of ['from', 'to', 'added', 'removed']) {
          if (!(side in c)) continue;
          if (table) out[side] = Array.isArray(c[side]) ? c[side].map((v: unknown) => map(table, v)) : map(table, c[side]);
          else if (c.field === 'relations' && c[side])
            out[side] = {
              id: relationId(c[side].id),
              type: c[side].type,
              issue: {
                id: map('issues', c[side].issue.id),
                issue_number: number(c[side].issue.issue_number),
                project_id: map('projects', c[side].issue.project_id),
              },
            };
        }
        return out;
      };
      return {
        ...line,
        project_id: map('projects', line.project_id),
        actor_id: map('accounts', line.actor_id),
        issue_id: map('issues', line.issue_id),
        sprint_id: map('sprints', line.sprint_id),
        comment_id: map('comments', line.comment_id),
        changes: line.changes.map(change),
      };
    }
    default:
      return line;
  }
}

/** The source organisation `source` made again as `again` by the import that answered `report`: every field of every record. */
function expectSameOrganisation(source: Line[], again: Line[], report: ExportImportReport) {
  const records = (lines: Line[], kind: string) => lines.filter((l) => l.kind === kind);
  for (const kind of Object.keys(kinds)) {
    const fields = fieldsOf(kind);
    const mine = records(source, kind);
    expect(mine.length, kind).toBeGreaterThan(0);
    // Every line carries exactly the schema's fields and its extras: nothing left out, nothing not
    // compared; but for a field only some lines have (a revert's `reverts`), as its schema says.
    const optional = fields.filter(
      (f) => (kinds[kind]!.schema.shape[f] as z.ZodMiniType | undefined)?.safeParse(undefined).success,
    );
    for (const l of [...mine, ...records(again, kind)])
      expect(
        Object.keys(l)
          .filter((f) => !optional.includes(f))
          .sort(),
        kind,
      ).toEqual(['kind', ...fields.filter((f) => !optional.includes(f))].sort());
    // The generator used every field of every kind.
    for (const f of fields)
      expect(
        mine.some((l) => used(l[f])),
        `${kind}.${f} is never used by the generator`,
      ).toBe(true);
  }
  // Accounts, projects, labels, sprints, issues, comments: each by its new id, every field.
  for (const kind of ['account', 'project', 'label', 'sprint', 'issue', 'comment']) {
    const byId = new Map(records(again, kind).map((l) => [l.id, l]));
    for (const old of records(source, kind)) {
      const expected = expectedLine(kind, old, report);
      const actual = byId.get(expected.id);
      expect(actual, `${kind} ${old.id}`).toBeDefined();
      const shown = (l: Line) =>
        Object.fromEntries(
          fieldsOf(kind).map((f) => [f, f === 'relations' ? [...l[f]].sort((a: Line, b: Line) => (a.id < b.id ? -1 : 1)) : l[f]]),
        );
      expect(shown(actual as Line), `${kind} ${old.id}`).toEqual(shown(expected));
    }
  }
  // GitHub links: each under its issue's new id, every field of its answer (its kind as `link_kind`).
  const linkFields = ['kind', 'project_id', 'issue_id', 'link_kind', ...Object.keys(IssueLink.shape).filter((f) => f !== 'kind')];
  const links = (lines: Line[]) => records(lines, 'github_link');
  for (const f of linkFields)
    expect(
      links(source).some((l) => used(l[f])),
      `github_link.${f} is never used by the generator`,
    ).toBe(true);
  const linkKey = (l: Line) => `${l.issue_id} ${l.link_kind} ${l.ref}`;
  const madeLinks = new Map(links(again).map((l) => [linkKey(l), l]));
  expect(madeLinks.size).toBe(links(source).length);
  for (const old of links(source)) {
    const expected = { ...old, project_id: report.ids.projects[old.project_id], issue_id: report.ids.issues[old.issue_id] };
    const made = madeLinks.get(linkKey(expected));
    for (const l of [old, made]) expect(Object.keys(l ?? {}).sort(), linkKey(old)).toEqual([...linkFields].sort());
    expect(made, linkKey(old)).toEqual(expected);
  }
  // The history, entry by entry under each issue and sprint, in order; each issue imported gets one more entry last.
  const owner = (l: Line) => (String(l.event).startsWith('sprint.') ? `s${l.sprint_id}` : `i${l.issue_id}`);
  const grouped = (lines: Line[]) => {
    const groups = new Map<string, Line[]>();
    for (const l of records(lines, 'activity')) groups.set(owner(l), [...(groups.get(owner(l)) ?? []), l]);
    return groups;
  };
  const before = grouped(source.map((l) => (l.kind === 'activity' ? expectedLine('activity', l, report) : l)));
  const after = grouped(again);
  const oldNumbers = new Map(records(source, 'issue').map((i) => [report.ids.issues[String(i.id)], i.issue_number]));
  for (const issue of records(again, 'issue')) {
    const entries = after.get(`i${issue.id}`) ?? [];
    expect(entries.at(-1), issue.issue_number).toMatchObject({
      event: 'issue.imported',
      changes: [{ field: 'source_key', to: oldNumbers.get(issue.id) }],
    });
    after.set(`i${issue.id}`, entries.slice(0, -1));
  }
  const without = (l: Line) =>
    Object.fromEntries(
      fieldsOf('activity')
        .filter((f) => f !== 'id')
        .map((f) => [f, l[f]]),
    );
  // A revert's `reverts` names an entry of the same history: compared by its place there.
  const placed = (entries: Line[]) =>
    entries.map((l) => ({ ...without(l), reverts: l.reverts && entries.findIndex((e) => e.id === l.reverts) }));
  expect(
    [...before.values()].flat().filter((l) => l.reverts),
    'a revert in the history',
  ).not.toEqual([]);
  for (const key of new Set([...before.keys(), ...after.keys()])) {
    const entries = before.get(key) ?? [];
    const made = after.get(key) ?? [];
    expect(placed(made), key).toEqual(placed(entries));
    for (const l of placed(made)) if (l.reverts !== undefined) expect(l.reverts, key).toBeGreaterThanOrEqual(0);
    // Ids are opaque, and keep the entries' order.
    const ids = made.map((e) => e.id);
    expect([...ids].sort(), key).toEqual(ids);
  }
}

describe('export, then import into an empty organisation', () => {
  it('gives back the same organisation, field by field, from the CLI file and from the REST pages; again: nothing more', async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    await generate(20261125, { admin, member }, org.orgId);
    const file = await settled(org.orgId);
    const source = await exported(org.orgId);
    // The REST pages, concatenated, are the file but for the header's time (and with it the digest).
    const pages = await restPages(admin, 7);
    const body = (text: string) => text.split('\n').slice(1, -2);
    expect(body(pages)).toEqual(body(file));

    for (const text of [file, pages]) {
      const target = await newOrganisation();
      const report = await importExport({ orgId: target.orgId }, [text.slice(0, 5000), text.slice(5000)]);
      expect(report.errors).toEqual([]);
      expectSameOrganisation(source, await exported(target.orgId), report);
      // Every issue number was free: each issue keeps its key.
      for (const [old, now] of Object.entries(report.keys)) expect(now).toBe(old);

      const again = await importExport({ orgId: target.orgId }, [text]);
      expect(Object.values(again.projects).map((p) => p.created)).toEqual([0, 0]);
      expect(again).toMatchObject({ comments: 0, relations: 0, activity: 0, accounts_created: [], errors: [] });
    }
  }, 300_000);
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getRepository } from '../../lib/db/github/github.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { importExport, type ExportImportReport } from '../../lib/services/import-export/import-export.ts';
import { IssueLink } from '../../lib/schemas/github.ts';
import { ok, orgWithClients, useGateway, type ApiClient } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { example, from, githubHelpers, linksOf } from '../support/github.ts';

/**
 * GitHub in an organisation's export and its import (docs/import-export.md, docs/github.md), driven
 * with GitHub's own example payloads (`@octokit/webhooks-examples`): the export carries a project's
 * connection (its repository and status automation, never its secret) and each issue's links; an
 * import into a fresh organisation gives back the same links, and the same connection without a
 * secret until an admin rotates one, unless the repository is connected to some
 * project already: then it is left there, and the report says so.
 */

const gateway = useGateway();
const { connected, deliver } = githubHelpers(gateway);
/** A line of an export file, or any JSON object a test reads. */
type Line = Record<string, any>;

/**
 * A connected project with automation of its own, whose issues GitHub linked: `one` to a pull
 * request opened and merged (`Fixes`, so the automation moved it), to a second pull request still a
 * draft and to a branch; `two` to a pushed commit.
 */
async function linkedWorld() {
  const world = await connected({ enabled: true, on_merge: 'done', merge_needs_closing_word: false });
  const { admin, repo, connection, one, two } = world;
  const opened = from(example('pull_request', 'opened'), repo);
  opened.number = 12;
  opened.pull_request.number = 12;
  opened.pull_request.title = `Fixes ${one.issue_number}`;
  opened.pull_request.created_at = '2026-12-01T09:00:00Z';
  opened.pull_request.updated_at = '2026-12-01T10:00:00Z';
  await deliver('pull_request', opened, connection.secret);
  const merged = structuredClone(opened);
  merged.action = 'closed';
  Object.assign(merged.pull_request, {
    state: 'closed',
    merged: true,
    merged_at: '2026-12-01T11:00:00Z',
    closed_at: '2026-12-01T11:00:00Z',
    updated_at: '2026-12-01T11:00:00Z',
  });
  await deliver('pull_request', merged, connection.secret);
  await eventually(
    'the merge',
    () => linksOf(admin, one.issue_number),
    (l) => l[0]?.state === 'merged' && l[0]?.automation !== null,
  );
  // A draft changed before the merge, told of after it: the issue shows the merge, the pull request that changed last.
  const draft = from(example('pull_request', 'opened'), repo);
  draft.number = 77;
  Object.assign(draft.pull_request, {
    number: 77,
    html_url: `https://github.com/${repo}/pull/77`,
    title: `Try ${one.issue_number}`,
    draft: true,
    created_at: '2026-11-30T08:00:00Z',
    updated_at: '2026-11-30T08:00:00Z',
  });
  draft.pull_request.head.ref = 'try-it';
  await deliver('pull_request', draft, connection.secret);
  const branch = from(example('create'), repo);
  Object.assign(branch, { ref: `feature/${one.issue_number}-login`, ref_type: 'branch' });
  await deliver('create', branch, connection.secret);
  const push = from(example('push'), repo);
  push.ref = 'refs/heads/feature/x';
  push.commits = [
    {
      ...(example('push').commits[0] ?? {}),
      id: 'c'.repeat(40),
      url: `https://github.com/${repo}/commit/${'c'.repeat(40)}`,
      message: `Wire ${two.issue_number}\n\nmore`,
      timestamp: '2026-12-01T12:00:00Z',
      author: { name: 'Ada', username: 'ada' },
    },
  ];
  await deliver('push', push, connection.secret);
  await eventually(
    'every link',
    async () => [...(await linksOf(admin, one.issue_number)), ...(await linksOf(admin, two.issue_number))],
    (l) => l.length === 4,
  );
  const issues = await Promise.all([one, two].map((i) => ok(admin.get(`/api/v1/issues/${i.issue_number}`))));
  expect(issues[0].links).toMatchObject({ count: 3, pull_request_state: 'merged' });
  return world;
}

/** An organisation's export: its text and its lines. */
async function exported(orgId: number) {
  let text = '';
  for await (const line of exportOrganisation(orgId)) text += `${line}\n`;
  return {
    text,
    lines: text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Line),
  };
}

/** A fresh organisation, the export imported into it: its admin and the import's report. */
async function importedInto(text: string) {
  const target = await orgWithClients(gateway);
  const report = await importExport({ orgId: target.org.orgId }, [text]);
  return { ...target, report };
}

/** Every page of `GET /export?per_page=…` by its `next` links, concatenated. */
async function restPages(admin: ApiClient, perPage: number): Promise<string> {
  let text = '';
  let at: string | undefined = `/api/v1/export?per_page=${perPage}`;
  while (at) {
    const res: { status: number; text: string; headers: Headers } = await admin.get(at);
    expect(res.status, res.text).toBe(200);
    text += res.text;
    at = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return text;
}

const projectReport = (report: ExportImportReport) => Object.values(report.projects)[0]!;

describe('GitHub in an export and its import', () => {
  it('writes the connection without its secret and each link as a line of its own', async () => {
    const { org, admin, project, repo, one, two } = await linkedWorld();
    const { text, lines } = await exported(org.orgId);
    const sealed = (await getRepository(repo))!.secret;
    expect(text).not.toContain(sealed);
    expect(text).not.toMatch(/secret/i);
    const connections = lines.filter((l) => l.kind === 'github_connection');
    expect(connections).toEqual([
      {
        kind: 'github_connection',
        project_id: project.id,
        repository_owner: repo.split('/')[0],
        repository_name: 'hello-world',
        automation: { enabled: true, on_open: null, on_merge: 'done', merge_needs_closing_word: false },
        actor_email: 'github@integrations.invalid',
        last_delivery_at: expect.any(String),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    // After its project's issues and their contents: the connection closes its project.
    const at = (kind: string) => lines.findIndex((l) => l.kind === kind);
    expect(at('github_connection')).toBeGreaterThan(lines.findLastIndex((l) => l.kind === 'github_link'));
    const links = lines.filter((l) => l.kind === 'github_link');
    expect(links.map((l) => [l.issue_id, l.link_kind, l.ref]).sort()).toEqual(
      [
        [one.id, 'pull_request', '77'],
        [one.id, 'pull_request', '12'],
        [one.id, 'branch', `feature/${one.issue_number}-login`],
        [two.id, 'commit', 'c'.repeat(40)],
      ].sort(),
    );
    // Each link line: the link as GET …/links answers it (its kind as `link_kind`), with its project and issue.
    const fields = Object.keys(IssueLink.shape).filter((f) => f !== 'kind');
    for (const l of links)
      expect(Object.keys(l).sort()).toEqual(['kind', 'link_kind', 'project_id', 'issue_id', ...fields].sort());
    const end = lines.at(-1)!;
    expect(end.counts).toMatchObject({ github_connection: 1, github_link: 4 });
    // Over REST, a line a page: the same lines (the header's time and the digest aside).
    const body = (t: string) => t.split('\n').slice(1, -2);
    expect(body(await restPages(admin, 1))).toEqual(body(text));
  }, 120_000);

  it('an import into a fresh organisation gives back the same links and connection, without a secret until one is rotated', async () => {
    const { admin, project, repo, connection, one, two } = await linkedWorld();
    const source = await ok(admin.get(`/api/v1/projects/${project.id}/github`));
    const sourceLinks = { one: await linksOf(admin, one.issue_number), two: await linksOf(admin, two.issue_number) };
    const sourceIssues = await Promise.all([one, two].map((i) => ok(admin.get(`/api/v1/issues/${i.issue_number}`))));
    const { text } = await exported((await ok(admin.get('/api/v1/me'))).organisation.id);

    // The repository is still connected here: the import leaves it, and says so; the links come.
    const first = await importedInto(text);
    expect(first.report.errors).toEqual([]);
    expect(projectReport(first.report).warnings).toEqual([
      { row: expect.any(Number), key: repo, warnings: [expect.stringContaining('is connected to another project')] },
    ]);
    const firstProject = first.report.ids.projects[String(project.id)]!;
    expect((await first.admin.get(`/api/v1/projects/${firstProject}/github`)).status).toBe(404);
    expect(await ok(first.admin.get(`/api/v1/projects/${firstProject}`))).toMatchObject({
      github_repo_owner: null,
      github_repo_name: null,
    });
    expect(await linksOf(first.admin, one.issue_number)).toEqual(sourceLinks.one);
    // It may connect another repository (its line's claim on this one was taken off).
    const elsewhere = `octo-${randomUUID().slice(0, 8)}/other`;
    expect((await first.admin.put(`/api/v1/projects/${firstProject}/github`, { github: { repository: elsewhere } })).status).toBe(
      200,
    );

    // Disconnected there, the import connects it here: the same settings, times and links.
    expect((await admin.delete(`/api/v1/projects/${project.id}/github`)).status).toBe(204);
    const { admin: target, report } = await importedInto(text);
    expect(report.errors).toEqual([]);
    expect(projectReport(report).warnings).toEqual([
      {
        row: expect.any(Number),
        key: repo,
        warnings: [expect.stringMatching(/connected without a webhook secret: an admin rotates/)],
      },
    ]);
    const projectId = report.ids.projects[String(project.id)]!;
    expect(await ok(target.get(`/api/v1/projects/${projectId}/github`))).toEqual({ ...source, project_id: projectId });
    expect(await ok(target.get(`/api/v1/projects/${projectId}`))).toMatchObject({
      github_repo_owner: repo.split('/')[0],
      github_repo_name: 'hello-world',
    });
    expect(await linksOf(target, one.issue_number)).toEqual(sourceLinks.one);
    expect(await linksOf(target, two.issue_number)).toEqual(sourceLinks.two);
    const issues = await Promise.all([one, two].map((i) => ok(target.get(`/api/v1/issues/${i.issue_number}`))));
    expect(issues.map((i) => i.links)).toEqual(sourceIssues.map((i) => i.links));
    // The automation writes as the organisation's GitHub account, brought by the file.
    const accounts: Line[] = await ok(target.get('/api/v1/accounts'));
    const actor = accounts.find((a) => a.email === 'github@integrations.invalid');
    expect((await getRepository(repo))?.actorId).toBe(actor?.id);

    // Nobody knows the secret: the old one is refused; rotated, deliveries link again.
    const push = from(example('push'), repo);
    push.ref = 'refs/heads/feature/y';
    push.commits = [
      {
        ...(example('push').commits[0] ?? {}),
        id: 'd'.repeat(40),
        url: `https://github.com/${repo}/commit/${'d'.repeat(40)}`,
        message: `More on ${two.issue_number}`,
        timestamp: '2026-12-02T12:00:00Z',
        author: { name: 'Ada', username: 'ada' },
      },
    ];
    expect((await deliver('push', push, connection.secret)).status).toBe(401);
    // Imported without a secret: not even one signed with an empty key is taken.
    expect((await deliver('push', push, '')).status).toBe(401);
    const rotated = await ok(target.post(`/api/v1/projects/${projectId}/github/secret`));
    expect((await deliver('push', push, rotated.secret)).body.status).toBe('accepted');
    await eventually(
      'the link made after the rotation',
      () => linksOf(target, two.issue_number),
      (l) => l.length === 2,
    );

    // Again: nothing more (no link twice, the connection left as it is).
    const again = await importExport({ orgId: (await ok(target.get('/api/v1/me'))).organisation.id }, [text]);
    expect(again.errors).toEqual([]);
    expect(projectReport(again).warnings).toEqual([]);
    expect(await linksOf(target, one.issue_number)).toEqual(sourceLinks.one);
    expect((await ok(target.get(`/api/v1/issues/${two.issue_number}`))).links.count).toBe(2);
  }, 120_000);

  it('a dry run writes nothing of it', async () => {
    const { admin, project, repo } = await linkedWorld();
    const { text } = await exported((await ok(admin.get('/api/v1/me'))).organisation.id);
    expect((await admin.delete(`/api/v1/projects/${project.id}/github`)).status).toBe(204);
    const target = await orgWithClients(gateway);
    const report = await importExport({ orgId: target.org.orgId, dryRun: true }, [text]);
    expect(report.errors).toEqual([]);
    expect(await getRepository(repo)).toBeUndefined();
    expect((await ok(target.admin.get('/api/v1/projects'))).length).toBe(0);
  }, 120_000);
});

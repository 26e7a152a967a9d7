import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAccountInOrg } from '../../lib/domain/accounts.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';

/** `POST /imports` and `GET /imports/{job_id}` end to end: upload, background run (the stream consumer), poll, report. */

const gateway = useGateway();
const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');

async function until(client: ApiClient, path: string, done: (body: { status: string }) => boolean, timeoutMs = 15_000) {
  const started = Date.now();
  for (;;) {
    const res = await client.get(path);
    expect(res.status).toBe(200);
    if (done(res.body)) return res;
    if (Date.now() - started > timeoutMs) throw new Error(`job still ${JSON.stringify(res.body)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function setup() {
  const { org, admin, member } = await orgWithClients(gateway);
  await createAccountInOrg(org.orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
  const project = await admin.post('/api/v1/projects', { project: { name: 'Imported', prefix: randomPrefix() } });
  return { admin, member, projectId: project.body.id as number };
}

const upload = (client: ApiClient, query: string, body: string, contentType: string) =>
  client.request('POST', `/api/v1/imports?${query}`, { raw: body, headers: { 'Content-Type': contentType } });

describe('import jobs over REST', () => {
  it('runs an uploaded Jira CSV in the background; polling shows the report; the same file again creates nothing', async () => {
    const { admin, projectId } = await setup();
    const res = await upload(admin, `format=jira-csv&project_id=${projectId}`, fixture('jira.csv'), 'text/csv');
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'queued', format: 'jira-csv', project_id: projectId, dry_run: false, report: null });
    expect(res.headers.get('location')).toBe(`/api/v1/imports/${res.body.id}`);

    const done = await until(admin, `/api/v1/imports/${res.body.id}`, (b) => b.status === 'succeeded' || b.status === 'failed');
    expect(done.body).toMatchObject({ status: 'succeeded', error: null, progress: { rows: 6, created: 4, rejected: 2 } });
    expect(done.body.report).toMatchObject({
      created: 4,
      rejected: 2,
      unknown_people: [
        { name: 'Grace Hopper', rows: 1 },
        { name: 'nobody@elsewhere.example', rows: 1 },
      ],
    });
    const backlog = await admin.get(`/api/v1/projects/${projectId}/issues?per_page=100`);
    expect(backlog.body.map((i: { title: string }) => i.title)).toContain('Receipt e-mail in 日本語 🎉');

    const again = await upload(admin, `format=jira-csv&project_id=${projectId}`, fixture('jira.csv'), 'text/csv');
    const second = await until(
      admin,
      `/api/v1/imports/${again.body.id}`,
      (b) => b.status === 'succeeded' || b.status === 'failed',
    );
    expect(second.body.report).toMatchObject({ created: 0, already_imported: 4 });
  });

  it('a dry run job reports and writes nothing', async () => {
    const { admin, projectId } = await setup();
    const res = await upload(
      admin,
      `format=github-json&project_id=${projectId}&dry_run=true`,
      fixture('github.json'),
      'application/json',
    );
    expect(res.status).toBe(202);
    const done = await until(admin, `/api/v1/imports/${res.body.id}`, (b) => b.status === 'succeeded' || b.status === 'failed');
    expect(done.body.report).toMatchObject({ dry_run: true, created: 4, rejected: 2 });
    expect(done.body.report.rejected_rows.map((r: { row: number }) => r.row)).toEqual([4, 5]);
    expect((await admin.get(`/api/v1/projects/${projectId}/issues`)).body).toEqual([]);
  });

  it('refuses members (403), a wrong media type (415), a bad query (422), another project (404), and an unknown job (404)', async () => {
    const { admin, member, projectId } = await setup();
    expect((await upload(member, `format=jira-csv&project_id=${projectId}`, 'x', 'text/csv')).status).toBe(403);
    expect((await upload(admin, `format=jira-csv&project_id=${projectId}`, '[]', 'application/json')).status).toBe(415);
    const bad = await upload(admin, `format=xml&project_id=${projectId}`, 'x', 'text/csv');
    expect(bad.status).toBe(422);
    expect(bad.body.errors.join()).toMatch(/format/);
    expect((await upload(admin, 'format=jira-csv&project_id=999999', 'Summary\n', 'text/csv')).status).toBe(404);
    expect((await admin.get('/api/v1/imports/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await member.get('/api/v1/imports/00000000-0000-0000-0000-000000000000')).status).toBe(403);
  });

  it('a file the import cannot read ends the job failed, with the reason', async () => {
    const { admin, projectId } = await setup();
    const res = await upload(admin, `format=jira-csv&project_id=${projectId}`, 'Title,Key\nA,B\n', 'text/csv');
    const done = await until(admin, `/api/v1/imports/${res.body.id}`, (b) => b.status === 'succeeded' || b.status === 'failed');
    expect(done.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/Summary/) });
  });
});

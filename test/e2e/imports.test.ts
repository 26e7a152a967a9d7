import { readFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { orgPk } from '../../lib/db/core/keys.ts';
import { createAccountInOrg } from '../../lib/services/accounts.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { newOrganisation, orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';
import { startReceiver, waitFor, type Receiver } from '../support/receiver.ts';

/** `POST /imports` and `GET /imports/{job_id}` end to end: upload, background run (the stream consumer), poll, report. */

const gateway = useGateway();
const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');
/** In the whole suite, the one local stream poller carries every file's cascades too: events can wait. */
const FEED_WAIT_MS = 90_000;
const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/**
 * The job at `path` once `done` holds, read until then within the bound of a job of `rows` rows. The
 * consumer's deadline is a few milliseconds here: a job writes a row or two a run, over up to `runs` runs.
 */
async function until(client: ApiClient, path: string, done: (body: { status: string }) => boolean, rows = 100, runs = 20) {
  const res = await eventually(
    `the job at ${path} to finish`,
    () => client.get(path),
    (r) => r.status !== 200 || done(r.body),
    bounds.job(rows, runs),
  );
  expect(res.status).toBe(200);
  return res;
}
const finished = (b: { status: string }) => b.status === 'succeeded' || b.status === 'failed';

async function setup(prefix = randomPrefix()) {
  const { org, admin, member } = await orgWithClients(gateway);
  await createAccountInOrg(org.orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
  await createAccountInOrg(org.orgId, { name: 'Grace', email: 'grace@example.com', role: 'member' });
  const project = await admin.post('/api/v1/projects', { project: { name: 'Imported', prefix } });
  return { org, admin, member, projectId: project.body.id as number };
}

/** The organisation's import jobs, as stored: a refused upload makes none. */
async function jobItems(orgId: number) {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':job': 'IMPORTJOB#' },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

const exportHeader = JSON.stringify({ format: 'sprint-ticketing-export', version: 2, organisation: { id: 1, name: 'A' } });

const upload = (client: ApiClient, query: string, body: string, contentType: string) =>
  client.request('POST', `/api/v1/imports?${query}`, { raw: body, headers: { 'Content-Type': contentType } });

/** The Jira sample's mapping: people by display name and by Jira account id, in Paris time. */
const mapping = {
  people: { 'Ada Lovelace': 'ada@example.com', '557058:ada-1111': 'ada@example.com', '557058:grace-2222': 'grace@example.com' },
  timeZone: 'Europe/Paris',
};

describe('import jobs over REST', () => {
  it('take the mapping and keep_numbers like the CLI; the report maps every key', async () => {
    const { admin, projectId } = await setup('DI');
    const envelope = JSON.stringify({ file: fixture('jira.csv'), mapping });
    const res = await upload(admin, `format=jira-csv&project_id=${projectId}&keep_numbers=true`, envelope, 'application/json');
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({
      status: 'queued',
      format: 'jira-csv',
      project_id: projectId,
      keep_numbers: true,
      mapping,
      report: null,
    });
    expect(res.headers.get('location')).toBe(`/api/v1/imports/${res.body.id}`);

    // The consumer's deadline is a few milliseconds here: the job goes on over many runs, as a long one does in AWS.
    const done = await until(admin, `/api/v1/imports/${res.body.id}`, finished);
    expect(done.body).toMatchObject({ status: 'succeeded', error: null, progress: { rows: 8, created: 6, rejected: 2 } });
    expect(done.body.report).toMatchObject({
      created: 6,
      already_imported: 0,
      rejected: 2,
      comments: 4,
      keep_numbers: true,
      keys: {
        'DI-127': 'DI-127',
        'DI-128': 'DI-128',
        'DI-129': 'DI-129',
        'DI-130': 'DI-130',
        'DI-131': 'DI-131',
        'DI-140': 'DI-140',
      },
      relations: { linked: 4 },
      parents: { linked: 2 },
    });
    const story = await admin.get('/api/v1/issues/DI-127');
    expect(story.body).toMatchObject({
      source_key: 'DI-127',
      assignee_id: expect.any(Number),
      created_at: '2026-02-25T21:17:00.000Z',
    });
    // A search for the source key finds it.
    expect((await admin.get('/api/v1/issues?q=DI-127')).body.map((i: { source_key: string }) => i.source_key)).toEqual([
      'DI-127',
    ]);
    // Later creates continue after the highest number.
    expect((await admin.post(`/api/v1/projects/${projectId}/issues`, { issue: { title: 'Next' } })).body.issue_number).toBe(
      'DI-141',
    );
  }, 120_000);

  it('take GitHub JSON as it is (application/json): a dry run writes nothing, a run creates, the same file again creates nothing', async () => {
    const { admin, projectId } = await setup();
    const job = async (query: string) => {
      const res = await upload(
        admin,
        `format=github-json&project_id=${projectId}${query}`,
        fixture('github.json'),
        'application/json',
      );
      expect(res.status).toBe(202);
      return (await until(admin, `/api/v1/imports/${res.body.id}`, finished)).body;
    };
    const dry = await job('&dry_run=true');
    // A dry run creates nothing, and says what would be created as such.
    expect(dry.progress).toEqual({ rows: 6, created: 0, would_create: 4, rejected: 2 });
    expect(dry.report).toMatchObject({
      dry_run: true,
      created: 0,
      would_create: 4,
      rejected: 2,
      comments: 0,
      would_create_comments: 2,
    });
    expect(dry.report.rejected_rows.map((r: { row: number }) => r.row)).toEqual([4, 5]);
    expect((await admin.get(`/api/v1/projects/${projectId}/issues`)).body).toEqual([]);

    const done = await job('');
    expect(done).toMatchObject({ status: 'succeeded', report: { created: 4, already_imported: 0, comments: 2 } });
    expect(Object.keys(done.report.keys).sort()).toEqual(['acme/app#12', 'acme/app#13', 'acme/app#14', 'acme/app#16']);
    const again = await job('');
    expect(again.report).toMatchObject({ created: 0, already_imported: 4, comments: 0 });
    expect(again.report.keys).toEqual(done.report.keys);
  }, 120_000);

  it('take an export file (application/x-ndjson) into the organisation', async () => {
    const { org, admin: sourceAdmin } = await orgWithClients(gateway);
    const prefix = randomPrefix();
    const project = await sourceAdmin.post('/api/v1/projects', { project: { name: 'Exported', prefix } });
    for (const title of ['One', 'Two'])
      await sourceAdmin.post(`/api/v1/projects/${project.body.id}/issues`, { issue: { title, type: 'bug' } });
    let file = '';
    for await (const line of exportOrganisation(org.orgId)) file += `${line}\n`;

    const { admin } = await orgWithClients(gateway);
    const res = await upload(admin, 'format=export', file, 'application/x-ndjson');
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body).toMatchObject({ format: 'export', project_id: null, keep_numbers: true });
    const done = await until(admin, `/api/v1/imports/${res.body.id}`, finished);
    expect(done.body).toMatchObject({
      status: 'succeeded',
      report: { format: 'export', errors: [], keys: { [`${prefix}-1`]: `${prefix}-1` } },
    });
    expect((await admin.get(`/api/v1/issues/${prefix}-2`)).body).toMatchObject({ title: 'Two', type: 'bug' });
  }, 120_000);

  it('refuse synchronously (422 {errors}) every file the docs refuse before writing: nothing written, no job', async () => {
    const { org, admin, projectId } = await setup('DI');
    const jira = `format=jira-csv&project_id=${projectId}`;
    const rows = Array.from({ length: 30 }, (_, i) => `Row ${i + 1},DI-${i + 1},To Do,Sprint A,label-${i}`);
    const header = 'Summary,Issue key,Status,Sprint,Labels';
    const github = `format=github-json&project_id=${projectId}`;
    const refusals: [query: string, body: string, contentType: string, error: RegExp][] = [
      // A CSV that is not CSV: a quote never closed at row 31.
      [
        jira,
        `${header}\n${rows.join('\n')}\n"Never closed,DI-31,To Do,,\nRow 32,DI-32,To Do,,\n`,
        'text/csv',
        /row 31 \(line 32\): a quoted field is not closed/,
      ],
      // A CSV without its required columns.
      [jira, 'Title,Key\nA,B\n', 'text/csv', /the CSV header has no Summary, Issue key, Status column/],
      // keep_numbers: keys without the project's prefix, as the file itself or in an envelope with its mapping.
      [
        `${jira}&keep_numbers=true`,
        `${header}\n${rows[0]}\nOther,XY-7,To Do,,\n`,
        'text/csv',
        /keep_numbers: 1 key\(s\) do not have the project's prefix DI \(XY-7\)/,
      ],
      [
        `${jira}&keep_numbers=true`,
        JSON.stringify({ file: `${header}\nOther,XY-7,To Do,,\n`, mapping: {} }),
        'application/json',
        /XY-7/,
      ],
      // GitHub: JSON that is not an array, or not JSON.
      [github, '"issues"', 'application/json', /the file must be a JSON array of issues/],
      [github, '[{"number": 1,', 'application/json', /the file is not JSON/],
      // An export file cut short (no end line), or of another format.
      ['format=export', `${exportHeader}\n{"kind":"account","id":1}\n`, 'application/x-ndjson', /no end line: it was cut short/],
      ['format=export', '{"format":"other"}\n', 'application/x-ndjson', /not a sprint-ticketing-export file/],
    ];
    for (const [query, body, contentType, error] of refusals) {
      const res = await upload(admin, query, body, contentType);
      expect(res.status, `${query}: ${JSON.stringify(res.body)}`).toBe(422);
      expect(res.body.errors.join('; ')).toMatch(error);
    }
    expect(await jobItems(org.orgId)).toEqual([]);
    expect((await admin.get(`/api/v1/projects/${projectId}/issues`)).body).toEqual([]);
    expect((await admin.get(`/api/v1/projects/${projectId}/sprints`)).body).toEqual([]);
    expect((await admin.get(`/api/v1/projects/${projectId}/labels`)).body).toEqual([]);
    // The same file with its project's keys is taken.
    const taken = await upload(admin, `${jira}&keep_numbers=true&dry_run=true`, `${header}\n${rows[0]}\n`, 'text/csv');
    expect(taken.status).toBe(202);
  });

  it('send one import.completed event per job, with its counts, and no event per issue', async () => {
    const { admin, projectId } = await setup();
    const r = await startReceiver();
    receivers.push(r);
    const hook = await admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['*'] } });
    expect(hook.status).toBe(201);
    r.secret = hook.body.secret;
    const res = await upload(admin, `format=github-json&project_id=${projectId}`, fixture('github.json'), 'application/json');
    await until(admin, `/api/v1/imports/${res.body.id}`, finished);
    const completed = () => r.accepted().filter((d) => d.body.type === 'import.completed');
    await waitFor(() => completed().length > 0, FEED_WAIT_MS, 'the import.completed event');
    // Anything the import's writes sent would have come before the job's last write: wait a moment more.
    await new Promise((done) => setTimeout(done, 1500));
    expect(completed()).toHaveLength(1);
    expect(completed()[0]?.body.data).toMatchObject({
      project_id: projectId,
      import: { id: res.body.id, status: 'succeeded', format: 'github-json', rows: 6, created: 4, rejected: 2, comments: 2 },
    });
    expect(r.accepted().filter((d) => d.body.type !== 'import.completed')).toEqual([]);
  }, 120_000);

  it('refuse members (403), a wrong media type (415), bad queries and envelopes (422), another project (404), an unknown job (404)', async () => {
    const { admin, member, projectId } = await setup();
    const jira = `format=jira-csv&project_id=${projectId}`;
    expect((await upload(member, jira, 'x', 'text/csv')).status).toBe(403);
    expect((await upload(admin, jira, '[]', 'application/json')).status).toBe(415);
    expect((await upload(admin, 'format=export', '{}', 'text/csv')).status).toBe(415);
    const refused = async (query: string, body: string, contentType: string, error: RegExp) => {
      const res = await upload(admin, query, body, contentType);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.errors.join(), query).toMatch(error);
    };
    await refused(`format=xml&project_id=${projectId}`, 'x', 'text/csv', /format/);
    await refused('format=jira-csv', 'Summary\n', 'text/csv', /project_id is required for format jira-csv/);
    await refused(`format=export&project_id=${projectId}`, '{}', 'application/x-ndjson', /leave project_id out/);
    await refused(`${jira}&keep_numbers=yes`, 'x', 'text/csv', /keep_numbers must be true or false/);
    await refused(jira, JSON.stringify({ file: 'x', maping: {} }), 'application/json', /maping/);
    await refused(jira, JSON.stringify({ file: 'x', mapping: { timeZone: 'Mars/Base' } }), 'application/json', /IANA time zone/);
    await refused(jira, JSON.stringify({ file: 'x', mapping: { statuses: { Open: 'opened' } } }), 'application/json', /statuses/);
    expect((await upload(admin, jira, '{"file":', 'application/json')).status).toBe(400);
    const other = await newOrganisation();
    expect((await upload(admin, `format=jira-csv&project_id=${other.orgId + 999_999}`, 'Summary\n', 'text/csv')).status).toBe(
      404,
    );
    expect((await admin.get('/api/v1/imports/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await member.get('/api/v1/imports/00000000-0000-0000-0000-000000000000')).status).toBe(403);
  });
});

import { readFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { getImportJob } from '../../lib/db/imports/import-jobs.ts';
import { projectPk } from '../../lib/db/core/keys.ts';
import { createAccountInOrg, me, setHandle } from '../../lib/services/accounts.ts';
import { listIssueActivity } from '../../lib/services/activity.ts';
import { listComments } from '../../lib/services/comments.ts';
import { createIssue, listIssues } from '../../lib/services/issues.ts';
import { listRelations } from '../../lib/services/relations.ts';
import { listStates } from '../../lib/services/states.ts';
import { searchIssues } from '../../lib/services/search.ts';
import { parseSelection } from '../../lib/model/selection.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { ImportFailed, importIssues } from '../../lib/services/import-export/import.ts';
import { runClaimedJob } from '../../lib/services/import-export/job-runner.ts';
import { getImportJobStatus } from '../../lib/services/import-export/jobs.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { injectFault } from '../support/faults.ts';
import { storeImportJob } from '../support/import-job.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** Imports of the checked-in Jira "all fields" CSV and `gh issue list --json` samples on DynamoDB Local. */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');

/** How the Jira sample's people map to accounts: by display name, and by Jira account id. */
const jiraPeople = {
  people: {
    'Ada Lovelace': 'ada@example.com',
    '557058:ada-1111': 'ada@example.com',
    '557058:grace-2222': 'grace@example.com',
  },
};

/** An account's handle, as `GET /me` shows it. */
const handleOf = async (orgId: number, accountId: number) =>
  (await me({ orgId, accountId, role: 'member', tokenHash: '' })).account.handle;

async function setup(prefix = randomPrefix()) {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const ada = await createAccountInOrg(org.orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
  const grace = await createAccountInOrg(org.orgId, { name: 'Grace', email: 'grace@example.com', role: 'member' });
  const project = await createProject(caller, { name: 'Import', prefix });
  return {
    caller,
    orgId: org.orgId,
    projectId: project.id,
    adminId: org.admin.id,
    adaId: ada.account.id,
    graceId: grace.account.id,
  };
}

/** Every item in the project's partition: a dry run, or a refused file, must leave it as it was. */
async function partition(orgId: number, projectId: number) {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId) },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function allIssues(caller: Principal, projectId: number): Promise<Issue[]> {
  const backlog = await listIssues(caller, { projectId, sprintId: null }, { page: 1, perPage: 100 });
  const sprintIds = (await partition(caller.orgId, projectId)).filter((i) => i.type === 'sprint').map((s) => Number(s.id));
  const inSprints = await Promise.all(
    sprintIds.map(async (sprintId) => (await listIssues(caller, { projectId, sprintId }, { page: 1, perPage: 100 })).items),
  );
  return [...backlog.items, ...inSprints.flat()];
}

const byKey = (issues: Issue[]) => new Map(issues.map((i) => [i.source_key ?? '', i]));
const warningsOf = (report: { warnings: { key: string; warnings: string[] }[] }, key: string) =>
  report.warnings.find((w) => w.key === key)?.warnings.join('\n') ?? '';

describe('import of a Jira Cloud "all fields" CSV export', () => {
  it('takes every value where it belongs, warns (row, column, value) about the rest, and a second run creates nothing', async () => {
    const { caller, orgId, projectId, adminId, adaId, graceId } = await setup();
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', mapping: jiraPeople }, [fixture('jira.csv')]);

    expect(report).toMatchObject({ rows: 8, created: 6, already_imported: 0, rejected: 2, comments: 4 });
    expect(report.rejected_rows.map((r) => [r.key, r.errors.join()])).toEqual([
      ['DI-128', expect.stringContaining('appears more than once')],
      ['DI-133', expect.stringContaining('title')],
    ]);
    const issues = byKey(await allIssues(caller, projectId));
    // Every source key maps to its issue's key here.
    expect(Object.keys(report.keys).sort()).toEqual(['DI-127', 'DI-128', 'DI-129', 'DI-130', 'DI-131', 'DI-140']);
    for (const [key, number] of Object.entries(report.keys)) expect(issues.get(key)?.issue_number).toBe(number);

    const epic = issues.get('DI-140');
    const story = issues.get('DI-127');
    expect(story).toMatchObject({
      title: 'Checkout flow',
      type: 'story',
      status: 'in_progress',
      priority: 'high',
      assignee_id: adaId,
      // The second candidate column: the first is empty.
      story_points: 5,
      created_at: '2026-02-25T22:17:00.000Z',
      updated_at: '2026-02-26T09:05:00.000Z',
      // Its parent comes after it in the file.
      parent_id: epic?.id,
      // Its Jira attachment noted at the end, as a link (nothing fetched).
      description:
        'Line one\nLine two, with "quotes", and a comma\n\nLast line: 日本語 🎉\n\n---\n' +
        'Attachments in the source (not copied here; the links lead to the files there):\n' +
        '- [mock.png](<https://example.invalid/mock.png>)',
      source_key: 'DI-127',
    });
    expect(story?.labels.map((l) => l.name)).toEqual(['payments', 'ui']);
    // The last sprint named is its sprint; the earlier one is its history, reported.
    const sprintOf = async (issue: Issue | undefined) =>
      (await partition(orgId, projectId)).find((i) => i.type === 'sprint' && i.id === issue?.sprint_id)?.name;
    expect(await sprintOf(story)).toBe('DI Sprint 2');
    expect(report.sprint_history).toEqual([expect.objectContaining({ key: 'DI-127', sprints: ['DI Sprint 1'] })]);
    // Comments with their times and their authors, mapped by Jira account id.
    const comments = await listComments(
      caller,
      { projectId, sprintId: story?.sprint_id ?? null, issueId: story?.id as number },
      {
        page: 1,
        perPage: 100,
      },
    );
    expect(comments.items.map((c) => [c.body, c.author_id, c.created_at])).toEqual([
      ['Started; the form first.', adaId, '2026-02-26T09:00:00.000Z'],
      ['Looks good — ship it', graceId, '2026-02-26T18:30:00.000Z'],
    ]);

    const bug = issues.get('DI-128');
    expect(bug).toMatchObject({
      type: 'bug',
      priority: 'urgent',
      status: 'todo',
      story_points: 3,
      due_date: '2026-03-10',
      blocked: true,
    });
    expect(warningsOf(report, 'DI-128')).toContain(
      'Custom field (Story point estimate) "8" left out: Custom field (Story Points) "3" is taken',
    );
    expect(warningsOf(report, 'DI-128')).toContain('Reporter "Zed Unknown" has no account here: the importer is its author');
    expect(await sprintOf(bug)).toBe('DI Sprint 2');
    const done = issues.get('DI-129');
    expect(done).toMatchObject({
      status: 'done',
      priority: 'low',
      assignee_id: graceId,
      completed_at: '2026-03-01T16:00:00.000Z',
    });
    expect(await sprintOf(done)).toBe('DI Sprint 1');
    expect(warningsOf(report, 'DI-129')).toMatch(/Comment "not a comment cell" is not "date;author;body"/);
    expect(issues.get('DI-130')).toMatchObject({
      type: 'task',
      status: 'cancelled',
      parent_id: epic?.id,
      completed_at: '2026-02-22T09:00:00.000Z',
    });
    expect(epic).toMatchObject({ type: 'epic', status: 'backlog', story_points: 14, sprint_id: null });
    expect(epic?.sub_issues_summary.total).toBe(2);
    expect(warningsOf(report, 'DI-140')).toContain('Custom field (Story Points) "13.5" rounded to 14');
    const qa = issues.get('DI-131');
    expect(qa).toMatchObject({ type: 'task', status: 'todo', priority: 'none', due_date: null, completed_at: null });
    for (const warning of [
      'Status "Waiting for QA" is not mapped: imported as todo',
      'Issue Type "Improvement" is not mapped: imported as task',
      'Priority "P9" is not mapped: imported as none',
      'Due date "not a date" is not a date: left empty',
      'Resolved "23/Feb/26 9:00 AM" left out: the issue is todo, not done or cancelled',
      'Assignee "Nobody Known" has no account here: left unassigned',
    ])
      expect(warningsOf(report, 'DI-131')).toContain(warning);
    expect(report.unknown_people).toEqual([
      { name: '557058:zed-9999', rows: 1 },
      { name: 'Nobody Known', rows: 1 },
      { name: 'Zed Unknown', rows: 1 },
    ]);
    expect(report.unmapped_statuses).toEqual([{ status: 'Waiting for QA', rows: 1, imported_as: 'todo' }]);
    // Columns the import does not read: named once, with their count of values.
    expect(report.unknown_columns).toEqual(
      expect.arrayContaining([
        { name: 'Watchers', values: 2 },
        { name: 'Project key', values: 1 },
        { name: 'Parent summary', values: 1 },
        { name: 'Votes', values: 0 },
      ]),
    );
    expect(report.unknown_columns.map((c) => c.name)).not.toContain('Labels');
    expect(report.unknown_columns.map((c) => c.name)).not.toContain('Attachment');
    expect(report.attachment_links).toEqual([
      { row: expect.any(Number), key: 'DI-127', links: [{ name: 'mock.png', url: 'https://example.invalid/mock.png' }] },
    ]);

    // Issue links, each relation once though both rows name it; Cloners as relates_to.
    expect(report.relations.linked).toBe(4);
    expect(report.relations.unresolved).toEqual([expect.objectContaining({ key: 'DI-131', other_key: 'DI-999' })]);
    const relationsOf = async (key: string) =>
      (await listRelations(caller, report.keys[key] as string)).map((r) => `${r.type} ${r.issue.issue_number}`).sort();
    expect(await relationsOf('DI-127')).toEqual([`blocks ${report.keys['DI-128']}`, `relates_to ${report.keys['DI-129']}`]);
    expect(await relationsOf('DI-130')).toEqual([`duplicates ${report.keys['DI-129']}`, `relates_to ${report.keys['DI-128']}`]);
    expect(report.parents).toEqual({ linked: 2, already_linked: 0, unresolved: [] });

    // The reporter is the author (by Jira account id): `author:` finds it; its source key finds it.
    const search = (q: string) => searchIssues(caller, parseSelection(q), { perPage: 100 });
    expect((await search(`DI-127 author:${graceId}`)).items.map((i) => i.source_key)).toEqual(['DI-127']);
    expect((await search('di-140')).items.map((i) => i.title)).toEqual(['Payments epic']);
    expect((await search(`author:${adminId}`)).items.map((i) => i.source_key).sort()).toEqual(['DI-128', 'DI-131']);

    // One history entry per issue: imported, with its source key; the issue keeps its source times.
    const activity = await listIssueActivity(
      caller,
      { projectId, sprintId: story?.sprint_id ?? null, issueId: story?.id as number },
      {
        page: 1,
        perPage: 100,
      },
    );
    expect(activity.items).toEqual([
      expect.objectContaining({ event: 'issue.imported', actor_id: adminId, changes: [{ field: 'source_key', to: 'DI-127' }] }),
    ]);
    expect(activity.total).toBe(1);

    const before = await partition(orgId, projectId);
    const again = await importIssues({ orgId, projectId, format: 'jira-csv', mapping: jiraPeople }, [fixture('jira.csv')]);
    expect(again).toMatchObject({ created: 0, already_imported: 6, comments: 0, created_sprints: [], created_labels: [] });
    expect(again.keys).toEqual(report.keys);
    // It reports what it looked at: the rows it took before only counted, the links found in place.
    expect(report.warnings.length).toBeGreaterThan(0);
    expect(report.sprint_history.length).toBeGreaterThan(0);
    expect(again).toMatchObject({
      warnings: [],
      unknown_people: [],
      unmapped_statuses: [],
      sprint_history: [],
      attachment_links: [],
      rejected: report.rejected,
      rejected_rows: report.rejected_rows,
      parents: { linked: 0, already_linked: 2, unresolved: [] },
      relations: { linked: 0, already_linked: 4, unresolved: report.relations.unresolved },
    });
    expect((await partition(orgId, projectId)).length).toBe(before.length);
  });

  it('reads times in the time zone the mapping names (UTC unless set)', async () => {
    const { caller, orgId, projectId } = await setup();
    await importIssues({ orgId, projectId, format: 'jira-csv', mapping: { ...jiraPeople, timeZone: 'Europe/Paris' } }, [
      fixture('jira.csv'),
    ]);
    expect(byKey(await allIssues(caller, projectId)).get('DI-127')).toMatchObject({
      created_at: '2026-02-25T21:17:00.000Z',
      updated_at: '2026-02-26T08:05:00.000Z',
    });
  });

  it('keep_numbers: into an empty project of the same prefix, DI-127 stays DI-127, and later creates continue after the highest', async () => {
    const { caller, orgId, projectId } = await setup('DI');
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', keepNumbers: true, mapping: jiraPeople }, [
      fixture('jira.csv'),
    ]);
    expect(report.keys).toEqual({
      'DI-127': 'DI-127',
      'DI-128': 'DI-128',
      'DI-129': 'DI-129',
      'DI-130': 'DI-130',
      'DI-131': 'DI-131',
      'DI-140': 'DI-140',
    });
    for (const issue of await allIssues(caller, projectId)) expect(issue.issue_number).toBe(issue.source_key);
    const next = await createIssue(caller, { projectId, sprintId: null }, { title: 'After the import' });
    expect(next.issue_number).toBe('DI-141');
  });

  it('keep_numbers: a number already taken gets a new one, and the report maps the old key to it', async () => {
    const { caller, orgId, projectId } = await setup('KN');
    for (const title of ['one', 'two', 'three']) await createIssue(caller, { projectId, sprintId: null }, { title });
    const csv = 'Summary,Issue key,Status\r\nTaken,KN-2,To Do\r\nFree,KN-5,To Do\r\n';
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', keepNumbers: true }, [csv]);
    expect(report.keys).toEqual({ 'KN-2': 'KN-6', 'KN-5': 'KN-5' });
    expect((await createIssue(caller, { projectId, sprintId: null }, { title: 'next' })).issue_number).toBe('KN-7');
  });

  it('maps source statuses to states one to one: a status that is its own step becomes a state of its category, once, listed in the dry run too', async () => {
    const { caller, orgId, projectId } = await setup();
    const csv = [
      'Summary,Issue key,Status',
      'a,ST-1,To Do',
      'b,ST-2,In Review',
      'c,ST-3,in review',
      'd,ST-4,QA',
      'e,ST-5,Done',
      'f,ST-6,Blocked by vendor',
    ].join('\r\n');
    const mapping = { statuses: { QA: 'in_progress' as const } };
    const before = await partition(orgId, projectId);
    const dry = await importIssues({ orgId, projectId, format: 'jira-csv', mapping, dryRun: true }, [csv]);
    expect(dry.created_states).toEqual([
      { name: 'In Review', category: 'in_progress' },
      { name: 'QA', category: 'in_progress' },
    ]);
    expect(dry.would_create_rows?.map((w) => w.status)).toEqual(['todo', 'in_review', 'in_review', 'qa', 'done', 'todo']);
    expect(await partition(orgId, projectId)).toEqual(before);

    const report = await importIssues({ orgId, projectId, format: 'jira-csv', mapping }, [csv]);
    expect(report.created_states).toEqual(dry.created_states);
    // A status the mapping does not hold goes where it always did, said in the report.
    expect(report.unmapped_statuses).toEqual([{ status: 'Blocked by vendor', rows: 1, imported_as: 'todo' }]);
    const issues = byKey(await allIssues(caller, projectId));
    expect(
      ['ST-1', 'ST-2', 'ST-3', 'ST-4', 'ST-5', 'ST-6'].map((k) => [issues.get(k)?.status, issues.get(k)?.status_category]),
    ).toEqual([
      ['todo', 'todo'],
      ['in_review', 'in_progress'],
      ['in_review', 'in_progress'],
      ['qa', 'in_progress'],
      ['done', 'done'],
      ['todo', 'todo'],
    ]);
    // Run again (a resumed or repeated import): nothing more is made.
    const again = await importIssues({ orgId, projectId, format: 'jira-csv', mapping }, [csv]);
    expect(again.created_states).toEqual([]);
    expect((await listStates(caller, projectId)).map((s) => s.name)).toEqual([
      'backlog',
      'todo',
      'in_progress',
      'In Review',
      'QA',
      'done',
      'cancelled',
    ]);
  });

  it('keep_numbers: keys of another prefix refuse the file before anything is written', async () => {
    const { orgId, projectId } = await setup('APL');
    const before = await partition(orgId, projectId);
    await expect(
      importIssues({ orgId, projectId, format: 'jira-csv', keepNumbers: true }, [fixture('jira.csv')]),
    ).rejects.toThrow(
      /keep_numbers: 7 key\(s\) do not have the project's prefix APL \(DI-127, DI-128, DI-129, DI-130, DI-131, …\)/,
    );
    expect(await partition(orgId, projectId)).toEqual(before);
  });

  it('dry run reports what it would create and every row it cannot take, and writes nothing', async () => {
    const { orgId, projectId } = await setup();
    const before = await partition(orgId, projectId);
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', dryRun: true, mapping: jiraPeople }, [
      fixture('jira.csv'),
    ]);
    // Nothing is created: what would be is said as such.
    expect(report).toMatchObject({
      dry_run: true,
      created: 0,
      would_create: 6,
      rejected: 2,
      comments: 0,
      would_create_comments: 4,
    });
    expect(report.would_create_rows?.map((w) => w.key)).toEqual(['DI-127', 'DI-128', 'DI-129', 'DI-130', 'DI-131', 'DI-140']);
    // Rows are the lines the records start on (the first record's description spans four lines).
    expect(report.rejected_rows.map((r) => r.row)).toEqual([10, 11]);
    expect([...report.created_sprints].sort()).toEqual(['DI Sprint 1', 'DI Sprint 2']);
    expect(await partition(orgId, projectId)).toEqual(before);
  });

  it('reads a file split anywhere into chunks the same as whole', async () => {
    const { orgId, projectId } = await setup();
    const text = fixture('jira.csv');
    const chunks = Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => text.slice(i * 7, i * 7 + 7));
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', dryRun: true }, chunks);
    expect(report.would_create_rows?.map((w) => w.title)).toContain('Card form rejects "Pay", with a comma');
    expect(report).toMatchObject({ created: 0, would_create: 6, rejected: 2 });
  });

  it('refuses a file without the columns it needs (422), writing nothing', async () => {
    const { orgId, projectId } = await setup();
    await expect(importIssues({ orgId, projectId, format: 'jira-csv' }, ['Title,Key\nA,B\n'])).rejects.toThrow(
      /Summary, Issue key, Status/,
    );
  });

  it('checks the whole file first: a quote never closed at row 31 creates nothing, and the error names the row', async () => {
    const { orgId, projectId } = await setup();
    const rows = Array.from({ length: 30 }, (_, i) => `Row ${i + 1},SRC-${i + 1},To Do,Sprint A,label-${i}`);
    const csv = `Summary,Issue key,Status,Sprint,Labels\n${rows.join('\n')}\n"Never closed,SRC-31,To Do,Sprint A,x\nRow 32,SRC-32,To Do,,\n`;
    const before = await partition(orgId, projectId);
    await expect(importIssues({ orgId, projectId, format: 'jira-csv' }, [csv])).rejects.toThrow(
      /not valid CSV: row 31 \(line 32\): a quoted field is not closed/,
    );
    expect(await partition(orgId, projectId)).toEqual(before);
  });

  it('fails part-way saying exactly what it created, and the same file again creates only the rest', async () => {
    const { caller, orgId, projectId } = await setup();
    // The write of DI-130 fails as DynamoDB might; what was written before it is in.
    const fault = injectFault({
      commands: ['TransactWriteItemsCommand'],
      fault: 'Unknown',
      when: (input) => JSON.stringify(input).includes('IMPORTED#jira#DI-130'),
    });
    let failed: ImportFailed | undefined;
    try {
      await importIssues({ orgId, projectId, format: 'jira-csv', mapping: jiraPeople }, [fixture('jira.csv')]);
    } catch (err) {
      failed = err as ImportFailed;
    } finally {
      fault.remove();
    }
    expect(failed).toBeInstanceOf(ImportFailed);
    // The report names exactly what is stored: nothing more, nothing less.
    const stored = (await allIssues(caller, projectId)).map((i) => i.source_key).sort();
    expect(stored).not.toContain('DI-130');
    expect(stored.length).toBeGreaterThan(0);
    expect(failed?.report.created).toBe(stored.length);
    expect(Object.keys(failed?.report.keys ?? {}).sort()).toEqual(stored);

    const rest = await importIssues({ orgId, projectId, format: 'jira-csv', mapping: jiraPeople }, [fixture('jira.csv')]);
    expect(rest).toMatchObject({
      created: 6 - stored.length,
      already_imported: stored.length,
      relations: { linked: 4, already_linked: 0 },
    });
    expect(rest.parents.linked + rest.parents.already_linked).toBe(2);
    expect((await allIssues(caller, projectId)).map((i) => i.source_key).sort()).toEqual([
      'DI-127',
      'DI-128',
      'DI-129',
      'DI-130',
      'DI-131',
      'DI-140',
    ]);
  });

  it('a job that fails part-way is saved failed with the report of what it created', async () => {
    const { caller, orgId, projectId, adminId } = await setup();
    const id = await storeImportJob(fixture('jira.csv'), { orgId, accountId: adminId, projectId }, { mapping: jiraPeople });
    const fault = injectFault({
      commands: ['TransactWriteItemsCommand'],
      fault: 'Unknown',
      when: (input) => JSON.stringify(input).includes('IMPORTED#jira#DI-130'),
    });
    try {
      expect(await runClaimedJob((await getImportJob(orgId, id))!)).toBe('failed');
    } finally {
      fault.remove();
    }
    const status = await getImportJobStatus(caller, id);
    const stored = (await allIssues(caller, projectId)).map((i) => i.source_key).sort();
    expect(stored).not.toContain('DI-130');
    expect(stored.length).toBeGreaterThan(0);
    expect(status).toMatchObject({
      status: 'failed',
      // The internal error's text is logged, not answered (test/integration/import-job-failures.test.ts).
      error: expect.stringMatching(/^The import failed: an internal error stopped it/),
      progress: { created: stored.length },
    });
    expect(status.report).toMatchObject({ created: stored.length });
    expect(Object.keys((status.report as { keys: Record<string, string> }).keys).sort()).toEqual(stored);
  });
});

describe('import of GitHub issues JSON (gh issue list --json …)', () => {
  it('maps numbers, authors, assignees, labels, milestones, close reasons and comments, and a second run creates nothing', async () => {
    const { caller, orgId, projectId, adaId, adminId } = await setup();
    const mapping = { people: { ada: 'ada@example.com' } };
    const report = await importIssues({ orgId, projectId, format: 'github-json', mapping }, [fixture('github.json')]);
    expect(report).toMatchObject({ rows: 6, created: 4, rejected: 2, comments: 2 });
    expect(report.rejected_rows.map((r) => [r.row, r.errors.join()])).toEqual([
      [4, expect.stringContaining('appears more than once')],
      [5, 'is not an issue object'],
    ]);
    expect(report.unknown_people).toEqual([
      { name: 'grace', rows: 1 },
      { name: 'outsider', rows: 1 },
      { name: 'stranger', rows: 1 },
    ]);
    expect(report.unmapped_statuses).toEqual([{ status: 'MERGED', rows: 1, imported_as: 'todo' }]);
    expect(report.created_sprints).toEqual(['v1.0']);
    expect(report.unknown_columns).toEqual([{ name: 'id', values: 5 }]);
    expect(Object.keys(report.keys).sort()).toEqual(['acme/app#12', 'acme/app#13', 'acme/app#14', 'acme/app#16']);
    const issues = byKey(await allIssues(caller, projectId));
    const crash = issues.get('acme/app#12');
    expect(crash).toMatchObject({
      status: 'todo',
      assignee_id: adaId,
      description: 'Steps:\n1. open\n2. crash 💥',
      created_at: '2026-11-01T10:00:00.000Z',
      updated_at: '2026-11-02T10:00:00.000Z',
    });
    expect(crash?.sprint_id).not.toBeNull();
    expect(warningsOf(report, 'acme/app#12')).toContain('assignees "stranger" left out: one assignee here, the first is taken');
    expect(warningsOf(report, 'acme/app#12')).toContain('author "grace" has no account here: the importer is its author');
    const comments = await listComments(
      caller,
      { projectId, sprintId: crash?.sprint_id ?? null, issueId: crash?.id as number },
      {
        page: 1,
        perPage: 10,
      },
    );
    expect(comments.items.map((c) => [c.body, c.author_id, c.created_at])).toEqual([
      ['Reproduced on 1.2', adaId, '2026-11-02T09:30:00.000Z'],
      ['Same here', adminId, '2026-11-02T10:00:00.000Z'],
    ]);
    expect(issues.get('acme/app#13')).toMatchObject({ status: 'done', completed_at: '2026-11-04T09:00:00.000Z' });
    expect(issues.get('acme/app#14')).toMatchObject({
      status: 'cancelled',
      completed_at: '2026-11-05T11:00:00.000Z',
      labels: [expect.objectContaining({ name: 'wontfix' })],
    });
    const search = (q: string) => searchIssues(caller, parseSelection(q), { perPage: 100 });
    expect((await search(`author:${adaId}`)).items.map((i) => i.source_key).sort()).toEqual(['acme/app#13', 'acme/app#16']);

    const again = await importIssues({ orgId, projectId, format: 'github-json', mapping }, [fixture('github.json')]);
    expect(again).toMatchObject({ created: 0, already_imported: 4, comments: 0 });
    // Ada, found by her login, takes it as her handle (docs/notifications.md); the admin, found by no login, has none.
    expect(await handleOf(orgId, adaId)).toBe('ada');
    expect(await handleOf(orgId, adminId)).toBeNull();
  });

  it('gives a login as a handle only to an account without one, and only while no other account has it', async () => {
    const { orgId, projectId, adaId, graceId } = await setup();
    await setHandle(orgId, graceId, 'ada');
    const report = await importIssues(
      { orgId, projectId, format: 'github-json', mapping: { people: { ada: 'ada@example.com' } } },
      [fixture('github.json')],
    );
    expect(report.created).toBe(4);
    expect(await handleOf(orgId, adaId)).toBeNull();
    expect(await handleOf(orgId, graceId)).toBe('ada');
  });

  it('a closed issue without closedAt keeps its completion empty, with a warning naming its row, never its creation time', async () => {
    const { caller, orgId, projectId } = await setup();
    // The sample as `gh` writes it, but the closed issues' closedAt missing (REST objects may lack it too).
    const issues = (JSON.parse(fixture('github.json')) as Record<string, unknown>[]).map((issue) => {
      if (issue?.state !== 'CLOSED') return issue;
      const { closedAt: _, ...rest } = issue;
      return rest;
    });
    const report = await importIssues({ orgId, projectId, format: 'github-json' }, [JSON.stringify(issues)]);
    expect(report.created).toBe(4);
    const stored = byKey(await allIssues(caller, projectId));
    expect(stored.get('acme/app#13')).toMatchObject({ status: 'done', completed_at: null });
    expect(stored.get('acme/app#14')).toMatchObject({ status: 'cancelled', completed_at: null });
    const missing = report.warnings.filter((w) => w.warnings.some((m) => m.startsWith('closedAt is missing')));
    expect(missing.map((w) => [w.row, w.key])).toEqual([
      [2, 'acme/app#13'],
      [3, 'acme/app#14'],
    ]);
    expect(warningsOf(report, 'acme/app#13')).toContain('closedAt is missing: completed_at left empty (the issue is done)');
    // An open issue has no completion to miss.
    expect(warningsOf(report, 'acme/app#12')).not.toMatch(/closedAt/);
  });

  it('keep_numbers: an issue keeps its GitHub number', async () => {
    const { caller, orgId, projectId } = await setup('GH');
    const report = await importIssues({ orgId, projectId, format: 'github-json', keepNumbers: true }, [fixture('github.json')]);
    expect(report.keys).toEqual({
      'acme/app#12': 'GH-12',
      'acme/app#13': 'GH-13',
      'acme/app#14': 'GH-14',
      'acme/app#16': 'GH-16',
    });
    expect((await createIssue(caller, { projectId, sprintId: null }, { title: 'next' })).issue_number).toBe('GH-17');
  });

  it('refuses a file that is not a JSON array (422)', async () => {
    const { orgId, projectId } = await setup();
    await expect(importIssues({ orgId, projectId, format: 'github-json' }, ['{"a":1}'])).rejects.toThrow(/JSON array/);
  });
});

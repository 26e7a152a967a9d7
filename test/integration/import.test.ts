import { readFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import { projectPk } from '../../lib/db/keys.ts';
import { createAccountInOrg } from '../../lib/domain/accounts.ts';
import { listIssues } from '../../lib/domain/issues.ts';
import type { Principal } from '../../lib/domain/principal.ts';
import { createProject } from '../../lib/domain/projects.ts';
import { importIssues } from '../../lib/port/import.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** Imports of the checked-in Jira CSV and GitHub JSON samples on DynamoDB Local. */

const fixture = (name: string) => readFileSync(new URL(`../fixtures/import/${name}`, import.meta.url), 'utf8');

async function setup() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const ada = await createAccountInOrg(org.orgId, { name: 'Ada', email: 'ada@example.com', role: 'member' });
  const project = await createProject(caller, { name: 'Import', prefix: randomPrefix() });
  return { caller, orgId: org.orgId, projectId: project.id, adaId: ada.account.id };
}

/** Every item in the project's partition: a dry run must leave it as it was. */
async function partition(orgId: number, projectId: number) {
  const out = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId) },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

async function allIssues(caller: Principal, projectId: number): Promise<Issue[]> {
  const backlog = await listIssues(caller, { projectId, sprintId: null }, { page: 1, perPage: 100 });
  const sprints = await partition(caller.orgId, projectId);
  const sprintIds = sprints.filter((i) => i.type === 'sprint').map((s) => Number(s.id));
  const inSprints = await Promise.all(
    sprintIds.map(async (sprintId) => (await listIssues(caller, { projectId, sprintId }, { page: 1, perPage: 100 })).items),
  );
  return [...backlog.items, ...inSprints.flat()];
}

describe('import of a Jira Cloud CSV export', () => {
  it('maps fields, statuses, people, sprints, labels and parents, reports what it cannot take, and creates nothing twice', async () => {
    const { caller, orgId, projectId, adaId } = await setup();
    const report = await importIssues({ orgId, projectId, format: 'jira-csv' }, [fixture('jira.csv')]);

    expect(report).toMatchObject({ rows: 6, created: 4, already_imported: 0, rejected: 2 });
    expect(report.rejected_rows.map((r) => [r.key, r.errors.join()])).toEqual([
      ['APL-2', expect.stringContaining('appears more than once')],
      ['APL-5', expect.stringContaining('title')],
    ]);
    expect(report.unknown_people).toEqual([
      { name: 'nobody@elsewhere.example', rows: 1 },
      { name: 'Grace Hopper', rows: 1 },
    ]);
    expect(report.unmapped_statuses).toEqual([{ status: 'Waiting for QA', rows: 1, imported_as: 'todo' }]);
    expect(report.created_sprints).toEqual(['Sprint 1', 'Sprint 2']);
    expect(report.created_labels).toEqual(['payments', 'ui', 'i18n']);
    expect(report.parents.linked).toBe(2);
    expect(report.parents.unresolved).toEqual([expect.objectContaining({ key: 'APL-6', parent_key: 'APL-99' })]);

    const issues = await allIssues(caller, projectId);
    const byTitle = new Map(issues.map((i) => [i.title, i]));
    const epic = byTitle.get('Checkout épic');
    expect(epic).toMatchObject({
      type: 'epic',
      status: 'in_progress',
      priority: 'high',
      assignee_id: adaId,
      story_points: 13,
      created_at: '2026-11-03T09:05:00.000Z',
      updated_at: '2026-11-20T16:30:00.000Z',
    });
    const card = byTitle.get('Card form says "Pay", with a comma');
    expect(card).toMatchObject({
      type: 'story',
      status: 'todo',
      assignee_id: null,
      due_date: '2026-11-30',
      parent_id: epic?.id,
      description: 'Line one\nLine two, with "quotes"\n\nLast line: 日本語 🎉',
    });
    expect(card?.labels.map((l) => l.name)).toEqual(['payments', 'ui']);
    // The last sprint a row names is the issue's sprint.
    expect(card?.sprint_id).not.toBe(epic?.sprint_id);
    expect(byTitle.get('Receipt e-mail in 日本語 🎉')).toMatchObject({
      type: 'bug',
      priority: 'urgent',
      status: 'todo',
      story_points: 3,
      due_date: '2026-12-01',
      parent_id: epic?.id,
      sprint_id: null,
    });
    expect(byTitle.get('Closed long ago')).toMatchObject({ status: 'cancelled', type: 'task', due_date: null, parent_id: null });
    expect(epic?.sub_issues_summary.total).toBe(2);

    const before = await partition(orgId, projectId);
    const again = await importIssues({ orgId, projectId, format: 'jira-csv' }, [fixture('jira.csv')]);
    expect(again).toMatchObject({ created: 0, already_imported: 4, created_sprints: [], created_labels: [] });
    expect((await partition(orgId, projectId)).length).toBe(before.length);
  });

  it('dry run reports what it would create and every row it cannot take, and writes nothing', async () => {
    const { orgId, projectId } = await setup();
    const before = await partition(orgId, projectId);
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', dryRun: true }, [fixture('jira.csv')]);
    expect(report).toMatchObject({ dry_run: true, created: 4, rejected: 2 });
    expect(report.would_create?.map((w) => w.key)).toEqual(['APL-1', 'APL-2', 'APL-3', 'APL-6']);
    // Rows are the lines the records start on (the second record's description spans four lines).
    expect(report.rejected_rows.map((r) => r.row)).toEqual([8, 9]);
    expect(report.created_sprints).toEqual(['Sprint 1', 'Sprint 2']);
    expect(await partition(orgId, projectId)).toEqual(before);
  });

  it('reads a file split anywhere into chunks the same as whole', async () => {
    const { orgId, projectId } = await setup();
    const text = fixture('jira.csv');
    const chunks = Array.from({ length: Math.ceil(text.length / 7) }, (_, i) => text.slice(i * 7, i * 7 + 7));
    const report = await importIssues({ orgId, projectId, format: 'jira-csv', dryRun: true }, chunks);
    expect(report.would_create?.map((w) => w.title)).toContain('Card form says "Pay", with a comma');
    expect(report).toMatchObject({ created: 4, rejected: 2 });
  });

  it('refuses a file without the columns it needs (422), writing nothing', async () => {
    const { orgId, projectId } = await setup();
    await expect(importIssues({ orgId, projectId, format: 'jira-csv' }, ['Title,Key\nA,B\n'])).rejects.toThrow(
      /Summary, Issue key, Status/,
    );
  });
});

describe('import of GitHub issues JSON', () => {
  it('maps states, milestones, labels and people, and a second run creates nothing', async () => {
    const { caller, orgId, projectId, adaId } = await setup();
    const mapping = { people: { ada: 'ada@example.com' } };
    const report = await importIssues({ orgId, projectId, format: 'github-json', mapping }, [fixture('github.json')]);
    expect(report).toMatchObject({ rows: 6, created: 4, rejected: 2 });
    expect(report.unknown_people).toEqual([{ name: 'stranger', rows: 1 }]);
    expect(report.unmapped_statuses).toEqual([{ status: 'MERGED', rows: 1, imported_as: 'todo' }]);
    expect(report.created_sprints).toEqual(['v1.0']);
    const byTitle = new Map((await allIssues(caller, projectId)).map((i) => [i.title, i]));
    expect(byTitle.get('Crash on start — naïve fix')).toMatchObject({
      status: 'todo',
      assignee_id: adaId,
      description: 'Steps:\n1. open\n2. crash 💥',
      created_at: '2026-11-01T10:00:00.000Z',
    });
    expect(byTitle.get('Crash on start — naïve fix')?.sprint_id).not.toBeNull();
    expect(byTitle.get('ドキュメント')).toMatchObject({ status: 'done', assignee_id: null });
    expect(byTitle.get("Won't fix this")).toMatchObject({
      status: 'cancelled',
      labels: [expect.objectContaining({ name: 'wontfix' })],
    });

    const again = await importIssues({ orgId, projectId, format: 'github-json', mapping }, [fixture('github.json')]);
    expect(again).toMatchObject({ created: 0, already_imported: 4 });
  });

  it('refuses a file that is not a JSON array (422)', async () => {
    const { orgId, projectId } = await setup();
    await expect(importIssues({ orgId, projectId, format: 'github-json' }, ['{"a":1}'])).rejects.toThrow(/JSON array/);
  });
});

import { readFileSync } from 'node:fs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import { projectPk } from '../../lib/db/keys.ts';
import { createAccountInOrg } from '../../lib/domain/accounts.ts';
import { createComment } from '../../lib/domain/comments.ts';
import { listIssues, updateIssue } from '../../lib/domain/issues.ts';
import { createLabel } from '../../lib/domain/labels.ts';
import { addRelation } from '../../lib/domain/relations.ts';
import { activateSprint, completeSprint } from '../../lib/domain/sprints.ts';
import { exportOrganisation } from '../../lib/port/export.ts';
import { importExport } from '../../lib/port/import-export.ts';
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
      { name: 'Grace Hopper', rows: 1 },
      { name: 'nobody@elsewhere.example', rows: 1 },
    ]);
    expect(report.unmapped_statuses).toEqual([{ status: 'Waiting for QA', rows: 1, imported_as: 'todo' }]);
    // Records are created side by side: the order the sprints and labels were made in may vary.
    expect([...report.created_sprints].sort()).toEqual(['Sprint 1', 'Sprint 2']);
    expect([...report.created_labels].sort()).toEqual(['i18n', 'payments', 'ui']);
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
    expect([...report.created_sprints].sort()).toEqual(['Sprint 1', 'Sprint 2']);
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

describe('export, then import of the export into an empty organisation', () => {
  const collect = async (orgId: number) => {
    const lines: Record<string, unknown>[] = [];
    for await (const line of exportOrganisation(orgId)) lines.push(JSON.parse(line) as Record<string, unknown>);
    return lines;
  };
  const ofKind = (lines: Record<string, unknown>[], kind: string) => lines.filter((l) => l.kind === kind);

  it('gives the same data (ids mapped through the report), and writes no secret', async () => {
    const { caller, orgId, projectId } = await setup();
    await importIssues({ orgId, projectId, format: 'jira-csv' }, [fixture('jira.csv')]);
    await createLabel(caller, projectId, { name: 'unused', color: '#00ff00', description: 'Nobody wears it' });
    const before = await allIssues(caller, projectId);
    const [epic, card, receipt] = ['Checkout épic', 'Card form says "Pay", with a comma', 'Receipt e-mail in 日本語 🎉'].map(
      (t) => before.find((i) => i.title === t) as Issue,
    ) as [Issue, Issue, Issue];
    await createComment(
      caller,
      { projectId, sprintId: card.sprint_id, issueId: card.id },
      { body: 'Looks good — 日本語 🎉\n"quoted"' },
    );
    await addRelation(caller, receipt.issue_number, { type: 'blocks', issue_key: card.issue_number });
    await addRelation(caller, epic.issue_number, { type: 'relates_to', issue_key: receipt.issue_number });
    await updateIssue(caller, { projectId, sprintId: epic.sprint_id }, epic.id, { status: 'done' });
    await activateSprint(caller, projectId, epic.sprint_id as number);
    await completeSprint(caller, projectId, epic.sprint_id as number);

    const exported = await collect(orgId);
    expect(exported[0]).toMatchObject({ format: 'sprint-ticketing-export', version: 1 });
    expect(exported.at(-1)).toMatchObject({ kind: 'end' });
    const text = JSON.stringify(exported);
    expect(text).not.toMatch(/token|secret|stk_/i);

    const target = await newOrganisation();
    const jsonl = exported.map((l) => `${JSON.stringify(l)}\n`).join('');
    const report = await importExport({ orgId: target.orgId }, [jsonl.slice(0, 1000), jsonl.slice(1000)]);
    expect(report.errors).toEqual([]);
    expect(report).toMatchObject({ comments: 1, relations: 2 });
    expect([...report.accounts_created].sort()).toEqual(
      ofKind(exported, 'account')
        .map((a) => String(a.email))
        .sort(),
    );
    const again = await collect(target.orgId);

    const { ids } = report;
    const accountEmail = new Map(ofKind(exported, 'account').map((a) => [a.id, a.email]));
    const newEmail = new Map(ofKind(again, 'account').map((a) => [a.id, a.email]));
    for (const a of ofKind(exported, 'account')) {
      expect(again).toContainEqual(expect.objectContaining({ kind: 'account', email: a.email, name: a.name, role: a.role }));
    }
    const pick = (o: Record<string, unknown>, fields: string[]) => Object.fromEntries(fields.map((f) => [f, o[f]]));
    const projectFields = ['name', 'prefix', 'description', 'documentation_url', 'production_url'];
    expect(ofKind(again, 'project').map((p) => pick(p, projectFields))).toEqual(
      ofKind(exported, 'project').map((p) => pick(p, projectFields)),
    );
    const labelFields = ['name', 'color', 'description'];
    expect(ofKind(again, 'label').map((l) => pick(l, labelFields))).toEqual(
      ofKind(exported, 'label').map((l) => pick(l, labelFields)),
    );
    const sprintFields = [
      'name',
      'status',
      'description',
      'start_date',
      'end_date',
      'issues_count',
      'total_story_points',
      'completed_story_points',
    ];
    expect(ofKind(again, 'sprint').map((s) => pick(s, sprintFields))).toEqual(
      ofKind(exported, 'sprint').map((s) => pick(s, sprintFields)),
    );

    // Issue by issue, through the id map: every field but the ids, numbers and write times.
    const issueFields = [
      'title',
      'description',
      'status',
      'story_points',
      'position',
      'priority',
      'type',
      'due_date',
      'labels',
      'created_at',
      'blocked',
    ];
    const shown = (i: Record<string, unknown>) => ({
      ...pick(i, issueFields),
      labels: (i.labels as { name: string; color: string }[]).map((l) => [l.name, l.color]),
    });
    const newIssues = new Map(ofKind(again, 'issue').map((i) => [i.id, i]));
    const mapSprint = (id: unknown) => (id === null ? null : ids.sprints[String(id)]);
    const mapIssue = (id: unknown) => (id === null ? null : ids.issues[String(id)]);
    expect(ofKind(exported, 'issue').length).toBe(4);
    for (const old of ofKind(exported, 'issue')) {
      const now = newIssues.get(ids.issues[String(old.id)]);
      expect(now, String(old.title)).toBeDefined();
      expect(shown(now as Record<string, unknown>)).toEqual(shown(old));
      expect(now?.assignee_email).toBe(old.assignee_email);
      expect(now?.sprint_id).toBe(mapSprint(old.sprint_id));
      expect(now?.parent_id).toBe(mapIssue(old.parent_id));
      expect(now?.sub_issues_summary).toEqual(old.sub_issues_summary);
      const relations = (i: unknown, map: (id: unknown) => unknown) =>
        ((i as { relations: { type: string; issue_id: number }[] }).relations ?? [])
          .map((r) => `${r.type}:${String(map(r.issue_id))}`)
          .sort();
      expect(relations(now, (id) => id)).toEqual(relations(old, mapIssue));
    }
    const commentFields = ['body', 'author_name'];
    const oldComments = ofKind(exported, 'comment');
    expect(oldComments.length).toBe(1);
    for (const c of oldComments) {
      const now = ofKind(again, 'comment').find((n) => n.id === ids.comments[String(c.id)]) as Record<string, unknown>;
      expect(pick(now, commentFields)).toEqual(pick(c, commentFields));
      expect(now.issue_id).toBe(mapIssue(c.issue_id));
      expect(newEmail.get(now.author_id)).toBe(accountEmail.get(c.author_id));
    }

    // Imported twice: nothing more.
    const twice = await importExport({ orgId: target.orgId }, [jsonl]);
    expect(Object.values(twice.projects).map((p) => p.created)).toEqual([0]);
    expect(twice).toMatchObject({ comments: 0, relations: 0, accounts_created: [], errors: [] });
  });
});

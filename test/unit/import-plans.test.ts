import { describe, expect, it } from 'vitest';
import { mappingWith, planRecord, type SourceRecord } from '../../lib/model/formats/sources.ts';
import {
  closeReport,
  commentAuthors,
  emptyReport,
  importActor,
  isUnmapped,
  parentSteps,
  peopleOf,
  relationOnce,
  reportTotals,
  rowFate,
  stateToMake,
  type ExportImportReport,
  type Planned,
} from '../../lib/model/formats/import-plans.ts';
import { exportedStates, exportIssueRecord, exportRelations } from '../../lib/model/formats/records.ts';
import { DONE, firstStep, stepAfter, trashScope } from '../../lib/model/formats/export-plan.ts';
import type { IssueStatus } from '../../lib/schemas/issues.ts';

/** The decisions of an import and of the export walk, without DynamoDB. */

const record = (over: Partial<SourceRecord> = {}): SourceRecord => ({
  row: 2,
  key: 'DI-1',
  title: 'A title',
  description: null,
  status: 'To Do',
  labels: [],
  ...over,
});

const planned = (r: SourceRecord): Planned => {
  const p = planRecord(r, mappingWith());
  if (!p.ok) throw new Error(p.errors.join('; '));
  return p;
};

const accounts = new Map([
  ['ada@example.com', { id: 7, name: 'Ada', role: 'member' }],
  ['grace@example.com', { id: 3, name: 'Grace', role: 'admin' }],
  ['alan@example.com', { id: 2, name: 'Alan', role: 'admin' }],
]);

describe("what becomes of a record's key", () => {
  it('refuses a key met before in the file, takes a new one, and tells this import’s earlier runs from other imports', () => {
    expect(rowFate('DI-1', new Set(['DI-1']), undefined, 'job')).toBe('repeated');
    expect(rowFate('DI-1', new Set(), undefined, 'job')).toBe('new');
    expect(rowFate('DI-1', new Set(), { run: 'job' }, 'job')).toBe('ours');
    expect(rowFate('DI-1', new Set(), { run: 'other' }, 'job')).toBe('taken');
    expect(rowFate('DI-1', new Set(), { run: undefined }, undefined)).toBe('taken');
  });
});

describe('the states an import makes', () => {
  const states = new Map<string, IssueStatus>([['todo', 'todo']]);
  const mapping = mappingWith({ statuses: { 'Waiting for QA': 'in_progress' } });

  it('makes a state for a mapped status under a name of its own, once the project lacks it', () => {
    expect(stateToMake(' Waiting for QA ', mapping, states)).toEqual({
      name: 'Waiting for QA',
      key: 'waiting_for_qa',
      category: 'in_progress',
    });
    expect(stateToMake('Waiting for QA', mapping, new Map([['waiting_for_qa', 'in_progress']]))).toBeUndefined();
  });

  it("makes none for a category's own name or an unmapped status, which is counted as unmapped", () => {
    expect(stateToMake('To Do', mapping, states)).toBeUndefined();
    expect(stateToMake('Parked', mapping, states)).toBeUndefined();
    expect(isUnmapped('Parked', mapping, states)).toBe(true);
    expect(isUnmapped('waiting for qa', mapping, states)).toBe(false);
    expect(isUnmapped('todo', mappingWith({ statuses: {} }), states)).toBe(false);
  });
});

describe("a record's people", () => {
  it('maps the known ones by e-mail, and names each unknown one in a warning of the column it came from', () => {
    const r = record({
      assignee: { name: 'nobody@example.com' },
      reporter: { name: 'ada@example.com' },
      comments: [
        { key: 'c1', body: 'hi', author: { name: 'Someone' } },
        { key: 'c2', body: 'ok', author: { name: 'ada@example.com' } },
      ],
      columns: { assignee: 'Assignee' },
    });
    const people = peopleOf(r, planned(r), accounts, 99);
    expect(people.assigneeId).toBeUndefined();
    expect(people.authorId).toBe(7);
    expect(people.comments.map((c) => c.authorId)).toEqual([99, 7]);
    expect(people.unknown).toEqual(['nobody@example.com', 'Someone']);
    expect(people.warnings).toEqual([
      'Assignee "nobody@example.com" has no account here: left unassigned',
      'Comment by "Someone": no account here, written as the importer\'s',
    ]);
  });

  it("gives a row taken before its comments' authors without a warning", () => {
    const r = record({ comments: [{ key: 'c1', body: 'hi', author: { name: 'Nobody' } }] });
    expect(commentAuthors(planned(r), accounts, 99).map((c) => c.authorId)).toEqual([99]);
  });

  it("acts as the account asked for, else the organisation's first admin", () => {
    expect(importActor(accounts, undefined)?.id).toBe(2);
    expect(importActor(accounts, 7)?.name).toBe('Ada');
    expect(importActor(accounts, 42)).toBeUndefined();
    expect(importActor(new Map([['a@b.c', { id: 1, name: 'A', role: 'member' }]]), undefined)).toBeUndefined();
  });
});

describe('relations and parents', () => {
  it('is one relation whichever side names it', () => {
    const a = relationOnce({ key: 'DI-1', type: 'blocks', other: 'DI-2' });
    const b = relationOnce({ key: 'DI-2', type: 'blocked_by', other: 'DI-1' });
    expect(a).toEqual({ id: 'DI-1 blocks DI-2', from: 'DI-1', kind: 'blocks', to: 'DI-2' });
    expect(b).toEqual(a);
    expect(relationOnce({ key: 'DI-9', type: 'relates_to', other: 'DI-3' }).id).toBe(
      relationOnce({ key: 'DI-3', type: 'relates_to', other: 'DI-9' }).id,
    );
  });

  it('writes a child in the step after its parent of the same batch, by key or by source id', () => {
    const batch = [{ key: 'A' }, { key: 'B', parentKey: 'A' }, { key: 'C', parentKey: '10' }, { key: 'D', parentKey: 'Z' }];
    expect(parentSteps(batch, (ref) => (ref === '10' ? 'B' : undefined))).toEqual([[0, 3], [1], [2]]);
  });
});

describe("an export file's lines as records", () => {
  it('reads an issue line as a record keyed by its number, its sprint by its new id, its parent by its old id', () => {
    const line = {
      kind: 'issue',
      id: 41,
      issue_number: 'APL-3',
      title: 'T',
      description: null,
      status: 'in_review',
      type: 'bug',
      priority: 'high',
      assignee_email: 'ada@example.com',
      author_email: null,
      created_at: '2025-01-01T00:00:00.000Z',
      updated_at: '2025-01-02T00:00:00.000Z',
      labels: [{ id: 1, name: 'ui' }],
      sprint_id: 5,
      parent_id: 40,
      story_points: 3,
      source_key: 'DI-9',
      started_at: null,
      completed_at: null,
    };
    expect(exportIssueRecord(12, line, { '5': 105 })).toMatchObject({
      row: 12,
      key: 'APL-3',
      id: '41',
      assignee: { name: 'ada@example.com' },
      reporter: undefined,
      labels: ['ui'],
      sprintId: 105,
      parent_key: '40',
      story_points: 3,
      exact: { sourceKey: 'DI-9', started_at: null, completed_at: null },
    });
    expect(exportIssueRecord(12, { ...line, sprint_id: 6 }, {})).toMatchObject({ sprintId: null });
  });

  it('writes each relation once, from the side that names it forwards', () => {
    const line = {
      relations: [
        { type: 'blocks', issue_number: 'APL-1' },
        { type: 'blocked_by', issue_number: 'APL-2' },
        { type: 'relates_to', issue_number: 'APL-1' },
        { type: 'relates_to', issue_number: 'APL-9' },
      ],
    };
    expect(exportRelations(4, line, 'APL-5').map((r) => `${r.from} ${r.type} ${r.to}`)).toEqual([
      'APL-5 blocks APL-1',
      'APL-5 relates_to APL-9',
    ]);
  });

  it('keeps a workflow as it was, and refuses one with a category left empty', () => {
    const state = (id: number, category: string) => ({ id, name: `S${id}`, category });
    const all = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'].map((c, i) => state(i + 1, c));
    expect(exportedStates(undefined)).toBeUndefined();
    expect(exportedStates(all)?.map((s) => [s.id, s.category, s.order])).toEqual(all.map((s) => [s.id, s.category, s.id * 1000]));
    expect(() => exportedStates(all.slice(1))).toThrow('no state in the category backlog');
  });
});

describe('the report', () => {
  it('lists rows in file order and people by name, each unmapped status with what it became', () => {
    const report = emptyReport({ format: 'jira-csv', projectId: 1, dryRun: true });
    report.warnings.push({ row: 9, key: 'B', warnings: [] }, { row: 3, key: 'A', warnings: [] });
    closeReport(
      report,
      new Map([
        ['zed', 1],
        ['amy', 2],
      ]),
      new Map([['Parked', 4]]),
      'todo',
    );
    expect(report.warnings.map((w) => w.row)).toEqual([3, 9]);
    expect(report.unknown_people).toEqual([
      { name: 'amy', rows: 2 },
      { name: 'zed', rows: 1 },
    ]);
    expect(report.unmapped_statuses).toEqual([{ status: 'Parked', rows: 4, imported_as: 'todo' }]);
    expect(report.would_create).toBe(0);
    expect(report.issues).toBeUndefined();
  });

  it("counts an export file's report over its projects", () => {
    const p = (created: number, rejected: number) => ({ ...emptyReport({ format: 'export', projectId: 1 }), created, rejected });
    const report = { format: 'export', lines: 40, projects: { A: p(3, 1), B: p(2, 0) } } as unknown as ExportImportReport;
    expect(reportTotals(report)).toEqual({ rows: 40, created: 5, wouldCreate: 0, rejected: 1 });
    expect(reportTotals({ ...p(4, 2), rows: 7 })).toEqual({ rows: 7, created: 4, wouldCreate: 0, rejected: 2 });
  });
});

describe('the export walk', () => {
  it("walks a live project's steps in order, a trashed sprint's and issue's only theirs", () => {
    const live = { kind: 'live' } as const;
    expect([1, 2, 3, 4, 5, 6].map((s) => stepAfter(live, s))).toEqual([2, 3, 4, 5, 6, DONE]);
    const sprint = trashScope('sprint', 't', 5, () => []);
    expect(sprint).toEqual({ kind: 'sprint', trashId: 't', sprintId: 5 });
    expect(firstStep(sprint)).toBe(2);
    expect(stepAfter(sprint!, 3)).toBe(5);
    const issue = trashScope('issue', 't', 8, () => [4]);
    expect(issue).toEqual({ kind: 'issue', trashId: 't', issueId: 8, commentsWithFilesInTrash: [4] });
    expect(firstStep(issue)).toBe(5);
    expect(firstStep(trashScope('label', 't', 1, () => []))).toBe(DONE);
  });
});

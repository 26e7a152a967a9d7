import { describe, expect, it } from 'vitest';
import { db } from '../../lib/db/core/client.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { createProject } from '../../lib/services/projects.ts';
import { getIssue, listIssues } from '../../lib/services/issues.ts';
import { listSprints } from '../../lib/services/sprints.ts';
import { readDerivedState } from '../../lib/jobs/reindex.ts';
import { derivations, differences } from '../../lib/model/derivations.ts';
import {
  IMPORT_BATCH,
  ImportFailed,
  ImportInterrupted,
  importIssues,
  parentSteps,
} from '../../lib/services/import-export/import.ts';
import { subIssueLimits } from '../../lib/services/sub-issues.ts';
import { formatCsv } from '../../lib/model/formats/csv.ts';
import type { Principal } from '../../lib/model/principal.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { injectFault } from '../support/faults.ts';

/**
 * An import writes its issues together (lib/services/import-export/import.ts: `IMPORT_BATCH`,
 * lib/services/issues.ts: `createIssuesTogether`): these check that what it writes
 * is what record-by-record creates wrote (order, numbers, parents, counters), in far fewer calls,
 * and that a run stopped at its deadline, or two runs at once, still create each issue once.
 */

const header = [
  'Summary',
  'Issue key',
  'Issue Type',
  'Status',
  'Sprint',
  'Parent',
  'Custom field (Story point estimate)',
  'Comment',
];

interface Row {
  n: number;
  sprint?: string;
  parent?: number;
  comments?: number;
}

const csv = (rows: Row[]) =>
  formatCsv([
    // One Comment column per comment, as Jira writes them.
    [...header.slice(0, -1), ...Array.from({ length: Math.max(1, ...rows.map((r) => r.comments ?? 0)) }, () => 'Comment')],
    ...rows.map((r) => [
      `Issue ${r.n}`,
      `SRC-${r.n}`,
      r.parent === undefined ? 'Epic' : 'Story',
      r.n % 3 === 0 ? 'Done' : 'To Do',
      r.sprint ?? '',
      r.parent === undefined ? '' : `SRC-${r.parent}`,
      String(r.n % 5),
      ...Array.from({ length: r.comments ?? 0 }, (_, i) => `25/Nov/26 9:0${i % 10} AM;ada;Comment ${i} of ${r.n}`),
    ]),
  ]);

async function setup() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Batches', prefix: randomPrefix() });
  return { caller, orgId: org.orgId, projectId: project.id, prefix: project.prefix };
}

/** Every issue of a list, in its places. */
async function list(caller: Principal, projectId: number, sprintId: number | null): Promise<Issue[]> {
  const out: Issue[] = [];
  for (let page = 1; ; page++) {
    const { items } = await listIssues(caller, { projectId, sprintId }, { page, perPage: 100 });
    out.push(...items);
    if (items.length < 100) return out;
  }
}

/** Counts the DynamoDB calls sent while `run` runs, by command (transactions by their size). */
async function counted<T>(run: () => Promise<T>): Promise<{ result: T; calls: Record<string, number> }> {
  const calls: Record<string, number> = {};
  const name = `count-${Math.random()}`;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? '?';
      calls[command] = (calls[command] ?? 0) + 1;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), calls };
  } finally {
    db.middlewareStack.remove(name);
  }
}

/** The derived state of the organisation (counters, pointers, indexes) against its rebuild from the issues. */
async function derivedDifferences(orgId: number): Promise<string[]> {
  const { issues, observed } = await readDerivedState(orgId);
  return derivations.flatMap((d) => differences(d, d.rebuild(issues), observed));
}

describe('the steps of a batch', () => {
  it('puts a record in the step after the one of its parent in the batch (by key or by Jira issue id); others in the first', () => {
    const batch = [
      { key: 'A' },
      { key: 'B', parentKey: 'A' },
      { key: 'C', parentKey: 'B' },
      { key: 'D', parentKey: 'OUT' },
      { key: 'E', parentKey: '10001' },
      // A parent later in the file is not waited for (linked once every record is in).
      { key: 'F', parentKey: 'G' },
      { key: 'G' },
    ];
    const ids = new Map([['10001', 'A']]);
    expect(parentSteps(batch, (id) => ids.get(id))).toEqual([[0, 3, 5, 6], [1, 4], [2]]);
  });
});

describe('imports write the issues of one list together', () => {
  it('in file order per list, numbered in file order, each child given its parent at once, in a few calls per batch', async () => {
    const { caller, orgId, projectId, prefix } = await setup();
    // Three lists (two sprints and the backlog) taking turns, an epic every 20 rows with the next 19
    // as its children (each child right after its parent, which still waits in its batch), and one
    // issue with more comments than its create transaction takes.
    const rows: Row[] = Array.from({ length: 120 }, (_, i) => {
      const n = i + 1;
      const epic = n - ((n - 1) % 20);
      return {
        n,
        sprint: n % 3 === 0 ? undefined : `Sprint ${n % 3}`,
        ...(epic === n ? {} : { parent: epic }),
        comments: n === 7 ? 30 : n % 10 === 0 ? 2 : 0,
      };
    });
    const { result: report, calls } = await counted(() => importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows)));
    expect(report).toMatchObject({
      rows: 120,
      created: 120,
      rejected: 0,
      parents: { linked: 114, already_linked: 0, unresolved: [] },
    });
    expect(report.comments).toBe(30 + 12 * 2);

    const sprints = await listSprints(caller, projectId, { page: 1, perPage: 100 });
    const sprintId = (name: string) => sprints.items.find((s) => s.name === name)!.id;
    const lists = {
      'Sprint 1': await list(caller, projectId, sprintId('Sprint 1')),
      'Sprint 2': await list(caller, projectId, sprintId('Sprint 2')),
      backlog: await list(caller, projectId, null),
    };
    for (const [name, issues] of Object.entries(lists)) {
      const expected = rows.filter((r) => (r.sprint ?? 'backlog') === name).map((r) => `SRC-${r.n}`);
      expect(
        issues.map((i) => i.source_key),
        name,
      ).toEqual(expected);
      expect(
        issues.map((i) => i.position),
        name,
      ).toEqual(issues.map((_, k) => k + 1));
    }
    const all = new Map(
      Object.values(lists)
        .flat()
        .map((i) => [i.source_key, i]),
    );
    // Numbers follow the file's order whatever the list, with no gap.
    expect(rows.map((r) => all.get(`SRC-${r.n}`)!.issue_number)).toEqual(rows.map((r) => `${prefix}-${r.n}`));
    for (const r of rows) {
      const issue = all.get(`SRC-${r.n}`)!;
      expect(issue.parent_id, issue.source_key!).toBe(r.parent === undefined ? null : all.get(`SRC-${r.parent}`)!.id);
    }
    // Each epic's summary counts its 19 children, whatever batches they came in.
    const epic = await getIssue(caller, { projectId, sprintId: all.get('SRC-1')!.sprint_id }, all.get('SRC-1')!.id);
    expect(epic.sub_issues_summary.total).toBe(19);
    // The lists' counters as written by the batches.
    const project = await getProjectItem(orgId, projectId);
    expect(Number(project?.backlog_count)).toBe(lists.backlog.length);
    for (const name of ['Sprint 1', 'Sprint 2'] as const) {
      expect(sprints.items.find((s) => s.name === name)?.issues_count).toBe(lists[name].length);
    }
    // Together, not one by one: record by record took three calls per issue and a transaction each.
    expect(calls.TransactWriteItemsCommand).toBeLessThan(120 / 4);
    expect(IMPORT_BATCH).toBeGreaterThan(1);

    // Again: nothing written, the 114 children's links read back a hundred at a time, not one by one.
    const { result: again, calls: second } = await counted(() =>
      importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows)),
    );
    expect(again).toMatchObject({
      created: 0,
      already_imported: 120,
      parents: { linked: 0, already_linked: 114, unresolved: [] },
    });
    expect(second.TransactWriteItemsCommand).toBeUndefined();
    expect(second.BatchGetItemCommand).toBe(2);
    expect(second.GetItemCommand ?? 0).toBeLessThan(5);
  });

  it('gives a parent no more children than its limit: the rest are reported, and its summary counts exactly the limit', async () => {
    const { caller, orgId, projectId } = await setup();
    const extra = 3;
    const rows: Row[] = [
      { n: 1 },
      ...Array.from({ length: subIssueLimits.children + extra }, (_, i) => ({ n: i + 2, parent: 1 })),
    ];
    const report = await importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows));
    expect(report.created).toBe(rows.length);
    expect(report.parents.linked).toBe(subIssueLimits.children);
    expect(report.parents.unresolved.map((u) => u.key)).toEqual(rows.slice(-extra).map((r) => `SRC-${r.n}`));
    const issues = await list(caller, projectId, null);
    const parent = issues.find((i) => i.source_key === 'SRC-1')!;
    expect(parent.sub_issues_summary.total).toBe(subIssueLimits.children);
    expect(issues.filter((i) => i.parent_id === parent.id)).toHaveLength(subIssueLimits.children);
  });

  it('a run stopped at its deadline writes what waits first; the next run creates only the rest', async () => {
    const { caller, orgId, projectId } = await setup();
    const rows: Row[] = Array.from({ length: 40 }, (_, i) => ({ n: i + 1, sprint: i % 2 ? 'Sprint 1' : undefined }));
    // A deadline already past: the run stops at its second record, having written the first.
    const stopped = await importIssues({ orgId, projectId, format: 'jira-csv', deadline: Date.now() - 1 }, csv(rows)).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(stopped).toBeInstanceOf(ImportInterrupted);
    const first = (stopped as ImportInterrupted).report;
    expect(first.created).toBeGreaterThan(0);
    expect(first.created).toBeLessThan(rows.length);
    const rest = await importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows));
    expect(rest.created + rest.already_imported).toBe(rows.length);
    expect(rest.already_imported).toBe(first.created);
    const sprints = await listSprints(caller, projectId, { page: 1, perPage: 100 });
    const inLists = [...(await list(caller, projectId, null)), ...(await list(caller, projectId, sprints.items[0]!.id))];
    expect(inLists.map((i) => i.source_key).sort()).toEqual(rows.map((r) => `SRC-${r.n}`).sort());
  });

  it('a run that fails between the steps of a batch (parents written, a child refused) says exactly what it wrote; the next run creates the rest, and the derived state equals its rebuild', async () => {
    const { caller, orgId, projectId } = await setup();
    // Two lists, an epic every 10 rows with the next 9 as its children: one batch, two steps.
    const rows: Row[] = Array.from({ length: 30 }, (_, i) => {
      const n = i + 1;
      const epic = n - ((n - 1) % 10);
      return { n, sprint: n % 2 ? 'Sprint 1' : undefined, ...(epic === n ? {} : { parent: epic }) };
    });
    // The children's step fails as DynamoDB might, on the transaction that holds SRC-15.
    const fault = injectFault({
      commands: ['TransactWriteItemsCommand'],
      fault: 'Unknown',
      when: (input) => JSON.stringify(input).includes('IMPORTED#jira#SRC-15"'),
    });
    let failed: ImportFailed | undefined;
    try {
      await importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows));
    } catch (err) {
      failed = err as ImportFailed;
    } finally {
      fault.remove();
    }
    expect(failed).toBeInstanceOf(ImportFailed);
    const sprints = await listSprints(caller, projectId, { page: 1, perPage: 100 });
    const stored = async () => [
      ...(await list(caller, projectId, null)),
      ...(await list(caller, projectId, sprints.items[0]!.id)),
    ];
    const first = await stored();
    // The epics went in the first step; the report names exactly what is stored.
    expect(first.map((i) => i.source_key)).toEqual(expect.arrayContaining(['SRC-1', 'SRC-11', 'SRC-21']));
    expect(first.map((i) => i.source_key)).not.toContain('SRC-15');
    expect(failed?.report.created).toBe(first.length);
    expect(Object.keys(failed?.report.keys ?? {}).sort()).toEqual(first.map((i) => i.source_key).sort());
    expect(await derivedDifferences(orgId)).toEqual([]);

    const rest = await importIssues({ orgId, projectId, format: 'jira-csv' }, csv(rows));
    expect(rest).toMatchObject({ created: rows.length - first.length, already_imported: first.length, rejected: 0 });
    expect(rest.parents.linked + rest.parents.already_linked).toBe(27);
    expect(rest.parents.unresolved).toEqual([]);
    const all = await stored();
    const byKey = new Map(all.map((i) => [i.source_key, i]));
    expect([...byKey.keys()].sort()).toEqual(rows.map((r) => `SRC-${r.n}`).sort());
    for (const r of rows) {
      expect(byKey.get(`SRC-${r.n}`)!.parent_id, `SRC-${r.n}`).toBe(
        r.parent === undefined ? null : byKey.get(`SRC-${r.parent}`)!.id,
      );
    }
    // Each number once; each list's counters, each epic's summary and every index as a rebuild makes them.
    expect(new Set(all.map((i) => i.issue_number)).size).toBe(rows.length);
    expect(await derivedDifferences(orgId)).toEqual([]);
  });

  it('two runs of one file at once create each issue once', async () => {
    const { caller, orgId, projectId } = await setup();
    const rows: Row[] = Array.from({ length: 60 }, (_, i) => ({ n: i + 1 }));
    const file = csv(rows);
    const [a, b] = await Promise.all([
      importIssues({ orgId, projectId, format: 'jira-csv' }, file),
      importIssues({ orgId, projectId, format: 'jira-csv' }, file),
    ]);
    expect(a.created + b.created).toBe(rows.length);
    expect(a.created + a.already_imported).toBe(rows.length);
    expect(b.created + b.already_imported).toBe(rows.length);
    const issues = await list(caller, projectId, null);
    expect(issues.map((i) => i.source_key).sort()).toEqual(rows.map((r) => `SRC-${r.n}`).sort());
    expect(issues.map((i) => i.position)).toEqual(issues.map((_, k) => k + 1));
    expect(Number((await getProjectItem(orgId, projectId))?.backlog_count)).toBe(rows.length);
  });
});

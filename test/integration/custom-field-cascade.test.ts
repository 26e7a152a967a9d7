import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { projectPk, searchPk } from '../../lib/db/core/keys.ts';
import { transact } from '../../lib/db/core/transactions.ts';
import { issueStateOf } from '../../lib/db/issues/issue-item.ts';
import { recordItem } from '../../lib/db/issues/issue-write.ts';
import { fieldsRead, fieldsUpdate } from '../../lib/db/projects/custom-fields.ts';
import { getProjectItem } from '../../lib/db/projects/projects.ts';
import { cascade, CascadeInterrupted } from '../../lib/jobs/cascade.ts';
import type { PagePosition } from '../../lib/model/cascades.ts';
import { planFieldUpdate } from '../../lib/model/custom-field-plans.ts';
import { searchRecordOf } from '../../lib/model/derivations.ts';
import { apiClient, followPages, newOrganisation, ok, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { putAll, seedProject } from '../support/seed.ts';

/**
 * Custom fields at scale (docs/custom-fields.md, "Renaming and deleting"): a project of 2,000
 * issues holding values of a select and a multi_select field. A rename shows at once on every
 * issue and in search without a write; a deleted option disappears at once and its cascade
 * (driven here with a deadline already past) settles every holder exactly once, a page at a time,
 * resuming from where it stopped; a deleted field disappears at once and its pending cascade, run
 * as the consumer runs it, takes its values off every issue and search record. The file has a
 * table of its own (vitest.config.ts): its thousands of writes feed none of the run's consumers.
 */

const gateway = useGateway();

const SPRINTS = 2;
const PER_SPRINT = 800;
const BACKLOG = 400;
const TOTAL = SPRINTS * PER_SPRINT + BACKLOG;

interface Field {
  id: number;
  key: string;
  name: string;
  options: { id: number; name: string; color: string }[];
}

interface World {
  orgId: number;
  projectId: number;
  p: string;
  admin: ApiClient;
  severity: Field;
  platforms: Field;
  /** Paths of some issues of each list, to read through the API. */
  samples: string[];
}

let world: World;

/** Severity of the n-th issue: low, high, critical in turn on every other issue (the others none). */
const severityOf = (n: number) => (n % 2 === 1 ? undefined : n % 3);
/** Platforms of the n-th issue: ios and/or web by the bits of n % 8, android on one issue in four (0: none). */
const platformsOf = (n: number) => [0, 1, 2].filter((bit) => (bit === 1 ? n % 4 === 2 : (n % 8) & (1 << bit)));

const storedIssues = async (orgId: number, projectId: number) => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :issue)',
        ExpressionAttributeValues: { ':pk': projectPk(orgId, projectId), ':issue': 'ISSUE#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []).filter((i) => i.type === 'issue'));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

const searchRecords = async (orgId: number) => {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': searchPk(orgId) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []).filter((i) => i.type === 'search_issue'));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

const valuesOf = (item: Record<string, unknown>) => (item.custom_fields ?? {}) as Record<string, unknown>;
const byId = (items: Record<string, unknown>[]) => new Map(items.map((i) => [Number(i.id ?? i.issue_id), i]));

beforeAll(async () => {
  const org = await newOrganisation();
  const admin = apiClient(gateway.baseUrl, org.admin.token);
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Fields at scale', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const severity: Field = await ok(
    admin.post(`${p}/fields`, {
      field: { name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high' }, { name: 'critical' }] },
    }),
  );
  const platforms: Field = await ok(
    admin.post(`${p}/fields`, {
      field: { name: 'Platforms', type: 'multi_select', options: [{ name: 'ios' }, { name: 'android' }, { name: 'web' }] },
    }),
  );
  const values = (n: number) => {
    const v: Record<string, unknown> = {};
    const s = severityOf(n);
    if (s !== undefined) v[String(severity.id)] = severity.options[s]!.id;
    const plats = platformsOf(n).map((i) => platforms.options[i]!.id);
    if (plats.length > 0) v[String(platforms.id)] = plats;
    return v;
  };
  const seeded = await seedProject(org.orgId, project.id, org.admin.id, {
    sprints: SPRINTS,
    issuesPerSprint: PER_SPRINT,
    backlog: BACKLOG,
    commentsPerIssue: 0,
    issueFields: (n) => ({ custom_fields: values(n), priority: 'medium', issue_type: 'task', n }),
  });
  // Their search records, as the issues' create transactions write them (docs/search.md).
  const issues = await storedIssues(org.orgId, project.id);
  expect(issues).toHaveLength(TOTAL);
  await putAll(issues.map((i) => recordItem(searchRecordOf(issueStateOf(org.orgId, i)))));
  const samples = seeded.sprintIds.flatMap((s) =>
    [0, 1, 399, 799].map((at) => `${p}/sprints/${s}/issues/${seeded.issues.get(s)![at]}`),
  );
  samples.push(...[0, 7, 399].map((at) => `${p}/issues/${seeded.issues.get(null)![at]}`));
  world = { orgId: org.orgId, projectId: project.id, p, admin, severity, platforms, samples };
}, 120_000);

afterEach(() => {
  vi.restoreAllMocks();
});

/** The issue writes of the field cascade (its quiet updates of `custom_fields`), by issue key. */
function countSettles() {
  const settled = new Map<string, number>();
  const send = db.send.bind(db);
  vi.spyOn(db, 'send').mockImplementation(((command: { input: Record<string, any> }) => {
    const updates = command.input.TransactItems
      ? (command.input.TransactItems as { Update?: Record<string, any> }[]).map((t) => t.Update)
      : command.input.UpdateExpression
        ? [command.input]
        : [];
    for (const u of updates) {
      if (
        u?.ExpressionAttributeNames?.['#values'] === 'custom_fields' &&
        /#P#\d+$/.test(String(u.Key?.PK)) &&
        /^ISSUE#\d+$/.test(String(u.Key?.SK))
      ) {
        const k = `${u.Key.PK} ${u.Key.SK}`;
        settled.set(k, (settled.get(k) ?? 0) + 1);
      }
    }
    return send(command as never);
  }) as typeof db.send);
  return settled;
}

describe('custom fields over thousands of issues', () => {
  it('a renamed option shows on every issue and in search at once, and no issue is written', { timeout: 60_000 }, async () => {
    const { admin, p, severity, orgId, projectId } = world;
    const before = await storedIssues(orgId, projectId);
    const recordsBefore = await searchRecords(orgId);
    const critical = severity.options[2]!;

    const renamed = await admin.patch(`${p}/fields/${severity.id}`, {
      field: { options: severity.options.map((o) => ({ id: o.id, name: o.id === critical.id ? 'blocker' : o.name })) },
    });

    expect(renamed.status).toBe(200);
    expect(renamed.body.options.map((o: { id: number }) => o.id)).toEqual(severity.options.map((o) => o.id));
    const stored = byId(before);
    for (const path of world.samples) {
      const issue = await ok(admin.get(path));
      const n = Number(stored.get(issue.id)!.n);
      const s = severityOf(n);
      expect(issue.custom_fields.severity).toBe(s === undefined ? null : ['low', 'high', 'blocker'][s]);
    }
    // Search by the new name: every holder, none by the old one.
    const holders = before.filter((i) => valuesOf(i)[String(severity.id)] === critical.id).map((i) => Number(i.id));
    expect(holders.length).toBeGreaterThan(300);
    const found = await followPages(admin, `/api/v1/issues?q=${encodeURIComponent('cf.severity:blocker')}&per_page=100`);
    expect(found.items.map((i: { id: number }) => i.id).sort((a, b) => a - b)).toEqual(holders.sort((a, b) => a - b));
    expect((await followPages(admin, `/api/v1/issues?q=${encodeURIComponent('cf.severity:critical')}`)).items).toEqual([]);
    // Nothing written: every issue and search record as it was.
    expect(await storedIssues(orgId, projectId)).toEqual(before);
    expect(await searchRecords(orgId)).toEqual(recordsBefore);
    world.severity = renamed.body;
  });

  it(
    'a deleted option is gone at once; its cascade settles each holder once, a page at a time, resumably',
    { timeout: 60_000 },
    async () => {
      const { admin, orgId, projectId, platforms } = world;
      const android = platforms.options[1]!;
      const before = await storedIssues(orgId, projectId);
      const holders = before.filter((i) =>
        ((valuesOf(i)[String(platforms.id)] as number[] | undefined) ?? []).includes(android.id),
      );
      expect(holders.length).toBe(TOTAL / 4);
      // The definitions' change alone, without its pending cascade (which the test run's consumer would
      // run): the cascade is driven here.
      const project = await getProjectItem(orgId, projectId);
      const read = fieldsRead(project!);
      const plan = planFieldUpdate(
        read,
        platforms.id,
        { options: platforms.options.filter((o) => o.id !== android.id).map((o) => ({ id: o.id, name: o.name })) },
        new Date().toISOString(),
      );
      expect(plan.change.settle).toEqual([platforms.id]);
      await transact([fieldsUpdate(orgId, projectId, read, plan.change)]);

      // Not shown at once.
      for (const path of world.samples)
        expect((await ok(admin.get(path))).custom_fields.platforms ?? []).not.toContain('android');
      const searched = await followPages(admin, `/api/v1/issues?q=${encodeURIComponent('cf.platforms:android')}`);
      expect(searched.items).toEqual([]);

      // The cascade with a deadline already past: one page (250 issues read) a step.
      const settled = countSettles();
      const parent = { kind: 'field' as const, orgId, projectId, fieldId: platforms.id };
      let after: PagePosition | undefined;
      const steps: number[] = [];
      for (let step = 0; ; step++) {
        expect(step).toBeLessThan(40);
        const writesBefore = [...settled.values()].reduce((a, b) => a + b, 0);
        try {
          await cascade(parent, { deadline: Date.now() - 1, after });
          steps.push([...settled.values()].reduce((a, b) => a + b, 0) - writesBefore);
          break;
        } catch (err) {
          if (!(err instanceof CascadeInterrupted)) throw err;
          expect(err.after).toBeDefined();
          after = err.after;
          steps.push([...settled.values()].reduce((a, b) => a + b, 0) - writesBefore);
        }
      }
      expect(steps.length).toBeGreaterThanOrEqual(Math.ceil(TOTAL / 250));
      for (const n of steps) expect(n).toBeLessThanOrEqual(250);
      expect(settled.size).toBe(holders.length);
      expect([...settled.values()].every((n) => n === 1)).toBe(true);

      // Idempotent: a second run finds nothing to do.
      settled.clear();
      expect(await cascade(parent, {})).toBe(0);
      expect(settled.size).toBe(0);

      // What is stored: android off every issue and search record, nothing else changed.
      const after_ = byId(await storedIssues(orgId, projectId));
      const records = byId(await searchRecords(orgId));
      for (const old of before) {
        const id = Number(old.id);
        const was = (valuesOf(old)[String(platforms.id)] as number[] | undefined) ?? [];
        const kept = was.filter((o) => o !== android.id);
        const expected = { ...valuesOf(old) };
        if (kept.length > 0) expected[String(platforms.id)] = kept;
        else delete expected[String(platforms.id)];
        const now = after_.get(id)!;
        expect(valuesOf(now)).toEqual(expected);
        expect(valuesOf(records.get(id)!)).toEqual(expected);
        const { custom_fields: _a, ...rest } = now;
        const { custom_fields: _b, ...restBefore } = old;
        expect(rest).toEqual(restBefore); // no updated_at, no revision moved
      }
    },
  );

  it(
    'a deleted field is gone at once, and the cascade takes its values off every issue and search record',
    { timeout: 90_000 },
    async () => {
      const { admin, p, orgId, projectId, severity } = world;
      const fieldId = String(severity.id);
      const before = await storedIssues(orgId, projectId);
      expect(before.filter((i) => valuesOf(i)[fieldId] !== undefined).length).toBeGreaterThan(900);

      expect((await admin.delete(`${p}/fields/${severity.id}`)).status).toBe(204);

      for (const path of world.samples) {
        const issue = await ok(admin.get(path));
        expect(issue.custom_fields).not.toHaveProperty('severity');
        expect(issue.custom_fields).toHaveProperty('platforms');
      }
      expect((await followPages(admin, `/api/v1/issues?q=${encodeURIComponent('cf.severity:high')}`)).items).toEqual([]);
      // Its delete wrote its pending cascade (in a table of this file's own, no consumer reads it):
      // run as the consumer runs it, it takes the field's values off every holder.
      expect(await cascade({ kind: 'field', orgId, projectId, fieldId: severity.id })).toBe(
        before.filter((i) => valuesOf(i)[fieldId] !== undefined).length,
      );
      expect((await storedIssues(orgId, projectId)).filter((i) => valuesOf(i)[fieldId] !== undefined)).toEqual([]);
      expect((await searchRecords(orgId)).filter((r) => valuesOf(r)[fieldId] !== undefined)).toEqual([]);
      const now = byId(await storedIssues(orgId, projectId));
      for (const old of before) {
        const { custom_fields: _a, ...rest } = now.get(Number(old.id))!;
        const { custom_fields: _b, ...restBefore } = old;
        expect(rest).toEqual(restBefore);
        const { [fieldId]: _gone, ...others } = valuesOf(old);
        expect(valuesOf(now.get(Number(old.id))!)).toEqual(others);
      }
    },
  );
});

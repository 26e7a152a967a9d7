import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  exportOrganisation,
  exportPositionSnapshot,
  exportStart,
  walkExport,
  type ExportPosition,
} from '../../lib/services/import-export/export.ts';
import { encodeExportCursor } from '../../lib/services/import-export/export-pages.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { activityOf } from '../support/eventually.ts';

/** `GET /api/v1/export` (docs/import-export.md: Export over REST): cursor pages of the export file. */

const gateway = useGateway();
const today = () => new Date().toISOString().slice(0, 10);

async function ok(res: Promise<{ status: number; body: any }>, status = 201) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

/** Two projects with labels, a completed sprint, an active one, issues with fields, comments and relations. */
async function seedOrg(admin: ApiClient) {
  const ids: number[] = [];
  const lastWrites: string[] = [];
  for (const name of ['Shop', 'Ops']) {
    const project = await ok(admin.post('/api/v1/projects', { project: { name, prefix: randomPrefix() } }));
    const base = `/api/v1/projects/${project.id}`;
    ids.push(project.id);
    await ok(admin.post(`${base}/labels`, { label: { name: 'bug', color: '#ff0000' } }));
    await ok(admin.post(`${base}/labels`, { label: { name: 'ui', color: '#00ff00' } }));
    const done = await ok(admin.post(`${base}/sprints`, { sprint: { name: 'Done sprint', start_date: today() } }));
    const open = await ok(admin.post(`${base}/sprints`, { sprint: { name: 'Next sprint' } }));
    const a = await ok(
      admin.post(`${base}/sprints/${done.id}/issues`, {
        issue: { title: 'Checkout 日本語 🎉', story_points: 3, status: 'done', priority: 'high', type: 'bug', labels: ['bug'] },
      }),
    );
    const b = await ok(admin.post(`${base}/sprints/${done.id}/issues`, { issue: { title: 'Left over', story_points: 5 } }));
    const c = await ok(
      admin.post(`${base}/issues`, { issue: { title: 'Backlog "quoted"\nline', labels: ['ui', 'bug'], due_date: '2099-01-01' } }),
    );
    await ok(admin.post(`${base}/sprints/${done.id}/activate`), 200);
    await ok(admin.post(`${base}/sprints/${done.id}/complete`, { carry_over: { sprint_id: open.id } }), 200);
    await ok(admin.post(`${base}/issues/${c.id}/comments`, { comment: { body: 'First — 日本語' } }));
    await ok(admin.post(`${base}/issues/${c.id}/comments`, { comment: { body: 'Second' } }));
    await ok(
      admin.post(`/api/v1/issues/${a.issue_number}/relations`, { relation: { type: 'blocks', issue_key: c.issue_number } }),
    );
    await ok(
      admin.post(`/api/v1/issues/${b.issue_number}/relations`, { relation: { type: 'relates_to', issue_key: a.issue_number } }),
    );
    // b was carried over into the open sprint; the relation is the project's last write.
    lastWrites.push(`${base}/sprints/${open.id}/issues/${b.id}`);
  }
  await activitySettled(admin, lastWrites);
  return ids;
}

/**
 * Waits until the change feed has written the activity of the seed's writes (it does so after
 * them), else a file taken now and one taken later differ by activity lines, not by how they were
 * paged. A project's items share its partition, whose stream records the change feed takes in order
 * (one lane per partition): once the activity of a project's last write is there, so is all of the
 * project's before it.
 */
async function activitySettled(admin: ApiClient, lastWrites: string[]) {
  await Promise.all(
    lastWrites.map((issue) =>
      activityOf<{ changes: { field: string }[] }>(admin, issue, 1, (e) => e.changes.some((c) => c.field === 'relations')),
    ),
  );
}

/** Every page by its `next` links: the texts and the responses. */
async function allPages(client: ApiClient, first: string) {
  const texts: string[] = [];
  const links: string[] = [];
  const calls: number[] = [];
  let at: string | undefined = first;
  while (at) {
    const res: { status: number; text: string; headers: Headers } = await client.get(at);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    texts.push(res.text);
    calls.push(Number(res.headers.get('x-db-calls') ?? -1));
    const next: string | undefined = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    if (next) links.push(next);
    at = next;
    expect(texts.length).toBeLessThan(500);
  }
  return { texts, links, calls };
}

/** The file the CLI writes, its header's time set to the page's (the rest byte for byte). */
async function cliFile(orgId: number, exportedAt: string) {
  let text = '';
  for await (const line of exportOrganisation(orgId, new Date(exportedAt))) text += `${line}\n`;
  return text;
}

describe('export over REST', () => {
  it('pages, concatenated, are the CLI export byte for byte, with small pages; no secret, no other organisation', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    await seedOrg(admin);
    await ok(other.admin.post('/api/v1/projects', { project: { name: 'Elsewhere secret project', prefix: randomPrefix() } }));
    const hook = await ok(admin.post('/api/v1/webhooks', { webhook: { url: 'http://127.0.0.1:59999/hook', events: ['*'] } }));

    const whole = await allPages(admin, '/api/v1/export');
    const small = await allPages(admin, '/api/v1/export?per_page=3');
    expect(whole.texts.length).toBe(1);
    expect(small.texts.length).toBeGreaterThan(10);
    // Every page is whole lines; the header on the first page only, the end line on the last only.
    for (const t of small.texts) expect(t.endsWith('\n')).toBe(true);
    expect(JSON.parse(small.texts[0]!.split('\n')[0]!)).toMatchObject({ format: 'sprint-ticketing-export', version: 2 });
    expect(small.texts.slice(0, -1).some((t) => t.includes('"kind":"end"'))).toBe(false);
    expect(JSON.parse(small.texts.at(-1)!.trim().split('\n').at(-1)!)).toMatchObject({ kind: 'end' });
    for (const link of small.links) expect(link).toMatch(/^\/api\/v1\/export\?cursor=[\w-]+&per_page=3$/);

    for (const pages of [whole, small]) {
      const text = pages.texts.join('');
      const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { exported_at: string };
      expect(text).toBe(await cliFile(org.orgId, header.exported_at));
    }
    const text = whole.texts.join('');
    const kinds = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as { kind: string }).kind);
    for (const kind of ['account', 'project', 'label', 'sprint', 'issue', 'comment', 'activity', 'end'])
      expect(kinds, kind).toContain(kind);
    const end = JSON.parse(text.trim().split('\n').at(-1)!) as { counts: Record<string, number>; digest: string };
    expect(end.counts).toMatchObject({ project: 2, label: 4, sprint: 4, issue: 6, comment: 4 });
    // The digest of every line before the end line: SHA-256, chained line by line.
    const digest = text
      .trim()
      .split('\n')
      .slice(0, -1)
      .reduce((d, line) => createHash('sha256').update(d).update(line).update('\n').digest('hex'), '');
    expect(end.digest).toBe(digest);
    expect(text).toContain('"type":"blocks"');
    expect(text).toContain('"completed_at"');
    // Never: tokens, webhook endpoints or secrets, another organisation's data.
    expect(text).not.toContain(org.admin.token);
    expect(text).not.toContain(org.member.token);
    expect(text).not.toContain(hook.secret);
    expect(text).not.toContain('127.0.0.1:59999/hook');
    expect(text).not.toContain('Elsewhere secret project');
    expect(text).not.toContain(other.org.admin.token);
  });

  it('ends a page at its DynamoDB calls: many empty projects take several pages, each within 41 calls', async () => {
    const { org, admin } = await orgWithClients(gateway);
    // Each project is at least 6 calls (its read, then its labels, sprints, two lists, comments).
    for (let i = 0; i < 9; i++) await ok(admin.post('/api/v1/projects', { project: { name: `P${i}`, prefix: randomPrefix() } }));
    const pages = await allPages(admin, '/api/v1/export');
    expect(pages.texts.length).toBeGreaterThan(1);
    for (const c of pages.calls) expect(c).toBeLessThanOrEqual(41);
    const text = pages.texts.join('');
    const header = JSON.parse(text.slice(0, text.indexOf('\n'))) as { exported_at: string };
    expect(text).toBe(await cliFile(org.orgId, header.exported_at));
  });

  it('resumes mid-way through a DynamoDB page and across pages alike (the walk, 2 items a Query page)', async () => {
    const { org, admin } = await orgWithClients(gateway);
    await seedOrg(admin);
    const now = new Date('2026-11-25T12:00:00.000Z');
    const whole = await cliFile(org.orgId, now.toISOString());
    for (const every of [1, 2, 5]) {
      // Stop after every `every` lines, keeping only the position (as a cursor does), and go on from it.
      let position = JSON.parse(JSON.stringify(exportStart())) as ExportPosition;
      let text = '';
      for (let guard = 0; position.stage !== 4; guard++) {
        expect(guard).toBeLessThan(1000);
        const walk = walkExport(org.orgId, position, { now, pageSize: 2 });
        let n = 0;
        for await (const line of walk) {
          text += `${line}\n`;
          if (++n === every) break;
        }
        position = exportPositionSnapshot(position);
      }
      expect(text, `every ${every}`).toBe(whole);
    }
  });

  it('is for admins only: a member is 403', async () => {
    const { member } = await orgWithClients(gateway);
    const res = await member.get('/api/v1/export');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it("refuses a bad cursor, another organisation's cursor, a bad per_page and an unknown parameter (422)", async () => {
    const { org, admin } = await orgWithClients(gateway);
    const other = await orgWithClients(gateway);
    const first = await admin.get('/api/v1/export?per_page=1');
    const cursor = /cursor=([\w-]+)/.exec(first.headers.get('link') ?? '')?.[1];
    expect(cursor).toBeDefined();
    for (const path of [
      '/api/v1/export?cursor=not-a-cursor',
      `/api/v1/export?cursor=${Buffer.from('{"o":1}').toString('base64url')}`,
      `/api/v1/export?cursor=${encodeExportCursor(org.orgId, { stage: 1, counts: {}, after: { PK: 'ORG#0000000001', SK: 'ACCOUNT#0000000001' } })}`,
      `/api/v1/export?cursor=${encodeExportCursor(org.orgId, { stage: 2, counts: {}, before: { PK: 'X', SK: 'PROJECT#1' }, step: 0 })}`,
      `/api/v1/export?cursor=${encodeExportCursor(org.orgId, { stage: 9, counts: {} })}`,
      '/api/v1/export?per_page=0',
      '/api/v1/export?per_page=5001',
      '/api/v1/export?page=2',
    ]) {
      const res = await admin.get(path);
      expect(res.status, path).toBe(422);
      expect(res.body.errors, path).toEqual(expect.any(Array));
    }
    // A cursor of another organisation is refused, not followed.
    const res = await other.admin.get(`/api/v1/export?cursor=${cursor}`);
    expect(res.status).toBe(422);
  });
});

import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trashedLabelKey } from '../../lib/db/core/trash.ts';
import { writeExport } from '../../lib/services/import-export/attachment-files.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { importExport } from '../../lib/services/import-export/import-export.ts';
import {
  exportLines as parse,
  exportPages as pages,
  orgWithClients,
  randomPrefix,
  useGateway,
  type ApiClient,
} from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { importIntoNewOrganisation } from '../support/import-file.ts';
import { pastRetention } from '../support/trash.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * An export that includes the trash (docs/import-export.md: `include_trash`): a `trash` line per
 * trashed label or comment before the `end` line, counted and digested like every line, webhooks never; the
 * same over REST pages of any size as from the CLI; without it, the export is what it was; an
 * import of such a file skips the trash lines, bringing no trashed item back as a live one.
 */

const gateway = useGateway();
const folder = mkdtempSync(join(tmpdir(), 'export-trash-'));
const receivers: Receiver[] = [];
afterAll(async () => {
  rmSync(folder, { recursive: true, force: true });
  await Promise.all(receivers.map((r) => r.close()));
});

type Line = Record<string, any>;

async function ok(res: Promise<{ status: number; body: any; text: string }>) {
  const r = await res;
  expect(r.status, r.text).toBeLessThan(300);
  return r.body;
}

/** A project with labels `bug`, `ui` and `old`, an issue carrying them; `ui` and `old` deleted, and a webhook. */
async function seed(admin: ApiClient) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Trash', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const bug = await ok(admin.post(`${p}/labels`, { label: { name: 'bug' } }));
  const ui = await ok(admin.post(`${p}/labels`, { label: { name: 'ui', color: '#00ff00', description: 'Screens' } }));
  const old = await ok(admin.post(`${p}/labels`, { label: { name: 'old' } }));
  const issue = await ok(admin.post(`${p}/issues`, { issue: { title: 'Labelled', labels: ['bug', 'ui', 'old'] } }));
  // Its history (an export line) is written by the change feed after the answer: every export compared
  // below is read once it is there.
  await eventually(
    "the issue's issue.created entry",
    async () => (await admin.get(`${p}/issues/${issue.id}/activity`)).body as { event: string }[],
    (entries) => entries.some((e) => e.event === 'issue.created'),
  );
  const uiAsRead = await ok(admin.get(`${p}/labels/${ui.id}`));
  expect((await admin.delete(`${p}/labels/${ui.id}`)).status).toBe(204);
  expect((await admin.delete(`${p}/labels/${old.id}`)).status).toBe(204);
  const r = await startReceiver();
  receivers.push(r);
  const hook = await ok(admin.post('/api/v1/webhooks', { webhook: { url: r.url, events: ['sprint.completed'] } }));
  expect((await admin.delete(`/api/v1/webhooks/${hook.id}`)).status).toBe(204);
  return { project, bug, ui, uiAsRead, old, hook };
}

/** The CLI's file (`writeExport`), written to a real file, its text. */
async function cliFile(orgId: number, name: string, includeTrash: boolean): Promise<string> {
  const path = join(folder, name);
  const out = createWriteStream(path);
  await writeExport(orgId, out, undefined, includeTrash);
  out.end();
  await once(out, 'finish');
  return path;
}

describe('an export that includes the trash', () => {
  it('carries each trashed label, whole, as a trash line before the end line; webhooks and expired items never', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await seed(admin);
    // `old` is past its retention (the TTL has not removed it yet): left out, as the trash list leaves it out.
    await pastRetention(trashedLabelKey(org.orgId, f.old.id), 10);
    const text = await pages(admin, '/api/v1/export?include_trash=true');
    const lines = parse(text);
    const trash = lines.filter((l) => l.kind === 'trash');
    const entry = (await ok(admin.get(`/api/v1/trash/label-${f.ui.id}`))) as Line;
    expect(trash).toEqual([
      {
        kind: 'trash',
        id: `label-${f.ui.id}`,
        item_kind: 'label',
        deleted_at: entry.deleted_at,
        deleted_by: org.admin.id,
        deleted_by_email: (await ok(admin.get('/api/v1/me'))).account.email,
        expires_at: entry.expires_at,
        item: f.uiAsRead,
      },
    ]);
    // Last before the end line, which counts it.
    expect(lines.at(-2)).toEqual(trash[0]);
    expect(lines.at(-1)).toMatchObject({ kind: 'end', counts: { trash: 1, label: 1 } });
    expect(text).not.toContain(f.hook.url);
    expect(text).not.toContain('"item_kind":"webhook"');
  });

  it('is the same from the CLI and over REST pages of any size; without it, the export is what it was', async () => {
    const { admin, org } = await orgWithClients(gateway);
    await seed(admin);
    const body = (text: string) => text.trim().split('\n').slice(1);
    const cli = readFileSync(await cliFile(org.orgId, 'with-trash.jsonl', true), 'utf8');
    for (const perPage of [1, 2, 5000]) {
      const rest = await pages(admin, `/api/v1/export?include_trash=true&per_page=${perPage}`);
      // The header's time aside (and the digest, which takes it in), the same lines.
      expect(body(rest).slice(0, -1), `per_page=${perPage}`).toEqual(body(cli).slice(0, -1));
      expect(JSON.parse(body(rest).at(-1)!).counts).toEqual(JSON.parse(body(cli).at(-1)!).counts);
    }
    // Without it: no trash line, and the lines are exactly those of the export with it but the trash.
    const plain = readFileSync(await cliFile(org.orgId, 'plain.jsonl', false), 'utf8');
    expect(plain).not.toContain('"kind":"trash"');
    expect(body(plain).slice(0, -1)).toEqual(
      body(cli)
        .filter((l) => !l.startsWith('{"kind":"trash"'))
        .slice(0, -1),
    );
    const { trash: _trash, ...counts } = JSON.parse(body(cli).at(-1)!).counts;
    expect(JSON.parse(body(plain).at(-1)!).counts).toEqual(counts);
    for (const query of ['', '?include_trash=false']) {
      const rest = await pages(admin, `/api/v1/export${query}`);
      expect(body(rest).slice(0, -1), query).toEqual(body(plain).slice(0, -1));
    }
    // The file without it is the export as the CLI always wrote it.
    let before = '';
    for await (const line of exportOrganisation(org.orgId)) before += `${line}\n`;
    expect(body(before).slice(0, -1)).toEqual(body(plain).slice(0, -1));
  });

  it('keeps include_trash with its cursor: a later page may repeat it, not change it; anything but true or false is 422', async () => {
    const { admin } = await orgWithClients(gateway);
    await seed(admin);
    const first = await admin.get('/api/v1/export?include_trash=true&per_page=1');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    expect((await admin.get(`${next!}&include_trash=true`)).status).toBe(200);
    const changed = await admin.get(`${next!}&include_trash=false`);
    expect(changed.status).toBe(422);
    expect(changed.body.errors.join(' ')).toContain('include_trash');
    for (const bad of ['yes', '1', 'TRUE', '']) {
      const res = await admin.get(`/api/v1/export?include_trash=${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.errors.join(' '), bad).toContain('include_trash');
    }
  });

  it("carries a trashed comment as its own comment line showed it, with its author's e-mail; its import brings it back nowhere", async () => {
    const { admin, member, org } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Comments', prefix: randomPrefix() } }));
    const p = `/api/v1/projects/${project.id}`;
    const issue = await ok(admin.post(`${p}/issues`, { issue: { title: 'Commented' } }));
    const kept = await ok(admin.post(`${p}/issues/${issue.id}/comments`, { comment: { body: 'Kept' } }));
    const gone = await ok(member.post(`${p}/issues/${issue.id}/comments`, { comment: { body: 'Gone\nwith a second line' } }));
    const before = parse(await pages(admin, '/api/v1/export'));
    const { kind: _kind, ...asExported } = before.find((l) => l.kind === 'comment' && l.id === gone.id)!;
    expect(asExported.author_email).toBe((await ok(member.get('/api/v1/me'))).account.email);
    expect((await member.delete(`/api/v1/comments/${gone.id}`)).status).toBe(204);

    const lines = parse(await pages(admin, '/api/v1/export?include_trash=true'));
    expect(lines.filter((l) => l.kind === 'comment').map((l) => l.id)).toEqual([kept.id]);
    const trash = lines.filter((l) => l.kind === 'trash');
    expect(trash).toEqual([
      expect.objectContaining({ id: `comment-${gone.id}`, item_kind: 'comment', deleted_by: org.member.id, item: asExported }),
    ]);

    const path = join(folder, 'comments.jsonl');
    writeFileSync(path, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const { report, there } = await importIntoNewOrganisation(gateway, path);
    expect(report.errors).toEqual([]);
    const [copy] = (await ok(there.get('/api/v1/projects'))) as Line[];
    const [imported] = (await ok(there.get(`/api/v1/projects/${copy!.id}/issues`))) as Line[];
    const comments = (await ok(there.get(`/api/v1/projects/${copy!.id}/issues/${imported!.id}/comments`))) as Line[];
    expect(comments.map((c) => c.body)).toEqual(['Kept']);
    expect(await ok(there.get('/api/v1/trash'))).toEqual([]);
  });

  it('imports from the real file without bringing a trashed label back: not live, not in the trash', async () => {
    const { admin, org } = await orgWithClients(gateway);
    const f = await seed(admin);
    const path = await cliFile(org.orgId, 'to-import.jsonl', true);
    expect(readFileSync(path, 'utf8')).toContain('"kind":"trash"');
    const { target, report, there } = await importIntoNewOrganisation(gateway, path);
    expect(report.errors).toEqual([]);
    expect(Object.keys(report.ids.labels)).toEqual([String(f.bug.id)]);
    const [project] = (await ok(there.get('/api/v1/projects'))) as Line[];
    const labels = (await ok(there.get(`/api/v1/projects/${project!.id}/labels`))) as Line[];
    expect(labels.map((l) => l.name)).toEqual(['bug']);
    const [issue] = (await ok(there.get(`/api/v1/projects/${project!.id}/issues`))) as Line[];
    expect(issue!.labels.map((l: Line) => l.name)).toEqual(['bug']);
    expect(await ok(there.get('/api/v1/trash'))).toEqual([]);
    // Imported again: nothing more.
    const again = await importExport({ orgId: target.orgId }, () => createReadStream(path, 'utf8'));
    expect(again.errors).toEqual([]);
    expect((await ok(there.get(`/api/v1/projects/${project!.id}/labels`))).map((l: Line) => l.name)).toEqual(['bug']);
  });
});

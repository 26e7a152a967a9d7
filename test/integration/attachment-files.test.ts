import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deleteObjects } from '../../lib/db/objects.ts';
import type { Principal } from '../../lib/model/principal.ts';
import type { AttachmentCreate } from '../../lib/schemas/attachments.ts';
import { completeAttachment, createAttachment } from '../../lib/services/attachments.ts';
import { createComment } from '../../lib/services/comments.ts';
import { writeExport } from '../../lib/services/import-export/attachment-files.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * An export's attachments (docs/import-export.md): a manifest line per ready attachment, and with a
 * folder of files each file beside the JSON Lines file, read from the local S3 server; files
 * uploaded through the pre-signed form as a browser posts it.
 */

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Posts a pre-signed form with its fields, then the file (as a browser does), to the local S3 server. */
async function postForm(form: { url: string; fields: Record<string, string> }, file: Buffer, type: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type }), 'file');
  return fetch(form.url, { method: 'POST', body });
}

export const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(3000, 7), Buffer.from('end')]);
export const log = Buffer.from(Array.from({ length: 200 }, (_, i) => `12:00:${i} ERROR save failed: disk full\n`).join(''));

/** Declares a file, posts it with its form and completes it: a ready attachment. */
async function attach(
  caller: Principal,
  issueKey: string,
  file: Buffer,
  details: { name: string; content_type: AttachmentCreate['content_type']; comment_id?: number; withSha?: boolean },
) {
  const { withSha = true, ...rest } = details;
  const declared = await createAttachment(caller, issueKey, {
    ...rest,
    size: file.length,
    ...(withSha ? { sha256: sha(file) } : {}),
  });
  expect((await postForm(declared.upload, file, details.content_type)).status).toBe(204);
  return completeAttachment(caller, issueKey, declared.id);
}

/** An organisation with a ready screenshot on an issue, a ready log (no SHA-256 declared) on its comment, and a pending file. */
export async function organisationWithFiles() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Files', prefix: randomPrefix() });
  const issue = await createIssue(caller, { projectId: project.id, sprintId: null }, { title: 'Crash on save' });
  const comment = await createComment(
    caller,
    { projectId: project.id, sprintId: null, issueId: issue.id },
    { body: 'Log attached' },
  );
  const screenshot = await attach(caller, issue.issue_number, png, { name: 'screen shot.png', content_type: 'image/png' });
  const logFile = await attach(caller, issue.issue_number, log, {
    name: 'save.log',
    content_type: 'text/plain',
    comment_id: comment.id,
    withSha: false,
  });
  const pending = await createAttachment(caller, issue.issue_number, {
    name: 'later.pdf',
    content_type: 'application/pdf',
    size: 10,
  });
  return { org, caller, project, issue, comment, screenshot, logFile, pending };
}

/** Exports `orgId` into a fresh folder: the JSON Lines file and, with `files`, the folder of files beside it. */
export async function exportTo(orgId: number, files = true) {
  const dir = mkdtempSync(join(tmpdir(), 'export-files-'));
  const path = join(dir, 'org.jsonl');
  const out = createWriteStream(path);
  const written = await writeExport(orgId, out, files ? join(dir, 'files') : undefined);
  out.end();
  await once(out, 'finish');
  const lines = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, path, folder: join(dir, 'files'), written, lines };
}

describe('export of attachments', () => {
  it('writes a manifest line per ready attachment and, with a folder, each file byte for byte (its SHA-256 checked)', async () => {
    const { org, project, issue, comment, screenshot, logFile } = await organisationWithFiles();
    const { lines, folder, written } = await exportTo(org.orgId);
    const attachments = lines.filter((l) => l.kind === 'attachment');
    // The pending file is no line: it has no file yet.
    expect(attachments).toEqual([
      {
        kind: 'attachment',
        id: screenshot.id,
        project_id: project.id,
        issue_id: issue.id,
        comment_id: null,
        name: 'screen shot.png',
        content_type: 'image/png',
        size: png.length,
        sha256: sha(png),
        uploader_id: org.admin.id,
        uploader_name: 'Ada Admin',
        uploader_email: expect.stringMatching(/^admin-.*@example.com$/),
        created_at: screenshot.created_at,
        file: `${screenshot.id}-screen_shot.png`,
      },
      expect.objectContaining({ id: logFile.id, comment_id: comment.id, sha256: null, file: `${logFile.id}-save.log` }),
    ]);
    expect(lines.at(-1)).toMatchObject({ kind: 'end', counts: { attachment: 2 } });
    expect(written).toEqual({ lines: lines.length, files: { folder, files: 2, bytes: png.length + log.length, missing: [] } });
    expect(readdirSync(folder).sort()).toEqual([`${logFile.id}-save.log`, `${screenshot.id}-screen_shot.png`].sort());
    const onDisk = readFileSync(join(folder, String(attachments[0]!.file)));
    expect(onDisk.equals(png)).toBe(true);
    expect(sha(onDisk)).toBe(attachments[0]!.sha256);
    expect(readFileSync(join(folder, String(attachments[1]!.file))).equals(log)).toBe(true);
  });

  it('without a folder writes the lines only; a file gone from the bucket is reported, not written', async () => {
    const { org, project, issue, screenshot, logFile } = await organisationWithFiles();
    const linesOnly = await exportTo(org.orgId, false);
    expect(linesOnly.written).toEqual({ lines: linesOnly.lines.length });
    expect(linesOnly.lines.filter((l) => l.kind === 'attachment')).toHaveLength(2);

    const pad = (n: number) => String(n).padStart(10, '0');
    await deleteObjects([`o/${pad(org.orgId)}/p/${pad(project.id)}/i/${pad(issue.id)}/a/${pad(screenshot.id)}`]);
    const { written, folder } = await exportTo(org.orgId);
    expect(written.files).toEqual({
      folder,
      files: 1,
      bytes: log.length,
      missing: [
        {
          id: screenshot.id,
          name: 'screen shot.png',
          file: `${screenshot.id}-screen_shot.png`,
          reason: 'its file is not in the bucket (deleted since the export began)',
        },
      ],
    });
    expect(readdirSync(folder)).toEqual([`${logFile.id}-save.log`]);
  });
});

import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Principal } from '../../lib/model/principal.ts';
import type { AttachmentCreate } from '../../lib/schemas/attachments.ts';
import { completeAttachment, createAttachment } from '../../lib/services/attachments.ts';
import { createComment } from '../../lib/services/comments.ts';
import { writeExport } from '../../lib/services/import-export/attachment-files.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from './api.ts';

/**
 * Organisations with attachments for the tests of their export and import (docs/import-export.md):
 * files uploaded through the pre-signed form to the local S3 server, as a browser posts them.
 */

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

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

/** Exports `orgId` (its trash too, with `includeTrash`) into a fresh folder: the JSON Lines file and, with `files`, the folder of files beside it. */
export async function exportTo(orgId: number, files = true, includeTrash = false) {
  const dir = mkdtempSync(join(tmpdir(), 'export-files-'));
  const path = join(dir, 'org.jsonl');
  const out = createWriteStream(path);
  const written = await writeExport(orgId, out, files ? join(dir, 'files') : undefined, includeTrash);
  out.end();
  await once(out, 'finish');
  const lines = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dir, path, folder: join(dir, 'files'), written, lines };
}

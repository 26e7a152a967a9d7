import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  getAttachment,
  listAttachments as storedAttachments,
  organisationBytes,
  type StoredAttachment,
} from '../../lib/db/attachments/attachments.ts';
import { attachmentCounterDifferences } from '../../lib/jobs/attachment-counters.ts';
import { releaseCommentAttachments, settleIssueCommentAttachments } from '../../lib/jobs/attachment-settling.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { attachmentObjectKey, deleteObjects, readObject } from '../../lib/aws/objects.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { listAttachments, restoreAttachment } from '../../lib/services/attachments.ts';
import { nextId } from '../../lib/db/core/sequences.ts';
import { attachmentFolder } from '../../lib/services/import-export/attachment-files.ts';
import { importExport } from '../../lib/services/import-export/import-export.ts';
import { exportStart, walkExport } from '../../lib/services/import-export/export.ts';
import { deleteComment } from '../../lib/services/comments.ts';
import { deleteIssue } from '../../lib/services/issues.ts';
import { purge, restore } from '../../lib/services/trash.ts';
import { newOrganisation } from '../support/api.ts';
import { exportTo, log, organisationWithFiles, png, sha } from '../support/attachment-files.ts';

/**
 * An export's attachments (docs/import-export.md): a manifest line per ready attachment, and with a
 * folder of files each file beside the JSON Lines file, read from the local S3 server; files
 * uploaded through the pre-signed form as a browser posts it. Its import into other organisations
 * re-creates them from those files (counters checked against the attachments with a Scan: this
 * file works on a table of its own).
 */

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

describe('export of the attachments of a comment in the trash', () => {
  it("leaves them out, also when the walk resumes among its issue's contents, and writes them again once the comment is restored", async () => {
    const { org, caller, comment, screenshot, logFile } = await organisationWithFiles();
    const attachmentIds = (lines: Record<string, unknown>[]) => lines.filter((l) => l.kind === 'attachment').map((l) => l.id);
    expect(attachmentIds((await exportTo(org.orgId, false)).lines)).toEqual([screenshot.id, logFile.id]);

    await deleteComment(caller, comment.id);
    const whole = (await exportTo(org.orgId, false)).lines;
    expect(attachmentIds(whole)).toEqual([screenshot.id]);
    // Walked a few reads at a time, one item a page (as the REST export pages it): some walk
    // resumes just after the issue's item, so it reads the issue again to know.
    const body = (lines: string[]) => lines.slice(1, -1);
    for (const reads of [6, 7, 8, 9, 10, 11]) {
      const position = exportStart();
      const lines: string[] = [];
      for (let calls = 0; position.stage < 4 && calls < 200; calls++) {
        let left = reads;
        for await (const line of walkExport(org.orgId, position, { pageSize: 1, mayRead: () => left-- > 0 })) lines.push(line);
      }
      expect(body(lines), `${reads} reads a call`).toEqual(body(whole.map((l) => JSON.stringify(l))));
    }

    await restore(caller, `comment-${comment.id}`);
    expect(attachmentIds((await exportTo(org.orgId, false)).lines)).toEqual([screenshot.id, logFile.id]);
  });
});

describe('export of the attachments of an issue in the trash', () => {
  it('leaves them out; with the trash, they are its trash_content lines and their files are written, also when the walk resumes among them', async () => {
    const { org, caller, issue, screenshot, logFile } = await organisationWithFiles();
    const before = (await exportTo(org.orgId, false)).lines.filter((l) => l.kind === 'attachment');
    expect(before.map((l) => l.id)).toEqual([screenshot.id, logFile.id]);

    await deleteIssue(caller, { projectId: issue.project_id, sprintId: null }, issue.id);
    const plain = await exportTo(org.orgId);
    expect(plain.lines.filter((l) => l.kind === 'attachment')).toEqual([]);
    expect(plain.written.files).toMatchObject({ files: 0, bytes: 0 });

    const withTrash = await exportTo(org.orgId, true, true);
    const held = withTrash.lines.filter((l) => l.kind === 'trash_content' && l.item_kind === 'attachment');
    expect(held).toEqual(
      before.map(({ kind: _kind, ...item }) => ({
        kind: 'trash_content',
        trash_id: `issue-${issue.id}`,
        item_kind: 'attachment',
        item,
      })),
    );
    expect(withTrash.written.files).toEqual({ folder: withTrash.folder, files: 2, bytes: png.length + log.length, missing: [] });
    expect(readFileSync(join(withTrash.folder, String(before[0]!.file))).equals(png)).toBe(true);
    expect(readFileSync(join(withTrash.folder, String(before[1]!.file))).equals(log)).toBe(true);

    // Walked a few reads at a time, one item a page (as the REST export pages it): the same lines.
    const body = (lines: string[]) => lines.slice(1, -1);
    for (const reads of [6, 7, 8, 9, 10, 11]) {
      const position = exportStart(true);
      const lines: string[] = [];
      for (let calls = 0; position.stage < 4 && calls < 400; calls++) {
        let left = reads;
        for await (const line of walkExport(org.orgId, position, { pageSize: 1, mayRead: () => left-- > 0 })) lines.push(line);
      }
      expect(body(lines), `${reads} reads a call`).toEqual(body(withTrash.lines.map((l) => JSON.stringify(l))));
    }
  });
});

describe("a comment's attachments when its issue goes into the trash before they are hidden", () => {
  it('counts them no more on the issue once the comment is purged meanwhile: its restore brings back the count of what is there', async () => {
    const { org, caller, issue, comment, screenshot, logFile, pending } = await organisationWithFiles();
    const at = { projectId: issue.project_id, sprintId: null };
    // The comment into the trash, then its issue, before the stream consumer hid the comment's file
    // (this file's table has no consumer: each step it would take is taken below, in that order).
    await deleteComment(caller, comment.id);
    await deleteIssue(caller, at, issue.id);
    // The comment purged while its issue is in the trash: its purge's cascade removes its file.
    await purge(caller, `comment-${comment.id}`);
    await releaseCommentAttachments(org.orgId, issue.project_id, issue.id, comment.id);
    expect(await getAttachment(org.orgId, issue.project_id, issue.id, logFile.id)).toBeUndefined();
    // The issue back, and what its restore's record brings the consumer to do.
    await restore(caller, `issue-${issue.id}`);
    await settleIssueCommentAttachments(org.orgId, issue.project_id, issue.id);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);
    expect((await listAttachments(caller, issue.issue_number)).map((a) => a.id)).toEqual([screenshot.id, pending.id]);
  });
});

/** An organisation's attachments, every field but those that name ids, in order. */
async function attachmentsOf(orgId: number) {
  const { lines, folder } = await exportTo(orgId);
  return lines
    .filter((l) => l.kind === 'attachment')
    .map(({ id, project_id: _p, issue_id: _i, comment_id: _c, uploader_id: _u, file, ...rest }) => ({
      ...rest,
      bytes: readFileSync(join(folder, String(file))),
      fileName: String(file).slice(String(id).length),
    }));
}

/** An organisation's attachment counters, as stored, and whether they agree with its attachments. */
async function counters(orgId: number) {
  return { bytes: await organisationBytes(orgId), differences: await attachmentCounterDifferences(orgId) };
}

const read = (path: string) => [readFileSync(path, 'utf8')];

describe('import of an export with attachments', () => {
  it('re-creates each attachment on its issue and comment, its file re-uploaded and checked; counters exact; a second run writes nothing', async () => {
    const source = await organisationWithFiles();
    const { path, folder } = await exportTo(source.org.orgId);
    const target = await newOrganisation();
    const report = await importExport({ orgId: target.orgId, files: attachmentFolder(folder) }, read(path));
    expect(report.errors).toEqual([]);
    expect(report.attachments).toEqual({ restored: 2, already_imported: 0, left_out: [] });
    expect(Object.keys(report.ids.attachments).sort()).toEqual([String(source.screenshot.id), String(source.logFile.id)].sort());

    // Equal to the source's, ids aside; the files byte for byte.
    const restored = await attachmentsOf(target.orgId);
    expect(restored).toEqual(await attachmentsOf(source.org.orgId));
    expect(restored.map((a) => a.bytes.equals(a.fileName.endsWith('save.log') ? log : png))).toEqual([true, true]);
    // On the new issue and comment, by the new uploader account, ready.
    const newIssue = report.ids.issues[String(source.issue.id)]!;
    const key = report.keys[source.issue.issue_number]!;
    const caller: Principal = { orgId: target.orgId, accountId: target.admin.id, role: 'admin', tokenHash: '' };
    const listed = await listAttachments(caller, key);
    expect(listed.map((a) => [a.issue_id, a.comment_id, a.status, a.uploader_id])).toEqual([
      [newIssue, null, 'ready', report.ids.accounts[String(source.org.admin.id)]],
      [newIssue, report.ids.comments[String(source.comment.id)], 'ready', report.ids.accounts[String(source.org.admin.id)]],
    ]);
    expect(sha(Buffer.from(await (await fetch(listed[0]!.download_url!)).arrayBuffer()))).toBe(sha(png));
    expect(await counters(target.orgId)).toEqual({ bytes: png.length + log.length, differences: [] });

    const again = await importExport({ orgId: target.orgId, files: attachmentFolder(folder) }, read(path));
    expect(again.attachments).toEqual({ restored: 0, already_imported: 2, left_out: [] });
    expect(again.ids.attachments).toEqual(report.ids.attachments);
    expect(await listAttachments(caller, key)).toHaveLength(2);
    expect(await counters(target.orgId)).toEqual({ bytes: png.length + log.length, differences: [] });
  });

  it('takes up an attachment an earlier run left pending (its file put again and checked), counting it once', async () => {
    const source = await organisationWithFiles();
    const { path, folder } = await exportTo(source.org.orgId);
    const target = await newOrganisation();
    const first = await importExport({ orgId: target.orgId, files: attachmentFolder(folder) }, read(path));
    // As a run that stopped between the pending write and the upload leaves it.
    const newId = first.ids.attachments[String(source.screenshot.id)]!;
    const projectId = first.ids.projects[String(source.project.id)]!;
    const issueId = first.ids.issues[String(source.issue.id)]!;
    const [stored] = (await storedAttachments(target.orgId, projectId, issueId)).filter((a) => a.id === newId);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.attachment(target.orgId, projectId, issueId, newId),
        UpdateExpression: 'SET #s = :pending',
        ExpressionAttributeNames: { '#s': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending' },
      }),
    );
    // Its declaration's place among the pending uploads, which its completion gives back.
    for (const [Key, files, bytes] of [
      [keys.org(target.orgId), 'pending_attachments', 'pending_attachment_bytes'],
      [keys.pendingUploads(target.orgId, stored!.uploaderId), 'pending_files', 'pending_bytes'],
    ] as const) {
      await db.send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: `ADD ${files} :one, ${bytes} :size`,
          ExpressionAttributeValues: { ':one': 1, ':size': stored!.size },
        }),
      );
    }
    await deleteObjects([stored!.objectKey]);

    const again = await importExport({ orgId: target.orgId, files: attachmentFolder(folder) }, read(path));
    expect(again.attachments).toEqual({ restored: 1, already_imported: 1, left_out: [] });
    expect(again.ids.attachments[String(source.screenshot.id)]).toBe(newId);
    const now = await storedAttachments(target.orgId, projectId, issueId);
    expect(now.map((a) => a.status)).toEqual(['ready', 'ready']);
    expect((await readObject(stored!.objectKey))?.equals(png)).toBe(true);
    expect(await counters(target.orgId)).toEqual({ bytes: png.length + log.length, differences: [] });
  });

  it('leaves out, with a line in the report, an attachment whose file is missing, changed, or has no folder; nothing of it is written', async () => {
    const source = await organisationWithFiles();
    const { path, folder } = await exportTo(source.org.orgId);
    const screenshotFile = `${source.screenshot.id}-screen_shot.png`;
    const logFile = `${source.logFile.id}-save.log`;
    const out = (file: string, reason: string | RegExp) => ({
      line: expect.any(Number),
      issue_number: source.issue.issue_number,
      name: file === logFile ? 'save.log' : 'screen shot.png',
      file,
      reason: reason instanceof RegExp ? expect.stringMatching(reason) : reason,
    });

    // A job over REST, or the CLI without --files: no folder.
    const noFolder = await newOrganisation();
    const none = await importExport({ orgId: noFolder.orgId }, read(path));
    const noFolderReason = "no folder of files was given (the admin CLI's --files): the file was not restored";
    expect(none.attachments).toEqual({
      restored: 0,
      already_imported: 0,
      left_out: [out(screenshotFile, noFolderReason), out(logFile, noFolderReason)],
    });
    expect(none.errors).toEqual([]);
    expect(await counters(noFolder.orgId)).toEqual({ bytes: 0, differences: [] });

    // The screenshot's file gone, the log's changed (same size, other bytes): its line has no SHA-256, so only its size is checked.
    rmSync(join(folder, screenshotFile));
    const changedLog = Buffer.from(log);
    changedLog[0] = 0x41;
    writeFileSync(join(folder, logFile), changedLog);
    const missing = await newOrganisation();
    const partial = await importExport({ orgId: missing.orgId, files: attachmentFolder(folder) }, read(path));
    expect(partial.attachments).toEqual({
      restored: 1,
      already_imported: 0,
      left_out: [out(screenshotFile, `${screenshotFile} is not in ${folder}`)],
    });
    expect(await counters(missing.orgId)).toEqual({ bytes: log.length, differences: [] });

    // A file of another size, or (its line has one) another SHA-256.
    writeFileSync(join(folder, screenshotFile), Buffer.concat([png, Buffer.from('!')]));
    writeFileSync(join(folder, logFile), log);
    const wrongSize = await newOrganisation();
    expect(
      (await importExport({ orgId: wrongSize.orgId, files: attachmentFolder(folder) }, read(path))).attachments.left_out,
    ).toEqual([out(screenshotFile, `${screenshotFile} has ${png.length + 1} bytes, not the ${png.length} of its line`)]);
    const otherPng = Buffer.from(png);
    otherPng[10] = 1;
    writeFileSync(join(folder, screenshotFile), otherPng);
    const wrongSha = await newOrganisation();
    expect(
      (await importExport({ orgId: wrongSha.orgId, files: attachmentFolder(folder) }, read(path))).attachments.left_out,
    ).toEqual([out(screenshotFile, `${screenshotFile} does not have the SHA-256 of its line`)]);
    expect(await counters(wrongSha.orgId)).toEqual({ bytes: log.length, differences: [] });
  });

  it('a dry run checks the files and writes nothing; the folder gives no file by a path out of it', async () => {
    const source = await organisationWithFiles();
    const { path, folder } = await exportTo(source.org.orgId);
    const target = await newOrganisation();
    const dry = await importExport({ orgId: target.orgId, dryRun: true, files: attachmentFolder(folder) }, read(path));
    expect(dry.attachments).toEqual({ restored: 2, already_imported: 0, left_out: [] });
    expect(await counters(target.orgId)).toEqual({ bytes: 0, differences: [] });
    expect(await attachmentFolder(folder).file('../org.jsonl')).toEqual({ missing: '"../org.jsonl" is not a plain file name' });
    expect(await attachmentFolder(folder).file('/etc/passwd')).toEqual({ missing: '"/etc/passwd" is not a plain file name' });
  });

  it('marks a restored attachment ready only once the object in the bucket checks out: other bytes than its file are removed again with their counts', async () => {
    const { org, project, issue } = await organisationWithFiles();
    const before = await counters(org.orgId);
    const id = await nextId(org.orgId, 'attachment');
    const a: StoredAttachment = {
      id,
      orgId: org.orgId,
      projectId: project.id,
      issueId: issue.id,
      commentId: null,
      name: 'restored.png',
      contentType: 'image/png',
      size: png.length,
      sha256: sha(png),
      status: 'pending',
      objectKey: attachmentObjectKey(org.orgId, project.id, issue.id, id),
      uploaderId: org.admin.id,
      uploaderName: 'Ada Admin',
      createdAt: '2025-01-02T03:04:05.000Z',
      inTrash: false,
      trashedAt: null,
      trashedInSprint: null,
      stagingKey: null,
      reserved: true,
    };
    // The same size, other bytes: the local server stores them (AWS would refuse the checksum); the check after the upload does not.
    const other = Buffer.from(png);
    other[20] = 9;
    await expect(restoreAttachment(a, { open: () => Readable.from([other]), sha256: sha(png) }, false)).rejects.toThrow(
      /sha256: the uploaded file does not have the SHA-256 declared/,
    );
    expect((await storedAttachments(org.orgId, project.id, issue.id)).map((x) => x.id)).not.toContain(id);
    expect(await counters(org.orgId)).toEqual(before);

    await restoreAttachment(a, { open: () => Readable.from([png]), sha256: sha(png) }, false);
    const [restored] = (await storedAttachments(org.orgId, project.id, issue.id)).filter((x) => x.id === id);
    expect(restored).toMatchObject({ status: 'ready', createdAt: '2025-01-02T03:04:05.000Z', sha256: sha(png) });
    expect(await counters(org.orgId)).toEqual({ bytes: before.bytes + png.length, differences: [] });
  });
});

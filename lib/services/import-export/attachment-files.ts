/**
 * The files of an export's attachments (docs/import-export.md): the admin CLI writes each ready
 * attachment's file into a folder beside the JSON Lines file (`export --files DIR`), and reads them
 * back from there to re-upload them (`import --format export --files DIR`). One file at a time, as
 * a stream: memory stays bounded whatever the files' sizes and number.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebStream } from 'node:stream/web';
import { attachmentObjectKey, readObjectStream } from '../../aws/objects.ts';
import { isPlainFileName } from '../../model/attachments.ts';
import { exportOrganisation } from './export.ts';

/** A stream step that hashes (SHA-256) and counts what passes through it. */
function digestOf() {
  const hash = createHash('sha256');
  let bytes = 0;
  const step = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { step, result: () => ({ bytes, sha256: hash.digest('hex') }) };
}

/** An attachment line of an export, as the files are written and read by it. */
export interface AttachmentLine {
  id: number;
  project_id: number;
  issue_id: number;
  name: string;
  size: number;
  sha256: string | null;
  file: string;
}

/** What an export with files wrote besides its lines. */
export interface FilesWritten {
  folder: string;
  files: number;
  bytes: number;
  /** Attachments whose file could not be written (gone from the bucket meanwhile, or not the file its line says). */
  missing: { id: number; name: string; file: string; reason: string }[];
}

/**
 * Writes one attachment's file into `folder` as `line.file`, streamed from the bucket and hashed on
 * the way; a file whose size or SHA-256 is not its line's is removed again. Undefined when written,
 * else why not.
 */
export async function writeAttachmentFile(orgId: number, line: AttachmentLine, folder: string): Promise<string | undefined> {
  if (!isPlainFileName(line.file)) return `"${line.file}" is not a plain file name`;
  const body = await readObjectStream(attachmentObjectKey(orgId, line.project_id, line.issue_id, line.id));
  if (!body) return 'its file is not in the bucket (deleted since the export began)';
  const target = join(folder, line.file);
  const partial = `${target}.partial`;
  const digest = digestOf();
  try {
    await pipeline(Readable.fromWeb(body as WebStream), digest.step, createWriteStream(partial));
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  const { bytes, sha256 } = digest.result();
  const wrong =
    bytes !== line.size
      ? `the bucket holds ${bytes} bytes, not the ${line.size} of its line`
      : line.sha256 && sha256 !== line.sha256
        ? 'the bucket holds a file of another SHA-256 than its line'
        : undefined;
  if (wrong) {
    rmSync(partial, { force: true });
    return wrong;
  }
  renameSync(partial, target);
  return undefined;
}

/**
 * Writes an organisation's export to `out` (JSON Lines) and, given `folder`, each ready
 * attachment's file (those in the trash too, when it includes the trash) into it (made if missing) as its line's `file` names it, one after another.
 * Answers how many lines, and what was written into the folder.
 */
export async function writeExport(
  orgId: number,
  out: Writable,
  folder: string | undefined,
  /** The export includes the organisation's trash (`--include-trash`). */
  includeTrash = false,
): Promise<{ lines: number; files?: FilesWritten }> {
  if (folder !== undefined) mkdirSync(folder, { recursive: true });
  const files: FilesWritten | undefined = folder === undefined ? undefined : { folder, files: 0, bytes: 0, missing: [] };
  let lines = 0;
  for await (const text of exportOrganisation(orgId, new Date(), includeTrash)) {
    lines += 1;
    if (!out.write(`${text}\n`)) await new Promise((resolve) => out.once('drain', resolve));
    if (!files) continue;
    // A ready attachment's line, or one in the trash (its own `trash` line, or one of an issue's
    // `trash_content`, with `--include-trash`).
    const line = attachmentOf(text);
    if (!line) continue;
    const why = await writeAttachmentFile(orgId, line, files.folder);
    if (why) files.missing.push({ id: line.id, name: line.name, file: line.file, reason: why });
    else {
      files.files += 1;
      files.bytes += line.size;
    }
  }
  return files ? { lines, files } : { lines };
}

/** The attachment an export line is the manifest of, if it is one: its own line, trashed, or what a trashed thing holds. */
function attachmentOf(text: string): AttachmentLine | undefined {
  if (text.startsWith('{"kind":"attachment"')) return JSON.parse(text) as AttachmentLine;
  // `trash` and `trash_content` lines alike.
  if (!text.startsWith('{"kind":"trash')) return undefined;
  const line = JSON.parse(text) as { item_kind: string; item: AttachmentLine };
  return line.item_kind === 'attachment' ? line.item : undefined;
}

/** A file of the folder beside an export, as its import reads it. */
export interface AttachmentFile {
  size: number;
  sha256: string;
  /** Its bytes, read again from the start. */
  open(): Readable;
}

/** The folder of an export's files, as its import reads them (`import --files DIR`). */
export interface AttachmentFolder {
  /** The file `name` (an export line's `file`), hashed, or why it cannot be taken. */
  file(name: string): Promise<AttachmentFile | { missing: string }>;
}

/** The folder `path` on this machine. */
export function attachmentFolder(path: string): AttachmentFolder {
  return {
    async file(name) {
      if (!isPlainFileName(name)) return { missing: `"${name}" is not a plain file name` };
      const at = join(path, name);
      let size: number;
      try {
        const stat = statSync(at);
        if (!stat.isFile()) return { missing: `${name} is not a file in ${path}` };
        size = stat.size;
      } catch {
        return { missing: `${name} is not in ${path}` };
      }
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(at)) hash.update(chunk as Buffer);
      return { size, sha256: hash.digest('hex'), open: () => createReadStream(at) };
    },
  };
}

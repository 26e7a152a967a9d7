import { createHash } from 'node:crypto';
import { ValidationError } from '../../vocabulary/errors.ts';
import { CsvError, CsvReader } from '../../model/formats/csv.ts';
import { CustomColumnStats } from '../../model/formats/custom-columns.ts';
import { characters, importBounds } from '../../model/formats/bounds.ts';
import type { Line } from '../../model/formats/records.ts';
import {
  githubFields,
  githubRecord,
  jiraColumns,
  jiraRecord,
  keyNumber,
  missingJiraColumns,
  type SourceRecord,
} from '../../model/formats/sources.ts';

/**
 * The checks of a whole file before an import writes anything (docs/import-export.md: What a run
 * does): its records read (a CSV that is not CSV, a header without its columns, JSON that is not an
 * array), keys of another prefix under `keep_numbers`, an export file's lines, counts and digest.
 * Pure reading, each linear in the file: the upload route runs them before it stores a job (a file
 * refused is 422, nothing written), the import runs them again before its first write. Apart from
 * the import itself, so that the upload route's bundle carries none of the issue write path.
 */

export type IssueSourceFormat = 'jira-csv' | 'github-json';
/** A file's text, whole or in chunks (a stream of a large file). */
export type Chunks = AsyncIterable<string> | Iterable<string>;
/** What reading a file found beside its records: columns (or fields) the import does not read, with their values. */
export interface FileStats {
  unknown: Map<string, number>;
  /** A Jira CSV's `Custom field (…)` columns: what each holds, for the fields they become. */
  custom?: CustomColumnStats | undefined;
  /** A Jira CSV's rank column (`Custom field (Rank)`), if it has one. */
  rankColumn?: string | undefined;
  /** Rows with a rank: their lists are ordered by it. */
  ranked?: number | undefined;
}

export const count = (map: Map<string, number>, key: string, by = 1) => map.set(key, (map.get(key) ?? 0) + by);

/** The name of the unknown column at each index of a header (undefined: a column the import reads). */
function unknownColumnsAt(columns: ReturnType<typeof jiraColumns>): (string | undefined)[] {
  const at: (string | undefined)[] = [];
  for (const u of columns.unknown) for (const i of u.indexes) at[i] = u.name;
  return at;
}

/** Counts a row's values in columns the import does not read, over the row's own fields (a short row costs its length, not the header's). */
function countUnknown(stats: FileStats, unknownAt: (string | undefined)[], fields: string[]) {
  for (let i = 0; i < fields.length; i++) {
    const name = unknownAt[i];
    if (name !== undefined && fields[i]!.trim()) count(stats.unknown, name);
  }
}

/** A file's chunks as one text, kept in pieces until then (joined once); past `max` characters, refused. */
async function wholeText(chunks: Chunks, max: number): Promise<string> {
  const pieces: string[] = [];
  let length = 0;
  for await (const chunk of chunks) {
    length += chunk.length;
    if (length > max) throw new ValidationError([`the file is longer than ${characters(max)}: split it (docs/limits.md)`]);
    pieces.push(chunk);
  }
  return pieces.join('');
}

/** The records of a Jira CSV export or a GitHub issues JSON file; a malformed row is reported, not thrown. */
export async function* sourceRecords(
  format: IssueSourceFormat,
  chunks: Chunks,
  stats: FileStats = { unknown: new Map() },
): AsyncGenerator<(SourceRecord & { id?: string | undefined }) | { row: number; error: string }> {
  if (format === 'jira-csv') {
    const reader = new CsvReader();
    let columns: ReturnType<typeof jiraColumns> | undefined;
    let unknownAt: (string | undefined)[] = [];
    let rows = 0;
    const take = function* (records: { fields: string[]; line: number }[]) {
      for (const r of records) {
        if (!columns) {
          columns = jiraColumns(r.fields);
          const missing = missingJiraColumns(columns);
          if (missing.length > 0) throw new ValidationError([`the CSV header has no ${missing.join(', ')} column`]);
          for (const u of columns.unknown) count(stats.unknown, u.name, 0);
          for (const c of columns.custom) stats.custom?.column(c.name);
          if (columns.rank.length > 0) stats.rankColumn = columns.header[columns.rank[0]!];
          unknownAt = unknownColumnsAt(columns);
          continue;
        }
        rows += 1;
        if (r.fields.every((f) => f.trim() === '')) continue;
        countUnknown(stats, unknownAt, r.fields);
        yield jiraRecord(r.fields, columns, r.line);
      }
    };
    try {
      for await (const chunk of chunks) yield* take(reader.push(chunk));
      yield* take(reader.end());
    } catch (err) {
      if (!(err instanceof CsvError)) throw err;
      throw new ValidationError([`the file is not valid CSV: row ${rows + 1} (line ${err.line}): ${err.message}`]);
    }
    if (!columns) throw new ValidationError(['the file is empty']);
    return;
  }
  const text = await wholeText(chunks, importBounds.jsonFileChars);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new ValidationError([`the file is not JSON (${(err as Error).message})`]);
  }
  if (!Array.isArray(parsed)) throw new ValidationError(['the file must be a JSON array of issues']);
  for (const [i, value] of parsed.entries()) {
    if (typeof value === 'object' && value !== null) {
      for (const [field, v] of Object.entries(value)) {
        if (!githubFields.has(field)) count(stats.unknown, field, v === null || v === '' ? 0 : 1);
      }
    }
    yield githubRecord(value, i + 1);
  }
}

/** Keys whose prefix is not the project's, at most this many named in the refusal. */
const NAMED_KEYS = 5;

/**
 * Checks a whole file before anything is written: every record reads (a CSV that is not CSV, a
 * JSON file that is not an array, a header without its columns are refused here), and, with
 * `keepNumbers`, every Jira key has the project's prefix. Returns the numbers the keys carry and
 * the columns the import does not read.
 */
export async function checkFile(
  format: IssueSourceFormat,
  chunks: Chunks,
  keepNumbers: { prefix: string } | undefined,
): Promise<{ stats: FileStats; numbers: [string, number][] }> {
  const stats: FileStats = { unknown: new Map(), custom: new CustomColumnStats(), ranked: 0 };
  const numbers: [string, number][] = [];
  const seen = new Set<string>();
  const strangers: string[] = [];
  let strangerCount = 0;
  for await (const r of sourceRecords(format, chunks, stats)) {
    if ('error' in r) continue;
    stats.custom?.add(r.customCells);
    if (r.rank) stats.ranked = (stats.ranked ?? 0) + 1;
    const key = r.key.trim();
    if (!key || seen.has(key) || !keepNumbers) continue;
    seen.add(key);
    const n = format === 'jira-csv' ? keyNumber(key) : undefined;
    if (format === 'jira-csv' && n?.prefix !== keepNumbers.prefix) {
      strangerCount += 1;
      if (strangers.length < NAMED_KEYS) strangers.push(key);
      continue;
    }
    const number = n?.number ?? r.number;
    if (number !== undefined) numbers.push([key, number]);
  }
  if (strangerCount > 0) {
    throw new ValidationError([
      `keep_numbers: ${strangerCount} key(s) do not have the project's prefix ${keepNumbers?.prefix} (${strangers.join(', ')}${strangerCount > strangers.length ? ', …' : ''})`,
    ]);
  }
  return { stats, numbers };
}

export const EXPORT_FORMAT = 'sprint-ticketing-export';
/** 2: the `end` line's digest; accounts' `created_at`; issues' `source_key` and `author_email`; sprints' `history`. */
export const EXPORT_VERSION = 2;

/**
 * The digest of the lines so far, given the digest before `line` (`''` before the first):
 * SHA-256 (hex) of that digest, the line and its line break. A chain, so that a page of the
 * export over REST carries it on in its cursor; the `end` line holds the last.
 */
export const chainDigest = (before: string, line: string) =>
  createHash('sha256').update(before).update(line).update('\n').digest('hex');

/** The kinds of line; `trash` and `trash_content` (an export that includes the trash) are checked and skipped: an import never brings a trashed item back. */
const kinds = new Set([
  'account',
  'project',
  'label',
  'sprint',
  'issue',
  'comment',
  'attachment',
  'github_link',
  'activity',
  'github_connection',
  'trash',
  'trash_content',
  'end',
]);

/** The longest line an export file may hold (docs/limits.md). */
const EXPORT_LINE_CHARS = importBounds.exportLineChars;

const lineTooLong = (n: number) =>
  new ValidationError([`line ${n} is longer than ${characters(EXPORT_LINE_CHARS)}: it is no line of an export file`]);

/**
 * The lines of a text given in chunks, each with its number (from 1). Each chunk is searched once;
 * only the unfinished line is carried to the next, in pieces joined when it ends, and a line
 * longer than `EXPORT_LINE_CHARS` is refused before it is held whole.
 */
export async function* linesOf(chunks: Chunks): AsyncGenerator<{ n: number; text: string }> {
  let pending: string[] = [];
  let pendingChars = 0;
  let n = 0;
  for await (const chunk of chunks) {
    let from = 0;
    let at: number;
    while ((at = chunk.indexOf('\n', from)) >= 0) {
      let line = chunk.slice(from, at);
      if (pending.length > 0) {
        line = pending.join('') + line;
        pending = [];
        pendingChars = 0;
      }
      if (line.length > EXPORT_LINE_CHARS) throw lineTooLong(n + 1);
      yield { n: ++n, text: line.endsWith('\r') ? line.slice(0, -1) : line };
      from = at + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.slice(from));
      pendingChars += chunk.length - from;
      if (pendingChars > EXPORT_LINE_CHARS) throw lineTooLong(n + 1);
    }
  }
  const rest = pending.join('');
  if (rest.trim()) yield { n: n + 1, text: rest };
}

/**
 * Reads the whole file before anything is written: a header of this format and version, every
 * line a JSON object of a known kind, and last the `end` line, whose counts and digest must be
 * those of the lines before it. Returns each project's issue numbers (by prefix), to keep them.
 */
export async function checkExportFile(chunks: Chunks): Promise<Map<string, [string, number][]>> {
  const numbers = new Map<string, [string, number][]>();
  const counts: Record<string, number> = {};
  let digest = '';
  let prefix: string | undefined;
  let end: Line | undefined;
  let last = 0;
  for await (const { n, text } of linesOf(chunks)) {
    last = n;
    if (end) throw new ValidationError([`line ${n} comes after the end line: the file was changed`]);
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      throw new ValidationError([`line ${n} is not JSON: the file was cut or changed`]);
    }
    if (typeof line !== 'object' || line === null || Array.isArray(line))
      throw new ValidationError([`line ${n} is not a JSON object`]);
    if (n === 1) {
      if (line.format !== EXPORT_FORMAT) throw new ValidationError([`the file is not a ${EXPORT_FORMAT} file`]);
      if (line.version !== EXPORT_VERSION)
        throw new ValidationError([
          `the file is of version ${String(line.version)}; this import reads version ${EXPORT_VERSION} (export the organisation again)`,
        ]);
      digest = chainDigest(digest, text);
      continue;
    }
    if (!kinds.has(String(line.kind))) throw new ValidationError([`line ${n}: unknown kind "${String(line.kind)}"`]);
    if (line.kind === 'end') {
      end = line;
      continue;
    }
    digest = chainDigest(digest, text);
    counts[String(line.kind)] = (counts[String(line.kind)] ?? 0) + 1;
    if (line.kind === 'project') prefix = String(line.prefix);
    if (line.kind === 'issue' && prefix !== undefined) {
      const number = keyNumber(String(line.issue_number));
      // Appended in place: a copy of the list per issue line made the check quadratic in the file.
      if (number) {
        const known = numbers.get(prefix);
        if (known) known.push([String(line.issue_number), number.number]);
        else numbers.set(prefix, [[String(line.issue_number), number.number]]);
      }
    }
  }
  if (last === 0) throw new ValidationError(['the file is empty']);
  if (!end) throw new ValidationError(['the file has no end line: it was cut short']);
  const declared = (end.counts ?? {}) as Record<string, unknown>;
  const differ = [...new Set([...Object.keys(declared), ...Object.keys(counts)])].filter((k) => declared[k] !== counts[k]);
  if (differ.length > 0) {
    throw new ValidationError([
      `the end line's counts are not the file's (${differ.map((k) => `${k}: ${String(declared[k] ?? 0)} said, ${counts[k] ?? 0} found`).join('; ')}): it was cut or changed`,
    ]);
  }
  if (end.digest !== digest) throw new ValidationError(["the file's digest is not its end line's: it was changed"]);
  return numbers;
}

/**
 * The checks an upload's import runs before its first write, run on the upload itself: a file
 * they refuse is answered 422 with their reasons, and no job is made. `keepNumbers`: the project's
 * prefix, which every Jira key must have.
 */
export async function checkUpload(
  format: IssueSourceFormat | 'export',
  text: string,
  keepNumbers: { prefix: string } | undefined,
): Promise<void> {
  if (format === 'export') await checkExportFile([text]);
  else await checkFile(format, [text], keepNumbers);
}

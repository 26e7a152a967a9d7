import { isWalkKey } from '../../db/organisation/organisation-walk.ts';
import type { Principal } from '../../model/principal.ts';
import { ForbiddenError, ValidationError } from '../../vocabulary/errors.ts';
import { DONE, exportPositionSnapshot, exportStart, walkExport, type ExportPosition } from './export.ts';
import { openCursor, sealCursor } from '../../db/core/cursors.ts';

/**
 * `GET /api/v1/export`, one page at a time (docs/import-export.md: Export over REST): the export
 * does not fit one Lambda response (6 MB), so each page is a run of its lines and an opaque cursor
 * to the next. The lines come from THE export walk (lib/services/import-export/export.ts), so the pages concatenated
 * are the file `npm run admin -- export` writes. A page ends after `EXPORT_PAGE_BYTES` (one line
 * more at most: an item is at most 400 KB), after `per_page` lines, or before a DynamoDB call past
 * `EXPORT_PAGE_CALLS`, whichever comes first, and always after at least one line.
 */
export const EXPORT_PAGE_BYTES = 2 * 1024 * 1024;
export const EXPORT_PAGE_CALLS = 40;

const invalid = () => new ValidationError(['cursor is not valid for this export']);

const isInt = (v: unknown, max: number) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max;

export function encodeExportCursor(orgId: number, position: ExportPosition): string {
  return sealCursor({ o: orgId, p: position });
}

/** The position a cursor names, for this organisation, or 422. */
export function decodeExportCursor(cursor: string, orgId: number): ExportPosition {
  const body = openCursor(cursor) as { o?: unknown; p?: Partial<ExportPosition> } | undefined;
  const p = body?.p;
  if (
    body?.o !== orgId ||
    typeof p !== 'object' ||
    p === null ||
    !isInt(p.stage, 3) ||
    typeof p.counts !== 'object' ||
    p.counts === null ||
    !Object.values(p.counts).every((n) => isInt(n, Number.MAX_SAFE_INTEGER)) ||
    (p.after !== undefined && !isWalkKey(p.after)) ||
    (p.before !== undefined && p.before !== null && !isWalkKey(p.before)) ||
    (p.step !== undefined && !isInt(p.step, DONE)) ||
    (p.list !== undefined && p.list !== null && !isInt(p.list, Number.MAX_SAFE_INTEGER)) ||
    (p.place !== undefined && !isInt(p.place, Number.MAX_SAFE_INTEGER)) ||
    (p.digest !== undefined && !(typeof p.digest === 'string' && /^[0-9a-f]{64}$/.test(p.digest))) ||
    (p.trash !== undefined && p.trash !== true)
  )
    throw invalid();
  return p as ExportPosition;
}

export interface ExportPage {
  /** The page's lines, each ended by a line break. */
  text: string;
  /** The cursor of the next page; undefined after the `end` line. */
  next: string | undefined;
}

export async function exportPage(
  caller: Principal,
  query: { cursor?: string | undefined; per_page?: string | undefined; include_trash?: 'true' | 'false' | undefined },
  bounds: { bytes: number; calls: number } = { bytes: EXPORT_PAGE_BYTES, calls: EXPORT_PAGE_CALLS },
): Promise<ExportPage> {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may export');
  const includeTrash = query.include_trash === 'true';
  const position = query.cursor === undefined ? exportStart(includeTrash) : decodeExportCursor(query.cursor, caller.orgId);
  // The cursor carries whether the export includes the trash: a later page may repeat it, not change it.
  if (query.cursor !== undefined && query.include_trash !== undefined && includeTrash !== (position.trash === true))
    throw new ValidationError(['include_trash must be what the first page of this export said (its cursor carries it)']);
  const maxLines = query.per_page === undefined ? Infinity : Number(query.per_page);
  const chunks: string[] = [];
  let bytes = 0;
  let calls = 0;
  let stopped = false;
  const walk = walkExport(caller.orgId, position, {
    // At least one line per page, whatever it takes: a page always moves the export on.
    mayRead: () => (chunks.length === 0 || calls < bounds.calls) && ++calls > 0,
  });
  let after = exportPositionSnapshot(position);
  for await (const line of walk) {
    chunks.push(`${line}\n`);
    bytes += Buffer.byteLength(line, 'utf8') + 1;
    after = exportPositionSnapshot(position);
    if (bytes >= bounds.bytes || chunks.length >= maxLines) {
      stopped = true;
      break;
    }
  }
  if (!stopped) after = exportPositionSnapshot(position);
  return { text: chunks.join(''), next: after.stage === 4 ? undefined : encodeExportCursor(caller.orgId, after) };
}

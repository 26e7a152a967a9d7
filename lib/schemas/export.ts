import * as z from 'zod/mini';
import { meta } from './zod.ts';

/** At most this many lines in one page of `GET /export` (`per_page`; the byte bound applies too). */
export const EXPORT_MAX_LINES = 5000;

export const ExportQuery = z.object({
  cursor: meta(z.optional(z.string().check(z.maxLength(4096, { error: 'is not valid for this export' }))), {
    description: 'Where the export goes on: the `cursor` of the previous page\'s `Link: rel="next"`. Absent: the first page.',
  }),
  per_page: meta(
    z.optional(
      z
        .string()
        .check(z.regex(/^[1-9]\d{0,5}$/, { error: `must be between 1 and ${EXPORT_MAX_LINES}` }))
        .check(z.refine((v) => Number(v) <= EXPORT_MAX_LINES, { error: `must be between 1 and ${EXPORT_MAX_LINES}` })),
    ),
    {
      description: `At most this many lines in the page (default and most: ${EXPORT_MAX_LINES}); a page also ends after 2 MiB.`,
    },
  ),
  include_trash: meta(z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })), {
    description:
      "`true`: the export also carries the organisation's trash (before the `end` line, a `trash` line per trashed item, and a `trash_content` line per thing a trashed project, sprint or issue holds; docs/import-export.md), which an import skips. " +
      'Said on the first page: its cursor carries it on.',
  }),
});
export type ExportQuery = z.output<typeof ExportQuery>;

/** A page of the export file: JSON Lines (docs/import-export.md). */
export const ExportLines = meta(z.string(), {
  id: 'ExportLines',
  description:
    'JSON Lines: the header line on the first page, then records, the `end` line on the last page. The pages, concatenated, are the export file.',
});

/**
 * The endpoint tables of docs/api-endpoints.md, generated from the route table by `npm run openapi`
 * (between its `endpoints` markers): one table per tag of operations, every row's method, path,
 * what it does, and how it pages. A test fails while the tables in the docs differ from them
 * (test/unit/docs-endpoints.test.ts). The page keeps Prettier off them: one line a row, no padding.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type * as z from 'zod/mini';
import { routes as allRoutes, type Route } from '../../lib/routes.ts';

export const apiDoc = new URL('../../docs/api-endpoints.md', import.meta.url);
export const markers = { start: '<!-- endpoints:start (npm run openapi writes these tables) -->', end: '<!-- endpoints:end -->' };

/** How a row's answer pages: a paged list, a whole array in one answer, or nothing to page. */
export function pagingOf(route: Route): string {
  const { success } = route.operation;
  if (success.list) return '`page`, `per_page` (1–100, default 25), `cursor`';
  const type = (success.schema as z.ZodMiniType | undefined)?.def?.type;
  if (type === 'array') return 'not paged: one answer (`page`, `per_page` are 422)';
  return '';
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The tables' Markdown: a heading per tag of operations (in the route table's order), then its rows. */
export async function endpointsTable(routes: readonly Route[] = allRoutes): Promise<string> {
  const tags = [...new Set(routes.map((r) => r.operation.tag))];
  return tags
    .map((tag) => {
      const rows = routes
        .filter((r) => r.operation.tag === tag)
        .map(
          (r) =>
            `| ${r.method} | \`${r.path}\` | ${cell(r.operation.summary)} | ${r.operation.success.status} | ${r.auth ? 'token' : 'none'} | ${pagingOf(r)} |`,
        );
      return [
        `## ${tag}`,
        '',
        '| Method | Path | What it does | Answers | Auth | Paging |',
        '| --- | --- | --- | --- | --- | --- |',
        ...rows,
      ].join('\n');
    })
    .join('\n\n');
}

/** docs/api-endpoints.md with its endpoint tables replaced by `table`. */
export function withTable(markdown: string, table: string): string {
  const start = markdown.indexOf(markers.start);
  const end = markdown.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`docs/api-endpoints.md has no ${markers.start} ... ${markers.end}`);
  return `${markdown.slice(0, start + markers.start.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}

/** Rewrites the tables in docs/api-endpoints.md. */
export async function writeEndpointsTable(): Promise<void> {
  writeFileSync(apiDoc, withTable(readFileSync(apiDoc, 'utf8'), await endpointsTable()));
}

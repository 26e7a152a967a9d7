/**
 * The complete endpoint table of docs/api.md, generated from the route table by `npm run openapi`
 * (between its `endpoints` markers): every row's method, path, what it does, and how it pages. A
 * test fails while the table in the docs differs from it (test/unit/docs-endpoints.test.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as prettier from 'prettier';
import type * as z from 'zod/mini';
import { routes as allRoutes, type Route } from '../../lib/routes.ts';

export const apiDoc = new URL('../../docs/api.md', import.meta.url);
export const markers = { start: '<!-- endpoints:start (npm run openapi writes this table) -->', end: '<!-- endpoints:end -->' };

/** How a row's answer pages: a paged list, a whole array in one answer, or nothing to page. */
export function pagingOf(route: Route): string {
  const { success } = route.operation;
  if (success.list) return '`page`, `per_page` (1–100, default 25), `cursor`';
  const type = (success.schema as z.ZodMiniType | undefined)?.def?.type;
  if (type === 'array') return 'not paged: one answer (`page`, `per_page` are 422)';
  return '';
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The table's Markdown (formatted as the repository's Prettier writes it). */
export async function endpointsTable(routes: readonly Route[] = allRoutes): Promise<string> {
  const rows = routes.map(
    (r) =>
      `| ${r.method} | \`${r.path}\` | ${cell(r.operation.summary)} | ${r.operation.success.status} | ${r.auth ? 'token' : 'none'} | ${pagingOf(r)} |`,
  );
  const table = [
    '| Method | Path | What it does | Answers | Auth | Paging |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
  const options = (await prettier.resolveConfig(apiDoc.pathname)) ?? {};
  return (await prettier.format(table, { ...options, parser: 'markdown' })).trimEnd();
}

/** docs/api.md with its endpoint table replaced by `table`. */
export function withTable(markdown: string, table: string): string {
  const start = markdown.indexOf(markers.start);
  const end = markdown.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`docs/api.md has no ${markers.start} ... ${markers.end}`);
  return `${markdown.slice(0, start + markers.start.length)}\n\n${table}\n\n${markdown.slice(end)}`;
}

/** Rewrites the table in docs/api.md. */
export async function writeEndpointsTable(): Promise<void> {
  writeFileSync(apiDoc, withTable(readFileSync(apiDoc, 'utf8'), await endpointsTable()));
}

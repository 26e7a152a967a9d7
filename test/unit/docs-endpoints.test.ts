import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.ts';
import { apiDoc, endpointsTable, markers, pagingOf } from '../../tools/openapi/endpoints.ts';

/** docs/api-endpoints.md lists every endpoint of the route table, as `npm run openapi` writes its tables. */
describe('the endpoint tables of docs/api-endpoints.md', () => {
  const markdown = readFileSync(apiDoc, 'utf8');
  const tables = markdown.slice(markdown.indexOf(markers.start) + markers.start.length, markdown.indexOf(markers.end)).trim();
  /** The rows of every table: neither a header nor a separator. */
  const rows = tables
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Method ') && !line.startsWith('| ---'));

  it('are the ones generated from the route table (npm run openapi)', async () => {
    expect(tables, 'docs/api-endpoints.md: run npm run openapi').toBe(await endpointsTable());
  });

  it('have a row for every route, webhooks, activity and sprint outcomes included', () => {
    expect(rows).toHaveLength(routes.length);
    for (const route of routes) {
      expect(
        rows.some((row) => row.startsWith(`| ${route.method} `) && row.includes(`\`${route.path}\``)),
        `${route.method} ${route.path}`,
      ).toBe(true);
    }
    for (const path of ['/api/v1/webhooks', '/activity', '/report', '/velocity', '/burndown']) {
      expect(
        rows.some((row) => row.includes(path)),
        path,
      ).toBe(true);
    }
  });

  it('group the rows by tag of operations, each row under its own', () => {
    const sections = tables.split(/^## /m).slice(1);
    expect(sections.map((s) => s.split('\n')[0])).toEqual([...new Set(routes.map((r) => r.operation.tag))]);
    for (const route of routes) {
      const section = sections.find((s) => s.startsWith(`${route.operation.tag}\n`))!;
      expect(section, `${route.method} ${route.path}`).toContain(`| ${route.method} | \`${route.path}\` |`);
    }
  });

  it('state how each collection pages, deliveries and relations as answered whole', () => {
    const paging = (method: string, path: string) => pagingOf(routes.find((r) => r.method === method && r.path === path)!);
    expect(paging('GET', '/api/v1/projects')).toMatch(/^`page`, `per_page`/);
    expect(paging('GET', '/api/v1/webhooks/{webhook_id}/deliveries')).toMatch(/^not paged/);
    expect(paging('GET', '/api/v1/issues/{issue_key}/relations')).toMatch(/^not paged/);
    expect(paging('GET', '/api/v1/projects/{project_id}')).toBe('');
  });
});

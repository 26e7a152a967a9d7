import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routes } from '../../lib/routes.ts';
import { apiDoc, endpointsTable, markers, pagingOf } from '../../tools/openapi/endpoints.ts';

/** docs/api.md lists every endpoint of the route table, as `npm run openapi` writes the table. */
describe('the endpoint table of docs/api.md', () => {
  const markdown = readFileSync(apiDoc, 'utf8');
  const table = markdown.slice(markdown.indexOf(markers.start) + markers.start.length, markdown.indexOf(markers.end)).trim();

  it('is the one generated from the route table (npm run openapi)', async () => {
    expect(table, 'docs/api.md: run npm run openapi').toBe(await endpointsTable());
  });

  it('has a row for every route, webhooks, activity and sprint outcomes included', () => {
    const rows = table.split('\n').slice(2);
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

  it('states how each collection pages, deliveries and relations as answered whole', () => {
    const paging = (method: string, path: string) => pagingOf(routes.find((r) => r.method === method && r.path === path)!);
    expect(paging('GET', '/api/v1/projects')).toMatch(/^`page`, `per_page`/);
    expect(paging('GET', '/api/v1/webhooks/{webhook_id}/deliveries')).toMatch(/^not paged/);
    expect(paging('GET', '/api/v1/issues/{issue_key}/relations')).toMatch(/^not paged/);
    expect(paging('GET', '/api/v1/projects/{project_id}')).toBe('');
  });
});

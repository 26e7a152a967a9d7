import { describe, expect, it } from 'vitest';
import { allowedMethods, allowTable, pathPattern } from '../../lib/http/method-not-allowed.ts';
import { routes } from '../../lib/routes.ts';

/** The first row of the stack's table whose pattern matches, as its mapping template decides. */
const table = allowTable(routes).map((row) => ({ regex: new RegExp(row.pattern), allow: row.allow }));
const decided = (path: string) => table.find((row) => row.regex.test(path))?.allow ?? '';

/** Concrete paths of a template: each parameter filled with an id, and with every literal of the table. */
function samples(template: string): string[] {
  const literals = [...new Set(routes.flatMap((r) => r.path.split('/')).filter((s) => s && !s.startsWith('{')))];
  const filled = template.replace(/\{\w+\}/g, '7');
  const slots = template.split('/').flatMap((s, i) => (s.startsWith('{') ? [i] : []));
  return [
    filled,
    ...slots.flatMap((i) =>
      literals.map((literal) =>
        filled
          .split('/')
          .map((s, j) => (j === i ? literal : s))
          .join('/'),
      ),
    ),
  ];
}

describe('405 with Allow', () => {
  it('lists the methods of every route matching the path, in a fixed order', () => {
    expect(allowedMethods(routes, '/api/v1/me/issues')).toEqual(['GET']);
    expect(allowedMethods(routes, '/api/v1/projects/5')).toEqual(['GET', 'PUT', 'PATCH', 'DELETE']);
    // A literal path also answers what its parameter sibling answers (API Gateway falls back to it).
    const byKey = allowedMethods(routes, '/api/v1/issues/APL-1');
    expect(allowedMethods(routes, '/api/v1/issues/search')).toEqual(['GET', 'POST', ...byKey.filter((m) => m !== 'GET')]);
    expect(allowedMethods(routes, '/api/v1/nowhere')).toEqual([]);
    expect(allowedMethods(routes, '/api/v1/projects/5/')).toEqual([]);
  });

  it('matches a parameter to one segment and literal segments literally', () => {
    expect(new RegExp(pathPattern('/a/{id}/b')).test('/a/1/b')).toBe(true);
    expect(new RegExp(pathPattern('/a/{id}/b')).test('/a/1/2/b')).toBe(false);
    expect(new RegExp(pathPattern('/docs/swagger.json')).test('/docs/swaggerxjson')).toBe(false);
    expect(new RegExp(pathPattern('/docs/{rest+}')).test('/docs/a/b')).toBe(true);
  });

  it("gives the stack's first-match table the same answer as the gateway's, on every path of the route table", () => {
    const paths = [...new Set(routes.map((r) => r.path))].flatMap(samples);
    expect(paths.length).toBeGreaterThan(500);
    for (const path of [...paths, '/', '/api/v1', '/api/v1/projects/7/nothing']) {
      expect(decided(path), path).toBe(allowedMethods(routes, path).join(', '));
    }
  });
});

import { describe, expect, it } from 'vitest';
import { compileRoute, matchRoute } from '../../tools/local/gateway.ts';
import { routes, type HttpMethod, type Route } from '../../lib/routes.ts';

const route = (method: HttpMethod, path: string): Route => ({
  method,
  path,
  handler: `${method} ${path}`,
  auth: true,
  access: 'read',
  operation: { id: path, summary: '', tag: '', success: { status: 200, description: '' }, errors: [] },
});

const table = (...rs: Route[]) => rs.map(compileRoute);
const handlerFor = (rs: Route[], method: string, path: string) => matchRoute(table(...rs), method, path)?.route.handler;

describe('gateway route matching', () => {
  it('fills path parameters from the template', () => {
    const hit = matchRoute(table(route('GET', '/p/{project_id}/s/{id}')), 'GET', '/p/12/s/7');
    expect(hit?.params).toEqual({ project_id: '12', id: '7' });
  });

  it('prefers a literal segment over a parameter, whatever the order of the table', () => {
    const literal = route('GET', '/p/mine');
    const param = route('GET', '/p/{id}');
    expect(handlerFor([param, literal], 'GET', '/p/mine')).toBe('GET /p/mine');
    expect(handlerFor([literal, param], 'GET', '/p/mine')).toBe('GET /p/mine');
    expect(handlerFor([literal, param], 'GET', '/p/7')).toBe('GET /p/{id}');
  });

  it('decides at the first segment where two routes differ', () => {
    const early = route('GET', '/x/b/{d}');
    const late = route('GET', '/x/{a}/c');
    expect(handlerFor([late, early], 'GET', '/x/b/c')).toBe('GET /x/b/{d}');
    expect(handlerFor([early, late], 'GET', '/x/b/c')).toBe('GET /x/b/{d}');
    expect(handlerFor([early, late], 'GET', '/x/z/c')).toBe('GET /x/{a}/c');
  });

  it('lets a greedy parameter match several segments, but only when nothing more specific does', () => {
    const greedy = route('GET', '/docs/{proxy+}');
    const exact = route('GET', '/docs/{name}');
    expect(matchRoute(table(greedy), 'GET', '/docs/a/b/c')?.params).toEqual({ proxy: 'a/b/c' });
    expect(handlerFor([greedy, exact], 'GET', '/docs/a')).toBe('GET /docs/{name}');
  });

  it('does not match another method, a longer or shorter path, or a trailing slash', () => {
    const rs = [route('GET', '/p/{id}')];
    expect(handlerFor(rs, 'POST', '/p/1')).toBeUndefined();
    expect(handlerFor(rs, 'GET', '/p/1/x')).toBeUndefined();
    expect(handlerFor(rs, 'GET', '/p')).toBeUndefined();
    expect(handlerFor(rs, 'GET', '/p/')).toBeUndefined();
    expect(handlerFor(rs, 'GET', '/q/1')).toBeUndefined();
  });

  it('treats regex characters in literal segments literally', () => {
    const rs = [route('GET', '/api-docs/v1/swagger.yaml')];
    expect(handlerFor(rs, 'GET', '/api-docs/v1/swagger.yaml')).toBeDefined();
    expect(handlerFor(rs, 'GET', '/api-docs/v1/swaggerxyaml')).toBeUndefined();
  });

  it('percent-decodes parameters, and passes a malformed escape through instead of failing', () => {
    const rs = [route('GET', '/p/{id}')];
    expect(matchRoute(table(...rs), 'GET', '/p/a%20b')?.params).toEqual({ id: 'a b' });
    expect(matchRoute(table(...rs), 'GET', '/p/%E0%A4%A')?.params).toEqual({ id: '%E0%A4%A' });
  });

  it('routes every row of the real route table to itself', () => {
    const compiled = routes.map(compileRoute);
    for (const r of routes) {
      const path = r.path.replace(/\{\w+\+?\}/g, '123');
      expect(matchRoute(compiled, r.method, path)?.route, `${r.method} ${r.path}`).toBe(r);
    }
  });
});

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../lib/local/gateway.ts';
import { routes } from '../../lib/routes.ts';

describe('the route table', () => {
  it('names each path variable once per level, as API Gateway requires of sibling resources', () => {
    // API Gateway refuses `/projects/{id}` beside `/projects/{project_id}/sprints`: one resource
    // tree, one variable name per parent. The local gateway would not notice; a deploy would fail.
    const variableAt = new Map<string, string>();
    const clashes: string[] = [];
    for (const route of routes) {
      const segments = route.path.split('/').filter(Boolean);
      segments.forEach((segment, i) => {
        if (!segment.startsWith('{')) return;
        const parent = `/${segments.slice(0, i).join('/')}`;
        const seen = variableAt.get(parent);
        if (seen === undefined) variableAt.set(parent, segment);
        else if (seen !== segment) clashes.push(`${parent}: ${seen} vs ${segment} (${route.method} ${route.path})`);
      });
    }
    expect(clashes).toEqual([]);
  });

  it('has one row per method and path, and a distinct operationId per row', () => {
    const keys = routes.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = routes.map((r) => r.operation.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives Idempotency-Key (apiHandler) exactly to the rows that declare it', () => {
    // The OpenAPI document promises the header where a row says `idempotent`; the handler decides
    // whether it is honoured. Every other handler takes routeHandler and leaves the code out.
    const wrong = routes
      .filter((r) => r.auth)
      .filter((r) => {
        const source = readFileSync(resolve(repoRoot, r.handler), 'utf8');
        const usesApiHandler = /\bapiHandler\(/.test(source);
        return usesApiHandler !== (r.operation.idempotent === true);
      })
      .map((r) => `${r.method} ${r.path} (${r.handler})`);
    expect(wrong).toEqual([]);
  });
});

import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { routes, type Route } from '../../lib/routes.ts';
import { BulkCreateItem, BulkUpdateItem } from '../../lib/schemas/bulk.ts';
import { Issue } from '../../lib/schemas/issues.ts';
import { nearestKey, unknownKeysMessage } from '../../lib/schemas/validate.ts';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/**
 * Stripe's rule for request bodies (docs/api.md: Requests), over the whole route table: every
 * object of every JSON body refuses a key it does not know, naming it and the key it most likely
 * meant; a wrapped resource body accepts, and drops, exactly the fields of the route's answer it
 * does not take. test/e2e/strict-body.test.ts holds the same over HTTP, writes included.
 */

type Schema = z.ZodMiniType;
const def = (s: Schema) => (s as unknown as { _zod: { def: Record<string, any> } })._zod.def;

/** The object under optional, nullable, default, pipe (its input) and lazy wrappers; undefined for a non-object. */
function objectOf(s: Schema): z.ZodMiniObject | undefined {
  let at: Schema | undefined = s;
  for (let i = 0; at && i < 10; i++) {
    const d = def(at);
    if (d.type === 'object') return at as z.ZodMiniObject;
    at = d.type === 'pipe' ? d.in : d.type === 'lazy' ? d.getter() : d.innerType;
  }
  return undefined;
}

const isReadOnly = (s: Schema) => z.globalRegistry.get(s)?.readOnly === true;

/** Routes with a JSON body that are not under this rule, and why (each tested where it is said). */
const exempt: Record<string, string> = {
  'POST /mcp': 'a JSON-RPC message: tool arguments are closed by the MCP tools (test/e2e/mcp.test.ts)',
  'POST /api/v1/imports': 'the body is the file itself (CSV or JSON issues), read by the importer',
  'POST /oauth/register': 'RFC 7591: unknown client metadata is ignored',
  'POST /oauth/authorize': 'an HTML form of the authorization server (OAuth forms ignore unknown parameters)',
  'POST /oauth/token': 'a form (RFC 6749 §3.2: unknown parameters are ignored)',
  'POST /oauth/revoke': 'a form (RFC 7009)',
  'POST /api/v1/integrations/github':
    "GitHub's own payload: signed whole, read for what the receiver needs (test/e2e/github.test.ts)",
};
const label = (r: Route) => `${r.method} ${r.path}`;
const bodied = routes.filter((r) => r.operation.body && !(label(r) in exempt));

/** The messages a body gets. */
function errorsOf(schema: Schema, input: unknown, dropWrapper: boolean): string[] {
  try {
    parseOrThrow(schema, input, dropWrapper);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).errors;
  }
  return [];
}

/** The wrapper of a resource body (`{"sprint": {...}}`): its one key, whose object holds a resource's fields and read-only ones. */
function wrapperOf(r: Route): string | undefined {
  const top = objectOf(r.operation.body!)!;
  const keys = Object.keys(top.shape);
  const inner = keys.length === 1 ? objectOf(top.shape[keys[0]!] as Schema) : undefined;
  return inner && Object.values(inner.shape).some((s) => isReadOnly(s as Schema)) ? keys[0] : undefined;
}

/** The key to misspell: one in snake_case if there is one, else the longest (a short key is suggested only when nearer still). */
const toMisspell = (keys: string[]) => keys.find((k) => k.includes('_')) ?? [...keys].sort((a, b) => b.length - a.length)[0]!;

/** The fields of the route's answer: the resource it answers (an account answered with its token: the account). */
function answerKeys(r: Route, wrapper: string): string[] {
  const answer = objectOf(r.operation.success.schema!)!;
  const own = answer.shape[wrapper] ? objectOf(answer.shape[wrapper] as Schema)! : answer;
  return Object.keys(own.shape);
}

/** A key near `key` as a client might misspell it: camelCase of a snake_case key, else two letters swapped. */
const misspelt = (key: string) =>
  key.includes('_')
    ? key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())
    : `${key.slice(0, -2)}${key.at(-1)}${key.at(-2)}`;

describe('the unknown key message', () => {
  it('names the key, the known key it most likely meant, and the known keys', () => {
    expect(unknownKeysMessage('sprint', ['startDate'], ['name', 'start_date'])).toBe(
      "sprint has an unknown key 'startDate': did you mean 'start_date'? (known: name, start_date)",
    );
    expect(unknownKeysMessage(undefined, ['extra'], ['sprint'])).toBe("has an unknown key 'extra' (known: sprint)");
    expect(unknownKeysMessage('body', ['a', 'nmae'], ['name'])).toBe(
      "body has unknown keys 'a', 'nmae' (did you mean 'name'?) (known: name)",
    );
    expect(unknownKeysMessage('create_issue', ['x'], [], 'argument')).toBe(
      "create_issue has an unknown argument 'x' (known: none)",
    );
  });

  it.each([
    ['startDate', 'start_date'],
    ['StartDate', 'start_date'],
    ['start-date', 'start_date'],
    ['TITLE', 'title'],
    ['titel', 'title'],
    ['descripton', 'description'],
    ['sprint', 'sprint_id'],
    ['assignee', 'assignee_id'],
    ['points', 'story_points'],
    ['storyPoint', 'story_points'],
    ['colour', 'color'],
    ['end_dat', 'end_date'],
  ])('%s: did you mean %s?', (key, meant) => {
    const known = ['title', 'description', 'start_date', 'end_date', 'sprint_id', 'assignee_id', 'story_points', 'color'];
    expect(nearestKey(key, known)).toBe(meant);
  });

  it('suggests nothing when no key is near (a short key must be nearer still)', () => {
    const known = ['title', 'id', 'name', 'status'];
    for (const key of ['xyz', 'ix', 'foo', 'state_of_the_art', 'nm']) expect(nearestKey(key, known), key).toBeUndefined();
  });
});

describe('every JSON body of the route table', () => {
  it('is under the rule, but for the routes exempt and why', () => {
    expect(bodied.length).toBeGreaterThanOrEqual(29);
    const withBody = routes.filter((r) => r.operation.body).map(label);
    expect(withBody.filter((name) => name in exempt).sort()).toEqual(Object.keys(exempt).sort());
    // Every other body is JSON.
    for (const r of bodied) expect(r.operation.bodyMediaType, label(r)).toBeUndefined();
  });

  it.each(bodied.map((r) => [label(r), r] as const))('%s refuses an unknown key at the top, naming it', (_name, r) => {
    const top = objectOf(r.operation.body!)!;
    const known = Object.keys(top.shape);
    const wrapped = wrapperOf(r) !== undefined;
    const errors = errorsOf(r.operation.body!, { bogus_key: 1 }, wrapped);
    expect(errors).toContain(`body has an unknown key 'bogus_key' (known: ${known.join(', ')})`);
    // Misspelt, a top-level key is named with the one it meant.
    const key = toMisspell(known);
    expect(errorsOf(r.operation.body!, { [misspelt(key)]: {} }, wrapped).join('\n')).toContain(`did you mean '${key}'?`);
  });

  const resources = bodied.filter((r) => wrapperOf(r) !== undefined);

  it('has a resource body on every create and update of a resource', () => {
    expect(resources.map(label)).toEqual(
      expect.arrayContaining([
        'POST /api/v1/projects',
        'PATCH /api/v1/projects/{project_id}',
        'PUT /api/v1/projects/{project_id}',
        'POST /api/v1/projects/{project_id}/sprints',
        'POST /api/v1/projects/{project_id}/issues',
        'POST /api/v1/webhooks',
        'POST /api/v1/accounts',
        'POST /api/v1/issues/{issue_key}/relations',
      ]),
    );
  });

  it.each(resources.map((r) => [label(r), r] as const))(
    '%s: refuses a misspelt field naming the one meant, and accepts and drops the answer’s other fields',
    (_name, r) => {
      const wrapper = wrapperOf(r)!;
      const inner = objectOf(objectOf(r.operation.body!)!.shape[wrapper] as Schema)!;
      const entries = Object.entries(inner.shape) as [string, Schema][];
      const writable = entries.filter(([, s]) => !isReadOnly(s)).map(([k]) => k);
      const readOnly = entries.filter(([, s]) => isReadOnly(s)).map(([k]) => k);
      // Exactly the answer's fields the body does not take are accepted and ignored.
      expect(readOnly.sort()).toEqual(
        answerKeys(r, wrapper)
          .filter((k) => !writable.includes(k))
          .sort(),
      );
      expect(readOnly).toContain('created_at');

      const field = toMisspell(writable);
      const typo = misspelt(field);
      expect(errorsOf(r.operation.body!, { [wrapper]: { [typo]: 1 } }, true)).toContain(
        `${wrapper} has an unknown key '${typo}': did you mean '${field}'? (known: ${writable.join(', ')})`,
      );
      const sentBack = errorsOf(r.operation.body!, { [wrapper]: Object.fromEntries(readOnly.map((k) => [k, 'anything'])) }, true);
      expect(sentBack.filter((m) => m.includes('unknown'))).toEqual([]);
    },
  );

  it.each(bodied.map((r) => [label(r), r] as const))('%s refuses an unknown key in every object it holds', (_name, r) => {
    const top = objectOf(r.operation.body!)!;
    const wrapper = wrapperOf(r);
    const holders: [string[], z.ZodMiniObject][] = [];
    const walk = (o: z.ZodMiniObject, path: string[]) => {
      for (const [key, s] of Object.entries(o.shape) as [string, Schema][]) {
        const nested = objectOf(s);
        if (nested && !isReadOnly(s)) {
          holders.push([[...path, key], nested]);
          if (path.length < 2) walk(nested, [...path, key]);
        }
      }
    };
    walk(top, []);
    for (const [path, holder] of holders) {
      const known = Object.keys(holder.shape);
      const input = path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), { bogus_key: 1 });
      const shown = wrapper !== undefined && path[0] === wrapper ? path.slice(1) : path;
      const where = shown.length > 0 ? shown.join('.') : path[0]!;
      const errors = errorsOf(r.operation.body!, input, wrapper !== undefined);
      expect(
        errors.some((m) => m.startsWith(`${where} has an unknown `) && m.includes("'bogus_key'") && m.includes(known[0]!)),
        `${path.join('.')}: ${errors.join(' | ')}`,
      ).toBe(true);
    }
  });

  it('a sprint completion’s carry_over names its target: the misspelt one refused, none at all refused', () => {
    const complete = routes.find((r) => r.path.endsWith('/complete'))!.operation.body!;
    expect(errorsOf(complete, { carry_over: { sprint: 3 } }, false)).toEqual([
      'carry_over.sprint_id is required',
      "carry_over has an unknown key 'sprint': did you mean 'sprint_id'? (known: sprint_id)",
    ]);
    expect(errorsOf(complete, { carry_over: {} }, false)).toEqual(['carry_over.sprint_id is required']);
    expect(parseOrThrow(complete, { carry_over: { sprint_id: null } }, false)).toEqual({ carry_over: { sprint_id: null } });
    expect(parseOrThrow(complete, {}, false)).toEqual({});
  });
});

describe('a bulk write’s items', () => {
  it('are closed like the single bodies: an unknown key is that item’s 422, the answer’s fields are accepted and dropped', () => {
    const issue = Object.fromEntries(Object.keys(Issue.shape).map((k) => [k, null]));
    const answered = { ...issue, title: 'Kept', labels: [{ id: 3, name: 'bug', color: '#d73a4a' }], status: 'todo' };
    expect(
      parseOrThrow(BulkCreateItem, {
        issue: { ...answered, priority: 'none', type: 'task', assignee_id: null, position: undefined },
      }),
    ).toMatchObject({ issue: { title: 'Kept', labels: [3] } });
    expect(errorsOf(BulkCreateItem, { issue: { title: 'x', storyPoints: 3 }, extra: 1 }, true)).toEqual([
      "issue has an unknown key 'storyPoints': did you mean 'story_points'? (known: title, description, status, state_id, story_points, assignee_id, priority, type, due_date, parent_id, labels, custom_fields, position)",
      "body has an unknown key 'extra' (known: issue)",
    ]);
    expect(errorsOf(BulkUpdateItem, { id: 1, versoin: 2, issue: {} }, true)).toEqual([
      "body has an unknown key 'versoin': did you mean 'version'? (known: issue, id, version)",
    ]);
  });
});

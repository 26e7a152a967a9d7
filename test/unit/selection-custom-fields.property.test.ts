import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../support/fast-check.ts';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import {
  parseSelection,
  printSelection,
  selectionMatcher,
  validateSelection,
  type Condition,
  type FieldCondition,
  type SelectableIssue,
  type Selection,
  type SelectionContext,
} from '../../lib/model/selection.ts';
import type { FieldType } from '../../lib/vocabulary/custom-fields.ts';

/**
 * `cf.<key>:` over generated input (docs/search.md#custom-fields):
 * (a) every valid selection with custom field conditions prints as a query that parses back to it;
 * (b) the evaluator agrees with a brute-force reference written here from the documented meaning,
 *     over issues of three projects whose fields of one key have different types (every type), and
 *     a key no project has.
 * Then the grammar's own cases: what a query reads as, and the 422s.
 */

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const DAY = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

type Value = string | number | boolean | string[] | null;
type Fields = Record<string, { type: FieldType; value: Value }>;

/** Each project's fields: the same key means another type in another project; XYZ has none. */
const projects: Record<string, Record<string, FieldType>> = {
  AB: {
    severity: 'select',
    tags: 'multi_select',
    customer: 'text',
    estimate: 'number',
    release: 'date',
    owner: 'account',
    site: 'url',
    flag: 'checkbox',
  },
  CD: { severity: 'text', estimate: 'select', release: 'text', owner: 'number', flag: 'checkbox', site: 'date' },
  XYZ: {},
};
const keys = ['severity', 'tags', 'customer', 'estimate', 'release', 'owner', 'site', 'flag', 'nokey'] as const;

// ---------------------------------------------------------------------------------------------
// Generators

/** Values as a query writes them: option names in any case, texts, numbers, dates, accounts, booleans, and ones that need quotes. */
const words = fc.constantFrom(
  'low',
  'HIGH',
  'Medium Rare',
  'ui',
  'big one',
  'acme',
  'Acme Corp',
  'a',
  '3',
  '1',
  '2.5',
  '-1',
  '0',
  dayOf(NOW),
  dayOf(NOW - 3 * DAY),
  '-3d',
  '+1d',
  'me',
  '@me',
  '2',
  'true',
  'False',
  'https://acme.example/a',
  'example',
  '>3',
  '1..2',
  'a,b',
  'x"y',
  '(',
  'OR',
  '-',
);
const numbers = fc.constantFrom(-1, 0, 1, 2.5, 3, 5, 1e-7);
const dates = fc.oneof(
  fc.integer({ min: -5, max: 5 }).map((d) => dayOf(NOW + d * DAY)),
  fc
    .tuple(fc.constantFrom('-', '+'), fc.integer({ min: 0, max: 4 }), fc.constantFrom('h', 'd', 'w'))
    .map(([s, n, u]) => `${s}${n}${u}`),
);
const isCalendar = (v: unknown): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v);

function bounds<T extends number | string>(v: fc.Arbitrary<T>) {
  return fc.oneof(
    v.map((x) => ({ gt: x })),
    v.map((x) => ({ gte: x })),
    v.map((x) => ({ lt: x })),
    v.map((x) => ({ lte: x })),
    fc.tuple(v, v).map(([a, b]) => {
      const inOrder = typeof a === 'number' || (isCalendar(a) && isCalendar(b)) ? a <= b : true;
      return inOrder ? { gte: a, lte: b } : { gte: b, lte: a };
    }),
  );
}

const customCondition: fc.Arbitrary<FieldCondition> = fc
  .tuple(
    fc.constantFrom(...keys),
    fc.oneof(
      { weight: 4, arbitrary: fc.array(words, { minLength: 1, maxLength: 3 }).map((values) => ({ in: values })) },
      { weight: 2, arbitrary: bounds(numbers) },
      { weight: 2, arbitrary: bounds(dates) },
      { weight: 1, arbitrary: fc.boolean().map((has) => ({ has })) },
    ),
  )
  .map(([key, test]) => ({ cf: { key, ...test } }) as FieldCondition);

const condition: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition; n: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('n'),
    tie('n').map((n) => ({ not: n }) as Condition),
  ),
  n: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    customCondition as fc.Arbitrary<Condition>,
    fc.array(tie('c'), { minLength: 2, maxLength: 3 }).map((and) => ({ and })),
    fc.array(tie('c'), { minLength: 2, maxLength: 3 }).map((or) => ({ or })),
  ),
})).c;

const selection: fc.Arbitrary<Selection> = fc
  .array(fc.oneof({ weight: 3, arbitrary: customCondition as fc.Arbitrary<Condition> }, { weight: 1, arbitrary: condition }), {
    minLength: 1,
    maxLength: 4,
  })
  .map((and) => ({ and }));

/** Values of a field as an issue shows them: often none. */
function valueOf(type: FieldType, pick: <T>(values: readonly T[]) => T, chance: () => number): Value {
  if (chance() < 0.25) return type === 'checkbox' ? false : null;
  switch (type) {
    case 'select':
      return pick(['low', 'high', 'Medium Rare', '1', '3']);
    case 'multi_select': {
      const names = ['ui', 'api', 'Big One', 'low'].filter(() => chance() < 0.5);
      return names.length > 0 ? names : null;
    }
    case 'text':
      return pick(['Acme Corp', 'acme', 'a b', 'HIGH priority', '3 of them', 'x"y', 'low']);
    case 'url':
      return pick(['https://acme.example/a', 'https://b.example/', 'http://x.example/a,b']);
    case 'number':
      return pick([-1, 0, 1, 2, 2.5, 3, 5, 1e-7]);
    case 'date':
      return dayOf(NOW + (Math.floor(chance() * 11) - 5) * DAY);
    case 'account':
      return pick([1, 2, 3]);
    case 'checkbox':
      return true;
  }
}

function issuesFrom(seed: number): SelectableIssue[] {
  let state = seed >>> 0;
  const chance = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = <T>(values: readonly T[]): T => values[Math.floor(chance() * values.length)]!;
  return Array.from({ length: 30 }, (_, i) => {
    const prefix = pick(Object.keys(projects));
    const fields: Fields = {};
    for (const [key, type] of Object.entries(projects[prefix]!)) fields[key] = { type, value: valueOf(type, pick, chance) };
    return {
      id: seed + i,
      title: 't',
      project_prefix: prefix,
      sprint_id: null,
      status: 'todo',
      assignee_id: null,
      author_id: 1,
      labels: [],
      priority: 'none',
      type: 'task',
      parent_id: null,
      story_points: null,
      created_at: new Date(NOW).toISOString(),
      updated_at: new Date(NOW).toISOString(),
      due_date: null,
      blocked: false,
      // An issue of a search record read without its project's fields reads none at all.
      ...(prefix === 'XYZ' && chance() < 0.5 ? {} : { custom_fields: fields }),
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The reference: brute force from the documented meaning

const offsetMs = (r: string) => Number(r.slice(0, -1)) * { h: 3_600_000, d: DAY, w: 7 * DAY }[r.at(-1) as 'h' | 'd' | 'w'];
const isRelative = (v: string) => /^[+-]\d+[hdwm]$/.test(v);
/** A date as a day: a relative time stands for the UTC day it falls on. */
const dayNamed = (v: string, now: number) => (isRelative(v) ? dayOf(now + offsetMs(v)) : v);
const isNumberText = (v: string) => /^-?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(v);

function referenceValue(f: { type: FieldType; value: Value }, written: string, ctx: SelectionContext): boolean {
  const v = f.value;
  const w = written.toLowerCase();
  switch (f.type) {
    case 'select':
      return typeof v === 'string' && v.toLowerCase() === w;
    case 'multi_select':
      return Array.isArray(v) && v.some((name) => name.toLowerCase() === w);
    case 'text':
    case 'url':
      return typeof v === 'string' && v.toLowerCase().includes(w);
    case 'number':
      return typeof v === 'number' && isNumberText(written) && Number(written) === v;
    case 'account':
      return typeof v === 'number' && (w === 'me' || w === '@me' ? ctx.me === v : isNumberText(written) && Number(written) === v);
    case 'date':
      return typeof v === 'string' && (isCalendar(written) || isRelative(written)) && dayNamed(written, ctx.now.getTime()) === v;
    case 'checkbox':
      return (w === 'true' && v === true) || (w === 'false' && v === false);
  }
}

function referenceCustom(test: Record<string, any>, issue: SelectableIssue, ctx: SelectionContext): boolean {
  const f = (issue.custom_fields as Fields | undefined)?.[test.key];
  if (!f) return false;
  if (test.has !== undefined) return (f.value !== null && f.value !== false) === test.has;
  if (test.in) return (test.in as string[]).some((w) => referenceValue(f, w, ctx));
  const ends = (['gt', 'gte', 'lt', 'lte'] as const).filter((op) => test[op] !== undefined);
  const x = f.value;
  const numeric = typeof test[ends[0]!] === 'number';
  if (numeric && (f.type !== 'number' || typeof x !== 'number')) return false;
  if (!numeric && (f.type !== 'date' || typeof x !== 'string')) return false;
  return ends.every((op) => {
    const bound = numeric ? test[op] : dayNamed(test[op], ctx.now.getTime());
    const c = x! < bound ? -1 : x! > bound ? 1 : 0;
    return op === 'gt' ? c > 0 : op === 'gte' ? c >= 0 : op === 'lt' ? c < 0 : c <= 0;
  });
}

function referenceCondition(c: Condition, issue: SelectableIssue, ctx: SelectionContext): boolean {
  if (c.not) return !referenceCondition(c.not, issue, ctx);
  if (c.and) return c.and.every((x) => referenceCondition(x, issue, ctx));
  if (c.or) return c.or.some((x) => referenceCondition(x, issue, ctx));
  return referenceCustom(c.cf!, issue, ctx);
}

const context: fc.Arbitrary<SelectionContext> = fc.record({
  me: fc.integer({ min: 1, max: 3 }),
  now: fc.constantFrom(0, 3_600_000 * 13).map((ms) => new Date(NOW + ms)),
  activeSprintIds: fc.constant(new Set<number>()),
});

// ---------------------------------------------------------------------------------------------

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    if (e instanceof ValidationError) return e.errors;
    throw e;
  }
  return 'no error';
}

describe('cf.<key>: the query string and the JSON form', () => {
  it('every valid selection with custom fields prints as a query that parses back to it (1,000 runs)', () => {
    fc.assert(
      fc.property(selection, (s) => {
        const valid = validateSelection(s);
        const query = printSelection(valid);
        expect(parseSelection(query), query).toEqual(valid);
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    ['cf.severity:high', { cf: { key: 'severity', in: ['high'] } }],
    ['cf.Severity:high,LOW', { cf: { key: 'severity', in: ['high', 'LOW'] } }],
    ['cf.customer:"Acme Corp"', { cf: { key: 'customer', in: ['Acme Corp'] } }],
    ['cf.estimate:3', { cf: { key: 'estimate', in: ['3'] } }],
    ['cf.estimate:>3', { cf: { key: 'estimate', gt: 3 } }],
    ['cf.estimate:>=2.5', { cf: { key: 'estimate', gte: 2.5 } }],
    ['cf.estimate:<-1', { cf: { key: 'estimate', lt: -1 } }],
    ['cf.estimate:<=0', { cf: { key: 'estimate', lte: 0 } }],
    ['cf.estimate:1..5', { cf: { key: 'estimate', gte: 1, lte: 5 } }],
    ['cf.release:>2026-11-01', { cf: { key: 'release', gt: '2026-11-01' } }],
    ['cf.release:-7d..+07D', { cf: { key: 'release', gte: '-7d', lte: '+7d' } }],
    ['cf.release:2026-12-01', { cf: { key: 'release', in: ['2026-12-01'] } }],
    ['cf.owner:me', { cf: { key: 'owner', in: ['me'] } }],
    ['cf.flag:true', { cf: { key: 'flag', in: ['true'] } }],
    ['cf.note:">3"', { cf: { key: 'note', in: ['>3'] } }],
    ['has:cf.severity', { cf: { key: 'severity', has: true } }],
    ['no:cf.severity', { cf: { key: 'severity', has: false } }],
    ['-cf.severity:low', { not: { cf: { key: 'severity', in: ['low'] } } }],
  ])('%s', (query, condition) => {
    expect(parseSelection(query)).toEqual({ and: [condition] });
    expect(parseSelection(printSelection(parseSelection(query)))).toEqual(parseSelection(query));
  });

  it.each([
    [
      'cf.:x',
      "q: at 4: expected a custom field's key after 'cf.' (letters, digits and _, starting with a letter, at most 32), got ''",
    ],
    [
      'cf.9a:x',
      "q: at 4: expected a custom field's key after 'cf.' (letters, digits and _, starting with a letter, at most 32), got '9a'",
    ],
    [
      'cf.a-b:x',
      "q: at 4: expected a custom field's key after 'cf.' (letters, digits and _, starting with a letter, at most 32), got 'a-b'",
    ],
    ['cf.severity:', "q: at 1: expected a value after 'cf.severity:'"],
    ['cf.estimate:>abc', "q: at 13: expected a number or a date (YYYY-MM-DD, or a relative time such as -7d), got 'abc'"],
    ['cf.estimate:5..1', "q: at 13: the range '5..1' is empty: its start is after its end"],
    ['cf.estimate:1..2026-01-01', "q: at 13: a range's ends must both be numbers or both dates, got '1..2026-01-01'"],
    ['cf.estimate:>3,4', "q: at 13: 'cf.estimate:' takes a list of values or one comparison, not both"],
    [
      'has:cf.',
      "q: at 8: expected a custom field's key after 'cf.' (letters, digits and _, starting with a letter, at most 32), got ''",
    ],
  ])('%s is a 422', (query, message) => {
    expect(thrown(() => parseSelection(query))).toEqual([message]);
  });

  it.each([
    [
      { and: [{ cf: { key: 'Severity', in: ['x'] } }] },
      'and.0.cf.key must be a field key: lower-case letters, digits and _, starting with a letter',
    ],
    [{ and: [{ cf: { key: 'a', in: [] } }] }, 'and.0.cf.in must hold at least one value'],
    [
      { and: [{ cf: { key: 'a', gte: 1, lte: '2026-01-01' } }] },
      'and.0.cf is a range of a number and a date: both ends must be numbers, or both dates',
    ],
    [
      { and: [{ cf: { key: 'a', gt: 'x' } }] },
      'and.0.cf.gt must be a real date (YYYY-MM-DD) or a relative time such as -7d or +2w (units h, d, w, m)',
    ],
    [{ and: [{ cf: { key: 'a', in: ['x'], has: true } }] }, expect.stringContaining('and.0.cf must be {"key": k} with one of')],
    [{ and: [{ cf: { key: 'a', eq: 1 } }] }, expect.stringContaining("and.0.cf has an unknown operator 'eq'")],
  ])('the JSON form %j is refused', (input, message) => {
    expect(thrown(() => validateSelection(input))).toEqual([message]);
  });
});

describe('cf.<key>: the evaluator', () => {
  it('agrees with a brute-force reference over issues with fields of every type (1,000 selections × 30 issues)', () => {
    let selected = 0;
    let total = 0;
    fc.assert(
      fc.property(selection, fc.integer({ min: 0, max: 1_000_000 }).map(issuesFrom), context, (s, all, ctx) => {
        const test = selectionMatcher(s, ctx);
        for (const issue of all) {
          const expected = s.and.every((c) => referenceCondition(c, issue, ctx));
          expect(test(issue), `${printSelection(s)} on ${JSON.stringify(issue.custom_fields)}`).toBe(expected);
          if (expected) selected++;
          total++;
        }
      }),
      { numRuns: 1000 },
    );
    // Neither all nor nothing: the generated queries tell issues apart.
    expect(selected / total).toBeGreaterThan(0.02);
    expect(selected / total).toBeLessThan(0.95);
  });

  const issue = (prefix: string, fields: Fields): SelectableIssue => ({
    ...issuesFrom(1)[0]!,
    project_prefix: prefix,
    custom_fields: fields,
  });
  const ctx: SelectionContext = { me: 7, now: new Date(NOW), activeSprintIds: new Set() };
  const found = (query: string, i: SelectableIssue) => selectionMatcher(parseSelection(query), ctx)(i);

  it('reads one key as each project defines it', () => {
    const select = issue('AB', { severity: { type: 'select', value: 'High' } });
    const text = issue('CD', { severity: { type: 'text', value: 'very high indeed' } });
    expect(found('cf.severity:high', select)).toBe(true);
    expect(found('cf.severity:hig', select)).toBe(false);
    expect(found('cf.severity:hig', text)).toBe(true);
    expect(found('cf.nokey:high', select)).toBe(false);
    expect(found('-cf.nokey:high', select)).toBe(true);
    expect(found('has:cf.severity', text)).toBe(true);
    expect(found('no:cf.severity', issue('AB', { severity: { type: 'select', value: null } }))).toBe(true);
  });

  it('numbers, dates, accounts, checkboxes, multi_select and urls', () => {
    const i = issue('AB', {
      estimate: { type: 'number', value: 3.5 },
      release: { type: 'date', value: dayOf(NOW + 2 * DAY) },
      owner: { type: 'account', value: 7 },
      flag: { type: 'checkbox', value: false },
      tags: { type: 'multi_select', value: ['ui', 'Big One'] },
      site: { type: 'url', value: 'https://acme.example/x' },
    });
    expect(found('cf.estimate:>3', i)).toBe(true);
    expect(found('cf.estimate:>3.5', i)).toBe(false);
    expect(found('cf.estimate:3..4', i)).toBe(true);
    expect(found('cf.estimate:3.5', i)).toBe(true);
    expect(found('cf.release:>+1d', i)).toBe(true);
    expect(found('cf.release:+2d', i)).toBe(true);
    expect(found(`cf.release:<${dayOf(NOW + 2 * DAY)}`, i)).toBe(false);
    expect(found('cf.owner:me cf.owner:7', i)).toBe(true);
    expect(found('cf.flag:false', i)).toBe(true);
    expect(found('cf.flag:true', i)).toBe(false);
    expect(found('cf.tags:"big one"', i)).toBe(true);
    expect(found('cf.site:acme.example', i)).toBe(true);
    expect(found('cf.site:"https://acme.example/x"', i)).toBe(true);
  });
});

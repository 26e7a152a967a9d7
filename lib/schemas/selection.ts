import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { idField, isCalendarDate } from './common.ts';
import { StateCategory } from './states.ts';
import { stateLimits, statusKey } from '../vocabulary/workflow.ts';
import { prefixField } from './projects.ts';
import {
  hasValues,
  isDateValue,
  issuePriorities,
  issueTypes,
  isValues,
  pullRequestStates,
  rangeIsEmpty,
  selectionLimits,
  sortFields,
  sortOrders,
} from '../vocabulary/selection.ts';
import { measure, nodeOf } from '../vocabulary/condition-tree.ts';
import { nearestKey } from './validate.ts';
import { fieldLimits, FIELD_KEY } from '../vocabulary/custom-fields.ts';

/**
 * The JSON form of a selection of issues (docs/search.md): `{"and": [condition, ...], "sort"?}`,
 * each condition one field and one test (`{"status": {"in": ["todo"]}}`), `{"not": condition}`,
 * or a group: `{"and": [...]}`, `{"or": [...]}`.
 * It holds exactly what the query string can say, so that every valid selection prints as a
 * query that parses back to it (`lib/model/selection/print.ts`).
 */

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});
const keyList = (keys: readonly string[]) => keys.map((k) => `'${k}'`).join(', ');

/** A strict object whose unknown keys are named with the known ones, and the known one a single unknown key most likely meant. */
const strict = <S extends z.core.$ZodShape>(shape: S, known: string) =>
  z.strictObject(shape, {
    error: (iss) => {
      if (iss.code !== 'unrecognized_keys') return 'must be an object';
      const keys = Object.keys(shape);
      const guess = iss.keys.length === 1 ? nearestKey(iss.keys[0]!, keys) : undefined;
      return `has an unknown ${known} ${keyList(iss.keys)}${guess === undefined ? '' : `: did you mean '${guess}'?`} (known: ${keys.join(', ')})`;
    },
  });

/** Cross-field checks run only on an object whose own fields passed: one message per problem. */
const whenValid = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 };

const definedKeys = (o: object) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k)
    .sort()
    .join(',');

/**
 * The tests one field takes: an object of operators (`in`, `eq`, `gt`, `gte`, `lt`, `lte`, `null`)
 * holding exactly one of the combinations `forms` lists (`gte` with `lte` is a range).
 */
function operators<S extends z.core.$ZodShape>(shape: S, forms: readonly (readonly (keyof S & string)[])[], described: string) {
  const allowed = new Set(forms.map((f) => [...f].sort().join(',')));
  return strict(shape, 'operator').check(
    z.superRefine((o, ctx) => {
      if (!allowed.has(definedKeys(o))) {
        ctx.addIssue({ code: 'custom', message: `must be ${described}` });
        return;
      }
      const r = o as { gte?: unknown; lte?: unknown };
      if (r.gte !== undefined && r.lte !== undefined && rangeIsEmpty(r.gte, r.lte))
        ctx.addIssue({ code: 'custom', message: 'is an empty range: gte is after lte' });
    }, whenValid),
  );
}

const list = <T extends z.ZodMiniType>(item: T) =>
  z.array(item, typed('an array')).check(z.minLength(1, { error: 'must hold at least one value' }));

const noValue = z.literal(true, { error: 'must be true (the field has no value)' });

const accountRef = z.union([idField(), z.literal('@me')], { error: 'must be an account id or "@me"' });
const assigneeRef = z.union([idField(), z.literal('@me'), z.null()], {
  error: 'must be an account id, "@me" or null (unassigned)',
});
const sprintRef = z.union([idField(), z.literal('active'), z.null()], {
  error: 'must be a sprint id, "active" (an active sprint) or null (the backlog)',
});
const parentRef = z.union([idField(), z.null()], { error: 'must be an issue id or null (no parent)' });

const points = z
  .number(typed('a whole number'))
  .check(z.int({ error: 'must be a whole number' }))
  .check(z.minimum(0, { error: 'must be 0 or more' }))
  .check(z.maximum(Number.MAX_SAFE_INTEGER, { error: 'is out of range' }));
const priority = z.enum(issuePriorities, oneOf(issuePriorities));
const dateValue = meta(
  z.string(typed('a date (YYYY-MM-DD) or a relative time (-7d)')).check(
    z.refine(isDateValue, {
      error: 'must be a real date (YYYY-MM-DD) or a relative time such as -7d or +2w (units h, d, w, m)',
    }),
  ),
  {
    pattern:
      '^(?:[12]\\d{3}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|[+-]\\d{1,4}[hdwm])$',
  },
);

const comparisonForms = [['gt'], ['gte'], ['lt'], ['lte'], ['gte', 'lte']] as const;
const comparisons = '{"gt": v}, {"gte": v}, {"lt": v}, {"lte": v}';
const range = 'a range {"gte": a, "lte": b}';

const timestamp = operators(
  {
    eq: z.optional(dateValue),
    gt: z.optional(dateValue),
    gte: z.optional(dateValue),
    lt: z.optional(dateValue),
    lte: z.optional(dateValue),
  },
  [['eq'], ...comparisonForms],
  `{"eq": day}, ${comparisons} or ${range}`,
).check(
  z.superRefine((o, ctx) => {
    // "updated on -7d" names an instant, not a day: a time needs a comparison.
    if (o.eq !== undefined && !isCalendarDate(o.eq))
      ctx.addIssue({
        code: 'custom',
        path: ['eq'],
        message: 'must be a date (YYYY-MM-DD): a relative time needs gt, gte, lt or lte',
      });
  }, whenValid),
);

/** A state's name as `status:` takes it: any case, spaces or punctuation (`"In review"`, `in_review`). */
const stateNameValue = z
  .string(typed('a state name'))
  .check(z.maxLength(stateLimits.name, { error: `must be at most ${stateLimits.name} characters` }))
  .check(z.refine((v) => statusKey(v) !== '', { error: 'must name a state (letters or digits)' }));

/** A bound of `cf.<key>:>v`: a number (a number field's) or a date or relative time (a date field's). */
const customBound = z.union(
  [
    z.number().check(
      z.refine((n) => Number.isFinite(n) && Math.abs(n) <= fieldLimits.number && !Object.is(n, -0), {
        error: 'is out of range',
      }),
    ),
    dateValue,
  ],
  { error: `must be a number (at most ${fieldLimits.number} either way), a date (YYYY-MM-DD) or a relative time (-7d)` },
);

/**
 * `cf.<key>:...`: a test of the custom field with that key, in whichever project has one
 * (docs/search.md#custom-fields). The values are texts as written; what they mean is the field's
 * type's to say, project by project (lib/model/selection/evaluate.ts).
 */
const customField = operators(
  {
    key: z
      .string(typed('a field key'))
      .check(
        z.maxLength(fieldLimits.key, { error: `must be at most ${fieldLimits.key} characters` }),
        z.regex(FIELD_KEY, { error: 'must be a field key: lower-case letters, digits and _, starting with a letter' }),
      ),
    in: z.optional(
      list(
        z
          .string(typed('a string'))
          .check(
            z.minLength(1, { error: 'must not be empty' }),
            z.maxLength(fieldLimits.url, { error: `must be at most ${fieldLimits.url} characters` }),
          ),
      ),
    ),
    gt: z.optional(customBound),
    gte: z.optional(customBound),
    lt: z.optional(customBound),
    lte: z.optional(customBound),
    has: z.optional(z.boolean(typed('true (the field has a value) or false (none)'))),
  },
  [
    ['key', 'in'],
    ['key', 'gt'],
    ['key', 'gte'],
    ['key', 'lt'],
    ['key', 'lte'],
    ['key', 'gte', 'lte'],
    ['key', 'has'],
  ],
  '{"key": k} with one of {"in": [values]}, {"gt": v}, {"gte": v}, {"lt": v}, {"lte": v}, a range {"gte": a, "lte": b} or {"has": true/false}',
).check(
  z.superRefine((o, ctx) => {
    if (o.gte !== undefined && o.lte !== undefined && typeof o.gte !== typeof o.lte)
      ctx.addIssue({ code: 'custom', message: 'is a range of a number and a date: both ends must be numbers, or both dates' });
  }, whenValid),
);

/** One test per field: the shape of a condition without `not`. */
const fieldShape = {
  title: z.optional(
    strict({ contains: z.string(typed('a string')).check(z.minLength(1, { error: 'must not be empty' })) }, 'operator'),
  ),
  project: z.optional(strict({ in: list(prefixField()) }, 'operator')),
  sprint: z.optional(strict({ in: list(sprintRef) }, 'operator')),
  status: z.optional(strict({ in: list(stateNameValue) }, 'operator')),
  category: z.optional(strict({ in: list(StateCategory) }, 'operator')),
  is: z.optional(z.enum(isValues, oneOf(isValues))),
  assignee: z.optional(strict({ in: list(assigneeRef) }, 'operator')),
  author: z.optional(strict({ in: list(accountRef) }, 'operator')),
  label: z.optional(
    operators(
      {
        in: z.optional(list(z.string(typed('a label name')).check(z.minLength(1, { error: 'must not be empty' })))),
        null: z.optional(noValue),
      },
      [['in'], ['null']],
      '{"in": [names]} or {"null": true} (no label)',
    ),
  ),
  priority: z.optional(
    operators(
      {
        in: z.optional(list(priority)),
        gt: z.optional(priority),
        gte: z.optional(priority),
        lt: z.optional(priority),
        lte: z.optional(priority),
      },
      [['in'], ...comparisonForms],
      `{"in": [priorities]}, ${comparisons} or ${range}`,
    ),
  ),
  type: z.optional(strict({ in: list(z.enum(issueTypes, oneOf(issueTypes))) }, 'operator')),
  parent: z.optional(strict({ in: list(parentRef) }, 'operator')),
  points: z.optional(
    operators(
      {
        eq: z.optional(points),
        gt: z.optional(points),
        gte: z.optional(points),
        lt: z.optional(points),
        lte: z.optional(points),
        null: z.optional(noValue),
      },
      [['eq'], ...comparisonForms, ['null']],
      `{"eq": n}, ${comparisons}, ${range} or {"null": true}`,
    ),
  ),
  created: z.optional(timestamp),
  updated: z.optional(timestamp),
  due: z.optional(
    operators(
      {
        eq: z.optional(dateValue),
        gt: z.optional(dateValue),
        gte: z.optional(dateValue),
        lt: z.optional(dateValue),
        lte: z.optional(dateValue),
        null: z.optional(noValue),
      },
      [['eq'], ...comparisonForms, ['null']],
      `{"eq": day}, ${comparisons}, ${range} or {"null": true} (no due date)`,
    ),
  ),
  /** `has:pr`: the issue has a linked pull request, in any state. */
  has: z.optional(z.enum(hasValues, oneOf(hasValues))),
  /** `pr:open,draft`: the issue has a linked pull request in one of these states. */
  pr: z.optional(strict({ in: list(z.enum(pullRequestStates, oneOf(pullRequestStates))) }, 'operator')),
  /** `cf.severity:high`, `cf.estimate:>3`, `has:cf.severity`: a project's custom field, by key. */
  cf: z.optional(customField),
};

/** The fields a condition may test, in the order the printer writes their names. */
export const selectionFields = Object.keys(fieldShape) as (keyof typeof fieldShape)[];

const single = (o: object) => Object.values(o).filter((v) => v !== undefined).length === 1;
const exactlyOne = (what: string) => ({
  error: `must hold exactly one ${what}, e.g. {"status": {"in": ["todo"]}}`,
  ...whenValid,
});

/** A condition on one field. */
export const FieldCondition = strict(fieldShape, 'field').check(z.refine(single, exactlyOne('field')));
export type FieldCondition = z.output<typeof FieldCondition>;

/** Conditions grouped: all must hold (`and`), or one of them (`or`). */
interface Groups {
  and?: Condition[] | undefined;
  or?: Condition[] | undefined;
}
/** A condition that may be negated: one field, or a group. */
export type NegatableCondition = FieldCondition & Groups;
/** A condition: one field, a group (`and`, `or`), or `not` of either. */
export type Condition = NegatableCondition & { not?: NegatableCondition | undefined };

const group = (op: 'and' | 'or') =>
  z.optional(
    z
      .array(
        z.lazy(() => Condition),
        typed('an array of conditions'),
      )
      .check(z.minLength(2, { error: `must hold at least 2 conditions (one condition needs no "${op}")` }))
      .check(z.maxLength(selectionLimits.terms, { error: `must hold at most ${selectionLimits.terms} conditions` })),
  );

/** A condition on one field or a group, without `not`: what `not` takes (no negation of a negation). */
export const NegatableCondition: z.ZodMiniType<NegatableCondition> = meta(
  strict({ ...fieldShape, and: group('and'), or: group('or') }, 'field').check(
    z.refine(single, exactlyOne('field (or "and", "or")')),
  ),
  {
    id: 'SelectionNegatableCondition',
    description: 'A condition that `not` may hold: one field, or a group (`and`, `or`); not another `not`.',
  },
);

/** A condition on one field, `{"not": condition}`, or a group: `{"and": [...]}` (all hold), `{"or": [...]}` (one holds). */
export const Condition: z.ZodMiniType<Condition> = meta(
  strict({ ...fieldShape, not: z.optional(z.lazy(() => NegatableCondition)), and: group('and'), or: group('or') }, 'field').check(
    z.refine(single, exactlyOne('field (or "not", "and", "or")')),
  ),
  {
    id: 'SelectionCondition',
    description:
      'One field and its test (`{"status": {"in": ["todo"]}}`), `{"not": condition}`, or a group of 2 or more conditions: ' +
      '`{"and": [...]}` (all hold) or `{"or": [...]}` (one holds). Groups nest at most ' +
      `${selectionLimits.depth} deep; a selection holds at most ${selectionLimits.terms} conditions on a field in all.`,
  },
);

export const SelectionSort = strict(
  { field: z.enum(sortFields, oneOf(sortFields)), order: z.enum(sortOrders, oneOf(sortOrders)) },
  'key',
);
export type SelectionSort = z.output<typeof SelectionSort>;

/**
 * The bounds a whole selection keeps, however its conditions are grouped: at most
 * `selectionLimits.terms` conditions on a field, groups nested at most `selectionLimits.depth`
 * deep (the path names the first group too deep). Checked once everything else holds.
 */
export const withinSelectionBounds = (conditions: readonly Condition[], ctx: z.core.$RefinementCtx) => {
  const terms = conditions.reduce((n, c) => n + measure(c).terms, 0);
  if (terms > selectionLimits.terms)
    ctx.addIssue({
      code: 'custom',
      path: ['and'],
      message: `must hold at most ${selectionLimits.terms} conditions on a field in all, groups included (it holds ${terms})`,
    });
  const tooDeep = (c: Condition, path: (string | number)[], level: number): (string | number)[] | undefined => {
    const node = nodeOf(c);
    if (node.kind === 'field') return undefined;
    if (node.kind === 'not') return tooDeep(node.condition, [...path, 'not'], level);
    if (level > selectionLimits.depth) return path;
    for (const [i, inner] of node.conditions.entries()) {
      const found = tooDeep(inner, [...path, node.kind, i], level + 1);
      if (found) return found;
    }
    return undefined;
  };
  for (const [i, c] of conditions.entries()) {
    const path = tooDeep(c, ['and', i], 1);
    if (path) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: `nests groups more than ${selectionLimits.depth} deep (at most ${selectionLimits.depth} levels of "and" and "or")`,
      });
      return;
    }
  }
};

/**
 * A selection: conditions ANDed (at most `selectionLimits.terms` on a field in all, groups
 * included), and an optional order. The bound on its printed length is checked beside it
 * (`validateSelection`, lib/model/selection.ts), where the printer lives.
 */
export const Selection = strict(
  {
    and: z.array(Condition, typed('an array of conditions')).check(
      z.maxLength(selectionLimits.terms, {
        error: `must hold at most ${selectionLimits.terms} conditions`,
      }),
    ),
    sort: z.optional(SelectionSort),
  },
  'key',
).check(z.superRefine((s, ctx) => withinSelectionBounds(s.and, ctx), whenValid));
export type Selection = z.output<typeof Selection>;

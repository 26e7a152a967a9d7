import * as z from 'zod';
import { idField, isCalendarDate } from './common.ts';
import { IssueStatus } from './issues.ts';
import { prefixField } from './projects.ts';
import {
  isDateValue,
  issuePriorities,
  issueTypes,
  isValues,
  rangeIsEmpty,
  selectionLimits,
  sortFields,
  sortOrders,
} from '../domain/selection/vocabulary.ts';

/**
 * The JSON form of a selection of issues (docs/search.md): `{"and": [condition, ...], "sort"?}`,
 * each condition one field and one test (`{"status": {"in": ["todo"]}}`) or `{"not": condition}`.
 * It holds exactly what the query string can say, so that every valid selection prints as a
 * query that parses back to it (`lib/domain/selection/print.ts`).
 */

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});
const keyList = (keys: readonly string[]) => keys.map((k) => `'${k}'`).join(', ');

/** A strict object whose unknown keys are named with the known ones. */
const strict = <S extends z.ZodRawShape>(shape: S, known: string) =>
  z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `has an unknown ${known} ${keyList(iss.keys)} (known: ${Object.keys(shape).join(', ')})`
        : 'must be an object',
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
function operators<S extends z.ZodRawShape>(shape: S, forms: readonly (readonly (keyof S & string)[])[], described: string) {
  const allowed = new Set(forms.map((f) => [...f].sort().join(',')));
  return strict(shape, 'operator').superRefine((o, ctx) => {
    if (!allowed.has(definedKeys(o))) {
      ctx.addIssue({ code: 'custom', message: `must be ${described}` });
      return;
    }
    const r = o as { gte?: unknown; lte?: unknown };
    if (r.gte !== undefined && r.lte !== undefined && rangeIsEmpty(r.gte, r.lte))
      ctx.addIssue({ code: 'custom', message: 'is an empty range: gte is after lte' });
  }, whenValid);
}

const list = <T extends z.ZodType>(item: T) => z.array(item, typed('an array')).min(1, { error: 'must hold at least one value' });

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
  .int({ error: 'must be a whole number' })
  .min(0, { error: 'must be 0 or more' })
  .max(Number.MAX_SAFE_INTEGER, { error: 'is out of range' });
const priority = z.enum(issuePriorities, oneOf(issuePriorities));
const dateValue = z
  .string(typed('a date (YYYY-MM-DD) or a relative time (-7d)'))
  .refine(isDateValue, { error: 'must be a real date (YYYY-MM-DD) or a relative time such as -7d or +2w (units h, d, w, m)' })
  // Stated strictly: any day but February 29th, or a relative time.
  .meta({
    pattern:
      '^(?:[12]\\d{3}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)|[+-]\\d{1,4}[hdwm])$',
  });

const comparisonForms = [['gt'], ['gte'], ['lt'], ['lte'], ['gte', 'lte']] as const;
const comparisons = '{"gt": v}, {"gte": v}, {"lt": v}, {"lte": v}';
const range = 'a range {"gte": a, "lte": b}';

const timestamp = operators(
  {
    eq: dateValue.optional(),
    gt: dateValue.optional(),
    gte: dateValue.optional(),
    lt: dateValue.optional(),
    lte: dateValue.optional(),
  },
  [['eq'], ...comparisonForms],
  `{"eq": day}, ${comparisons} or ${range}`,
).superRefine((o, ctx) => {
  // "updated on -7d" names an instant, not a day: a time needs a comparison.
  if (o.eq !== undefined && !isCalendarDate(o.eq))
    ctx.addIssue({
      code: 'custom',
      path: ['eq'],
      message: 'must be a date (YYYY-MM-DD): a relative time needs gt, gte, lt or lte',
    });
}, whenValid);

/** One test per field: the shape of a condition without `not`. */
const fieldShape = {
  title: strict({ contains: z.string(typed('a string')).min(1, { error: 'must not be empty' }) }, 'operator').optional(),
  project: strict({ in: list(prefixField()) }, 'operator').optional(),
  sprint: strict({ in: list(sprintRef) }, 'operator').optional(),
  status: strict({ in: list(IssueStatus) }, 'operator').optional(),
  is: z.enum(isValues, oneOf(isValues)).optional(),
  assignee: strict({ in: list(assigneeRef) }, 'operator').optional(),
  author: strict({ in: list(accountRef) }, 'operator').optional(),
  label: operators(
    { in: list(z.string(typed('a label name')).min(1, { error: 'must not be empty' })).optional(), null: noValue.optional() },
    [['in'], ['null']],
    '{"in": [names]} or {"null": true} (no label)',
  ).optional(),
  priority: operators(
    {
      in: list(priority).optional(),
      gt: priority.optional(),
      gte: priority.optional(),
      lt: priority.optional(),
      lte: priority.optional(),
    },
    [['in'], ...comparisonForms],
    `{"in": [priorities]}, ${comparisons} or ${range}`,
  ).optional(),
  type: strict({ in: list(z.enum(issueTypes, oneOf(issueTypes))) }, 'operator').optional(),
  parent: strict({ in: list(parentRef) }, 'operator').optional(),
  points: operators(
    {
      eq: points.optional(),
      gt: points.optional(),
      gte: points.optional(),
      lt: points.optional(),
      lte: points.optional(),
      null: noValue.optional(),
    },
    [['eq'], ...comparisonForms, ['null']],
    `{"eq": n}, ${comparisons}, ${range} or {"null": true}`,
  ).optional(),
  created: timestamp.optional(),
  updated: timestamp.optional(),
  due: operators(
    {
      eq: dateValue.optional(),
      gt: dateValue.optional(),
      gte: dateValue.optional(),
      lt: dateValue.optional(),
      lte: dateValue.optional(),
      null: noValue.optional(),
    },
    [['eq'], ...comparisonForms, ['null']],
    `{"eq": day}, ${comparisons}, ${range} or {"null": true} (no due date)`,
  ).optional(),
};

/** The fields a condition may test, in the order the printer writes their names. */
export const selectionFields = Object.keys(fieldShape) as (keyof typeof fieldShape)[];

const single = (o: object) => Object.values(o).filter((v) => v !== undefined).length === 1;
const exactlyOne = (what: string) => ({
  error: `must hold exactly one ${what}, e.g. {"status": {"in": ["todo"]}}`,
  ...whenValid,
});

/** A condition on one field. */
export const FieldCondition = strict(fieldShape, 'field').refine(single, exactlyOne('field'));
export type FieldCondition = z.output<typeof FieldCondition>;

/** A condition on one field, or `{"not": condition}`. */
export const Condition = strict({ ...fieldShape, not: FieldCondition.optional() }, 'field').refine(
  single,
  exactlyOne('field (or "not")'),
);
export type Condition = z.output<typeof Condition>;

export const SelectionSort = strict(
  { field: z.enum(sortFields, oneOf(sortFields)), order: z.enum(sortOrders, oneOf(sortOrders)) },
  'key',
);
export type SelectionSort = z.output<typeof SelectionSort>;

/**
 * A selection: conditions ANDed (at most `selectionLimits.terms`), and an optional order. The
 * bound on its printed length is checked beside it (`validateSelection`, lib/domain/selection.ts),
 * where the printer lives.
 */
export const Selection = strict(
  {
    and: z.array(Condition, typed('an array of conditions')).max(selectionLimits.terms, {
      error: `must hold at most ${selectionLimits.terms} conditions`,
    }),
    sort: SelectionSort.optional(),
  },
  'key',
);
export type Selection = z.output<typeof Selection>;

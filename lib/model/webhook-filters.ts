import type { Condition, FieldCondition, NegatableCondition, Selection } from '../schemas/selection.ts';
import { nodeOf } from './selection/conditions.ts';
import { ValidationError } from '../vocabulary/errors.ts';
import { parseSelection, printSelection, validateSelection } from './selection.ts';

/**
 * A webhook's `filter` (docs/change-feed.md#filters): a query in the selection grammar
 * (docs/search.md) that the issue and comment events of an endpoint must match. It is read once,
 * when it is written, into the JSON form the change feed evaluates (lib/webhooks/filter.ts), stored
 * with its canonical query, which the API answers. So the text a client sent is never read again,
 * and what an endpoint answers is what it matches.
 */

/** Whether a query holds no term at all (spaces only): no filter. */
const blank = (text: string) => /^\s*$/u.test(text);

/**
 * The selection to store for a filter as a client wrote it: null for no filter (null, or a query
 * without a term), else the parsed query with `@me` replaced by `me`, the account writing it (a
 * filter is read by the change feed, where there is no caller). 422 with the parser's place and
 * expectation for a query that cannot be read (`filter: at 9: expected a value after 'status:'`);
 * 422 for `sort:` (a filter selects events, it orders nothing), and for a query whose canonical
 * form, ids in place of `@me`, would be longer than a query may be.
 */
export function readWebhookFilter(text: string | null, me: number, field = 'filter'): Selection | null {
  if (text === null || blank(text)) return null;
  const parsed = parseSelection(text, field);
  if (parsed.sort)
    throw new ValidationError([
      `${field}: 'sort:${parsed.sort.field}-${parsed.sort.order}' orders a search's answer; a ${field} only selects events: leave it out`,
    ]);
  return validateSelection({ and: parsed.and.map((c) => withAccount(c, me)) }, field);
}

/**
 * What an endpoint stores of a filter: `filterSelection`, the JSON form the change feed evaluates,
 * and `filter`, its canonical query, which the API answers (both null: no filter). The two are one
 * value: the canonical query parses back to exactly that JSON (docs/search.md#the-json-form).
 */
export function webhookFilterFields(
  text: string | null,
  me: number,
): { filter: string | null; filterSelection: Selection | null } {
  const selection = readWebhookFilter(text, me);
  return { filter: selection && printSelection(selection), filterSelection: selection };
}

/** The condition with `@me` replaced by `me`, in groups and negations too. */
function withAccount(condition: Condition, me: number): Condition {
  const node = nodeOf(condition);
  switch (node.kind) {
    case 'field':
      return fieldWithAccount(node.condition, me);
    case 'not':
      return { not: withAccount(node.condition, me) as NegatableCondition };
    case 'and':
      return { and: node.conditions.map((c) => withAccount(c, me)) };
    case 'or':
      return { or: node.conditions.map((c) => withAccount(c, me)) };
  }
}

function fieldWithAccount(condition: FieldCondition, me: number): FieldCondition {
  const ids = <T>(values: readonly (T | '@me')[]) => [...new Set(values.map((v) => (v === '@me' ? me : v)))];
  if (condition.assignee) return { assignee: { in: ids(condition.assignee.in) } };
  if (condition.author) return { author: { in: ids(condition.author.in) } };
  // An account field's `me` (or `@me`): the account writing the filter.
  if (condition.cf?.in)
    return { cf: { ...condition.cf, in: [...new Set(condition.cf.in.map((v) => (/^@?me$/i.test(v) ? String(me) : v)))] } };
  return condition;
}

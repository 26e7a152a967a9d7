import type { Condition, FieldCondition, Selection } from '../../schemas/selection.ts';
import { fieldTestOf, nodeOf } from './conditions.ts';
import { groupCharacters, isSpace, operators } from '../../vocabulary/selection.ts';

/**
 * The canonical query string of a selection (docs/search.md): its conditions in order, one term
 * or parenthesised group each, then `sort:`. A selection that is one OR prints without
 * parentheses (`type:bug OR type:story`); a group inside another is always parenthesised, an AND
 * inside an OR too, though AND binds tighter, so that the query reads as it means.
 * `parseSelection(printSelection(s))` deep-equals `s` for every valid selection
 * (test/unit/selection.property.test.ts).
 */
export function printSelection(selection: Selection): string {
  const only = selection.and.length === 1 ? selection.and[0]! : undefined;
  const terms = only?.or !== undefined ? [printOr(only.or)] : selection.and.map(printCondition);
  if (selection.sort) terms.push(`sort:${selection.sort.field}-${selection.sort.order}`);
  return terms.join(' ');
}

/** One condition as one term: `-` and the term for `{"not": ...}`, a group in parentheses. */
export function printCondition(condition: Condition): string {
  const node = nodeOf(condition);
  switch (node.kind) {
    case 'field':
      return printTerm(node.condition);
    case 'not':
      return `-${printCondition(node.condition)}`;
    case 'and':
      return `(${node.conditions.map(printCondition).join(' ')})`;
    case 'or':
      return `(${printOr(node.conditions)})`;
  }
}

const printOr = (conditions: readonly Condition[]) => conditions.map(printCondition).join(' OR ');

type Comparison<T extends string | number> = { eq?: T; gt?: T; gte?: T; lt?: T; lte?: T };

function printComparison(c: Comparison<string> | Comparison<number>): string {
  if (c.gte !== undefined && c.lte !== undefined) return `${c.gte}..${c.lte}`;
  if (c.gte !== undefined) return `>=${c.gte}`;
  if (c.gt !== undefined) return `>${c.gt}`;
  if (c.lte !== undefined) return `<=${c.lte}`;
  if (c.lt !== undefined) return `<${c.lt}`;
  return `${c.eq}`;
}

const none = (v: string | number | null) => (v === null ? 'none' : String(v));

function printTerm(condition: FieldCondition): string {
  const t = fieldTestOf(condition);
  switch (t.field) {
    case 'title':
      return printText(t.test.contains);
    case 'project':
    case 'category':
    case 'type':
    case 'pr':
      return `${t.field}:${t.test.in.join(',')}`;
    case 'status':
      return `status:${t.test.in.map(printValue).join(',')}`;
    case 'author':
      return `author:${t.test.in.join(',')}`;
    case 'sprint':
      return `sprint:${t.test.in.map(none).join(',')}`;
    case 'assignee':
    case 'parent':
      return t.test.in.length === 1 && t.test.in[0] === null ? `no:${t.field}` : `${t.field}:${t.test.in.map(none).join(',')}`;
    case 'is':
    case 'has':
      return `${t.field}:${t.test}`;
    case 'label':
      return t.test.in !== undefined ? `label:${t.test.in.map(printValue).join(',')}` : 'no:label';
    case 'priority':
      return `priority:${t.test.in !== undefined ? t.test.in.join(',') : printComparison(t.test)}`;
    case 'points':
    case 'due':
      return t.test.null ? `no:${t.field}` : `${t.field}:${printComparison(t.test)}`;
    case 'created':
    case 'updated':
      return `${t.field}:${printComparison(t.test)}`;
    case 'cf': {
      const { key } = t.test;
      if (t.test.has !== undefined) return `${t.test.has ? 'has' : 'no'}:cf.${key}`;
      return t.test.in !== undefined
        ? `cf.${key}:${t.test.in.map(printCustomValue).join(',')}`
        : `cf.${key}:${printComparison(t.test as Comparison<string> | Comparison<number>)}`;
    }
  }
}

const quote = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const plain = (s: string, reserved: string) =>
  s.length > 0 && Array.from(s).every((ch) => !isSpace(ch) && !reserved.includes(ch));

/**
 * Title text: a bare word when the parser would read it back as one (not an operator, no group
 * character, not starting with `-`), else a quoted phrase.
 */
export const printText = (text: string) =>
  plain(text, `"\\:${groupCharacters}`) && !text.startsWith('-') && !(operators as readonly string[]).includes(text)
    ? text
    : quote(text);

/** A custom field's value in a list: quoted too where bare it would read as a comparison (`">3"`, `"1..5"`). */
const printCustomValue = (value: string) => (/^[<>]/.test(value) || value.includes('..') ? quote(value) : printValue(value));

/** A free value in a list (a label name): bare unless it holds a space, a comma, a quote, a backslash or a parenthesis. */
export const printValue = (value: string) => (plain(value, `"\\,${groupCharacters}`) ? value : quote(value));

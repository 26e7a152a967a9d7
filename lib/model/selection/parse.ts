import { ValidationError } from '../../vocabulary/errors.ts';
import type { Condition, FieldCondition, NegatableCondition, Selection, SelectionSort } from '../../schemas/selection.ts';
import type { IssuePriority } from '../../schemas/issues.ts';
import {
  hasValues,
  isRelative,
  isSpace,
  issuePriorities,
  issueTypes,
  isValues,
  noFields,
  operators,
  pullRequestStates,
  qualifiers,
  rangeIsEmpty,
  relativePattern,
  selectionLimits,
  sortFields,
  type Operator,
  type Qualifier,
} from '../../vocabulary/selection.ts';
import { isCalendarDate } from '../../schemas/common.ts';
import { MAX_NESTING } from '../../vocabulary/nesting.ts';
import { categoryWords, stateLimits, statusKey, type StateCategory } from '../../vocabulary/workflow.ts';
import { fieldLimits, FIELD_KEY } from '../../vocabulary/custom-fields.ts';

/** A value of a qualifier as written: its text (quotes and escapes removed) and its 0-based place. */
interface Value {
  text: string;
  at: number;
  /** Whether it was written in quotes (`cf.<key>:">3"` is the text, not a comparison). */
  quoted?: boolean;
}

type Comparison<T> = { eq?: T; gt?: T; gte?: T; lt?: T; lte?: T };

/** A condition read, with the place it starts at and how deeply its groups nest (0: none). */
interface Read {
  condition: Condition;
  at: number;
  depth: number;
}

/**
 * Reads a query string in the selection grammar (docs/search.md) into its JSON form. Anything it
 * cannot read is a ValidationError (422) with one message, `<field>: at <n>: <what was expected>`,
 * n the 1-based place (in Unicode characters) of the term or value at fault, always within the
 * query; no other exception escapes, whatever the input.
 *
 * Terms side by side (or joined by `AND`) must all hold, terms joined by `OR` one of them; AND
 * binds tighter than OR (`a b OR c` is `(a b) OR c`), as in GitHub's advanced search. `-` or `NOT`
 * negates the term or parenthesised group after it. `sort:` orders the whole query: it stands
 * outside parentheses, anywhere.
 *
 * @param field the name the message gives the query (`q`, a webhook's `filter`)
 */
export function parseSelection(query: string, field = 'q'): Selection {
  return new Parser(Array.from(query), field).selection();
}

const lower = (s: string) => s.toLowerCase();
/** What a custom field's qualifier starts with: `cf.severity:high`. */
const customPrefix = 'cf.';
const quoted = (list: readonly string[]) => list.join(', ');

class Parser {
  private i = 0;
  private readonly cs: string[];
  private readonly field: string;
  /** Conditions on a field read so far (the bound counts them across groups). */
  private terms = 0;
  /** The `sort:` read, if any. */
  private order: SelectionSort | undefined;

  constructor(cs: string[], field: string) {
    this.cs = cs;
    this.field = field;
  }

  private fail(at: number, message: string): never {
    throw new ValidationError([`${this.field}: at ${at + 1}: ${message}`]);
  }

  private get done() {
    return this.i >= this.cs.length;
  }

  /** Whether the character at `i` ends a term: a space, a `)` closing a group, or the end. */
  private atBoundary(i = this.i) {
    return i >= this.cs.length || isSpace(this.cs[i]!) || this.cs[i] === ')';
  }

  private skipSpaces() {
    while (!this.done && isSpace(this.cs[this.i]!)) this.i++;
  }

  /** The operator (`AND`, `OR`, `NOT`, upper case, a word of its own) at `i`, if one stands there. */
  private operatorAt(i = this.i): Operator | undefined {
    for (const op of operators) {
      const end = i + op.length;
      if (this.cs.slice(i, end).join('') === op && (this.atBoundary(end) || this.cs[end] === '(')) return op;
    }
    return undefined;
  }

  selection(): Selection {
    if (this.cs.length > selectionLimits.characters)
      this.fail(
        selectionLimits.characters,
        `the query is longer than ${selectionLimits.characters.toLocaleString('en')} characters (${this.cs.length.toLocaleString('en')})`,
      );
    const branches = this.disjunction(0);
    if (this.cs[this.i] === ')') this.fail(this.i, 'unmatched \')\' (to search for a parenthesis, quote it: ")")');
    // One branch: its terms are the selection's. Several: the selection is their OR.
    const and = branches.length === 1 ? branches[0]!.map((r) => r.condition) : [this.groupOf(branches, 0).condition];
    return this.order ? { and, sort: this.order } : { and };
  }

  /**
   * Terms up to a `)` or the end: runs of terms (ANDed), separated by `OR`. `level`: the
   * parentheses around (0 at the top, where `sort:` may stand).
   */
  private disjunction(level: number): Read[][] {
    const branches: Read[][] = [];
    let branch: Read[] = [];
    /** The `AND` or `OR` just read, which a term must follow. */
    let pending: { op: Operator; at: number } | undefined;
    let lastOr = 0;
    for (;;) {
      this.skipSpaces();
      if (this.done || this.cs[this.i] === ')') break;
      const at = this.i;
      const op = this.operatorAt();
      if (op === 'AND' || op === 'OR') {
        if (pending) this.fail(pending.at, `expected a term after '${pending.op}'${this.quoteHint(op)}`);
        if (branch.length === 0) this.fail(at, `expected a term before '${op}'${this.quoteHint(op)}`);
        if (op === 'OR') {
          branches.push(branch);
          branch = [];
          lastOr = at;
        }
        pending = { op, at };
        this.i += op.length;
        continue;
      }
      const read = this.unary(level);
      pending = undefined;
      if (read) branch.push(read);
    }
    if (pending) this.fail(pending.at, `expected a term after '${pending.op}'${this.quoteHint(pending.op)}`);
    // `a OR sort:x`: the OR has no condition after it.
    if (branch.length === 0 && branches.length > 0) this.fail(lastOr, "expected a term after 'OR' ('sort:' is not one)");
    branches.push(branch);
    return branches;
  }

  private quoteHint(op: Operator) {
    return ` (to search for the word, quote it: "${op}")`;
  }

  /** A group of the branches of a disjunction: their OR, each branch of several terms an AND; one term alone is itself. */
  private groupOf(branches: Read[][], at: number): Read {
    const parts = branches.map((b) => (b.length === 1 ? b[0]! : this.node('and', b, b[0]!.at)));
    return parts.length === 1 ? parts[0]! : this.node('or', parts, at);
  }

  private node(op: 'and' | 'or', parts: Read[], at: number): Read {
    const depth = 1 + Math.max(...parts.map((p) => p.depth));
    if (depth > selectionLimits.depth)
      this.fail(
        at,
        `groups nested more than ${selectionLimits.depth} deep (at most ${selectionLimits.depth}: parentheses, and terms joined by OR)`,
      );
    const conditions = parts.map((p) => p.condition);
    return { condition: op === 'and' ? { and: conditions } : { or: conditions }, at, depth };
  }

  /** A term or a group, negated or not; undefined for `sort:` (kept aside: it orders the whole query). */
  private unary(level: number): Read | undefined {
    const start = this.i;
    const negated = this.negation();
    // After `-`, a `-` starts a word (`--x` is "not the text -x"); after `NOT`, it is a negation.
    if ((negated === 'NOT' && this.cs[this.i] === '-') || (negated && this.operatorAt() === 'NOT'))
      this.fail(this.i, 'a negation cannot be negated (leave both out)');
    if (negated && (this.operatorAt() === 'AND' || this.operatorAt() === 'OR'))
      this.fail(this.i, `expected a term after the negation${this.quoteHint(this.operatorAt()!)}`);
    const at = this.i;
    const read = this.primary(level);
    if ('sort' in read) {
      if (negated) this.fail(start, "'sort:' cannot be negated");
      if (level > 0) this.fail(at, "'sort:' orders the whole query: put it outside the parentheses");
      if (this.order) this.fail(at, "'sort:' given twice (one order per query)");
      this.order = read.sort;
      return undefined;
    }
    if (!negated) return read;
    // `-(-x)`: the group is a negation itself.
    if (read.condition.not !== undefined) this.fail(start, 'a negation cannot be negated (leave both out)');
    return { condition: { not: read.condition as NegatableCondition }, at: start, depth: read.depth };
  }

  /** Reads `-` (before a term) or `NOT` (a word), if one stands here: which one did. */
  private negation(): '-' | 'NOT' | undefined {
    const at = this.i;
    if (this.cs[at] === '-') {
      if (this.atBoundary(at + 1)) this.fail(at, "expected a qualifier or text after '-'");
      this.i++;
      return '-';
    }
    if (this.operatorAt() === 'NOT') {
      this.i += 3;
      this.skipSpaces();
      if (this.atBoundary()) this.fail(at, "expected a term after 'NOT'");
      return 'NOT';
    }
    return undefined;
  }

  /** A parenthesised group, or one term (`sort:` too, which the caller puts aside). */
  private primary(level: number): Read | { sort: SelectionSort } {
    const start = this.i;
    if (this.cs[start] === '(') {
      // Redundant parentheses make no group, but each is read by a call of its own: bounded before recursing.
      if (level === MAX_NESTING) this.fail(start, `parentheses nested more than ${MAX_NESTING} deep (at most ${MAX_NESTING})`);
      this.i++;
      const branches = this.disjunction(level + 1);
      if (this.done) this.fail(start, "unclosed '(' (a group ends with ')')");
      this.i++;
      if (!this.atBoundary()) this.fail(this.i, "expected a space after ')'");
      if (branches.length === 1 && branches[0]!.length === 0) this.fail(start, "expected a term between '(' and ')'");
      return this.groupOf(branches, start);
    }
    const term = this.term();
    if ('sort' in term) return term;
    if (this.terms === selectionLimits.terms)
      this.fail(start, `more than ${selectionLimits.terms} terms (at most ${selectionLimits.terms}, 'sort:' not counted)`);
    this.terms++;
    return { condition: term.condition, at: start, depth: 0 };
  }

  /** One term without its `-`: a quoted phrase, a qualifier, or a bare word. */
  private term(): { condition: FieldCondition } | { sort: SelectionSort } {
    if (this.cs[this.i] === '"') {
      const at = this.i;
      const text = this.quotedText();
      if (text === '') this.fail(at, 'expected text between the quotes');
      if (!this.atBoundary()) this.fail(this.i, 'expected a space after the closing quote');
      return { condition: { title: { contains: text } } };
    }
    const start = this.i;
    while (!this.atBoundary() && !'":('.includes(this.cs[this.i]!)) this.i++;
    const word = this.cs.slice(start, this.i).join('');
    if (this.cs[this.i] === '"') this.fail(this.i, "unexpected '\"' inside a word (put the whole phrase in quotes)");
    if (this.cs[this.i] === '(') this.fail(this.i, "unexpected '(' inside a word (put the whole phrase in quotes)");
    if (this.cs[this.i] !== ':') return { condition: { title: { contains: word } } };
    if (word === '') this.fail(start, "expected a qualifier name before ':'");
    this.i++;
    return this.qualifier(word, start);
  }

  /** A quoted phrase from its opening quote: `\"` and `\\` stand for `"` and `\`. */
  private quotedText(): string {
    const open = this.i++;
    let text = '';
    while (!this.done) {
      const ch = this.cs[this.i]!;
      const next = this.cs[this.i + 1];
      if (ch === '\\' && (next === '"' || next === '\\')) {
        text += next;
        this.i += 2;
      } else if (ch === '"') {
        this.i++;
        return text;
      } else {
        text += ch;
        this.i++;
      }
    }
    return this.fail(open, "unterminated quote (a quoted phrase ends with '\"')");
  }

  /** The comma-separated values after `name:`: bare (up to a space, comma or quote) or quoted. */
  private values(name: string, nameAt: number): Value[] {
    const values: Value[] = [];
    let commaAt = -1;
    for (;;) {
      const at = this.i;
      if (this.atBoundary())
        this.fail(
          commaAt >= 0 ? commaAt : nameAt,
          commaAt >= 0 ? "expected a value after ','" : `expected a value after '${name}:'`,
        );
      if (this.cs[at] === ',') this.fail(at, "expected a value before ','");
      let text: string;
      const quotedValue = this.cs[at] === '"';
      if (quotedValue) {
        text = this.quotedText();
        if (text === '') this.fail(at, 'expected a value between the quotes');
      } else {
        while (!this.atBoundary() && !',"('.includes(this.cs[this.i]!)) this.i++;
        text = this.cs.slice(at, this.i).join('');
        if (this.cs[this.i] === '"') this.fail(this.i, "unexpected '\"' inside a value (put the whole value in quotes)");
        if (this.cs[this.i] === '(') this.fail(this.i, "unexpected '(' inside a value (put the whole value in quotes)");
      }
      values.push(quotedValue ? { text, at, quoted: true } : { text, at });
      if (this.cs[this.i] === ',') {
        commaAt = this.i++;
        continue;
      }
      if (!this.atBoundary()) this.fail(this.i, "expected ',' or a space after the closing quote");
      return values;
    }
  }

  private single(name: string, values: Value[], takes: string): Value {
    if (values.length > 1) this.fail(values[1]!.at - 1, `'${name}:' takes one value: ${takes}`);
    return values[0]!;
  }

  private qualifier(written: string, nameAt: number): { condition: FieldCondition } | { sort: SelectionSort } {
    const name = lower(written);
    if (name.startsWith(customPrefix)) {
      const key = this.fieldKey(written.slice(customPrefix.length), nameAt + customPrefix.length);
      return { condition: { cf: this.customTest(key, written, this.values(written, nameAt)) } };
    }
    if (!(qualifiers as readonly string[]).includes(name))
      this.fail(nameAt, `unknown qualifier '${written}' (known: ${quoted(qualifiers)}, cf.<field key>)`);
    const q = name as Qualifier;
    const values = this.values(written, nameAt);
    const c = (condition: FieldCondition) => ({ condition });
    switch (q) {
      case 'project':
        return c({ project: { in: values.map((v) => this.prefix(v)) } });
      case 'sprint':
        return c({ sprint: { in: values.map((v) => this.sprint(v)) } });
      case 'status':
        return c({ status: { in: values.map((v) => this.stateName(v)) } });
      case 'category':
        return c({ category: { in: values.map((v) => this.category(v)) } });
      case 'is':
        return c({ is: this.word(this.single(written, values, quoted(isValues)), "'is:' value", isValues) });
      case 'assignee':
        return c({ assignee: { in: values.map((v) => this.account(v, true)) } });
      case 'author':
        return c({ author: { in: values.map((v) => this.account(v, false) as number | '@me') } });
      case 'label':
        return c({ label: { in: values.map((v) => v.text) } });
      case 'priority':
        return c({ priority: this.priority(written, values) });
      case 'type':
        return c({ type: { in: values.map((v) => this.word(v, 'type', issueTypes)) } });
      case 'parent':
        return c({ parent: { in: values.map((v) => (lower(v.text) === 'none' ? null : this.id(v, 'an issue id or none'))) } });
      case 'points': {
        const v = this.single(written, values, 'a number (3), a comparison (>=3) or a range (1..5)');
        return c({ points: this.comparison(v, (text, at) => this.count(text, at)) });
      }
      case 'created':
      case 'updated':
      case 'due': {
        const test = this.dates(q, this.single(written, values, 'a date, a comparison (>2026-11-01, >-7d) or a range'));
        return c(q === 'created' ? { created: test } : q === 'updated' ? { updated: test } : { due: test });
      }
      case 'has': {
        const v = this.single(written, values, `${quoted(hasValues)} or cf.<field key>`);
        const field = this.customRef(v);
        if (field !== undefined) return c({ cf: { key: field, has: true } });
        return c({ has: this.word(v, "'has:' value", hasValues) });
      }
      case 'pr':
        return c({ pr: { in: values.map((v) => this.word(v, 'pull request state', pullRequestStates)) } });
      case 'no':
        return c(this.no(this.single(written, values, quoted(noFields))));
      case 'sort':
        return { sort: this.sort(this.single(written, values, `one of ${quoted(sortFields)}, with -asc or -desc`)) };
    }
  }

  /**
   * A state's name, as answers give it (`"In review"` -> `in_review`, lib/vocabulary/workflow.ts:
   * `statusKey`): whether a project has it is the reader's to say (lib/services/search.ts).
   */
  private stateName(v: Value): string {
    const key = statusKey(v.text);
    if (key === '') this.fail(v.at, `expected a state name, not '${v.text}'`);
    if ([...v.text].length > stateLimits.name) this.fail(v.at, `a state name has at most ${stateLimits.name} characters`);
    return key;
  }

  private category(v: Value): StateCategory {
    const word = lower(v.text);
    // Own words only: `__proto__` or `constructor` name no category, whatever an object inherits.
    const category = Object.hasOwn(categoryWords, word) ? categoryWords[word] : undefined;
    if (!category) this.fail(v.at, `unknown category '${v.text}' (known: ${quoted(Object.keys(categoryWords))})`);
    return category;
  }

  private word<T extends string>(v: Value, what: string, known: readonly T[]): T {
    const w = lower(v.text);
    if (!(known as readonly string[]).includes(w)) this.fail(v.at, `unknown ${what} '${v.text}' (known: ${quoted(known)})`);
    return w as T;
  }

  private id(v: Value, expected: string): number {
    const n = /^\d{1,16}$/.test(v.text) ? Number(v.text) : Number.NaN;
    if (!(n >= 1 && n <= Number.MAX_SAFE_INTEGER)) this.fail(v.at, `expected ${expected}, got '${v.text}'`);
    return n;
  }

  private prefix(v: Value): string {
    if (!/^[A-Za-z0-9]{2,4}$/.test(v.text))
      this.fail(v.at, `expected a project prefix (2 to 4 letters or digits), got '${v.text}'`);
    return v.text.toUpperCase();
  }

  private sprint(v: Value): number | 'active' | null {
    const w = lower(v.text);
    if (w === 'active') return 'active';
    if (w === 'none') return null;
    return this.id(v, 'a sprint id, active or none');
  }

  private account(v: Value, orNone: boolean): number | '@me' | null {
    const w = lower(v.text);
    if (w === '@me') return '@me';
    if (orNone && w === 'none') return null;
    return this.id(v, orNone ? 'an account id, @me or none' : 'an account id or @me');
  }

  private count(text: string, at: number): number {
    const n = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
    if (!(n <= Number.MAX_SAFE_INTEGER)) this.fail(at, `expected a whole number, got '${text}'`);
    return n;
  }

  /**
   * `v`, `>v`, `>=v`, `<v`, `<=v` or `a..b` (both ends included), each end read by `scalar`.
   * A range that can match nothing (`5..1`) is refused.
   */
  private comparison<T extends string | number>(v: Value, scalar: (text: string, at: number) => T): Comparison<T> {
    const t = v.text;
    const op = /^(>=|<=|>|<)/.exec(t)?.[1];
    if (op) {
      const rest = t.slice(op.length);
      if (rest === '') this.fail(v.at, `expected a value after '${op}'`);
      const value = scalar(rest, v.at);
      return op === '>=' ? { gte: value } : op === '<=' ? { lte: value } : op === '>' ? { gt: value } : { lt: value };
    }
    const dots = t.indexOf('..');
    if (dots < 0) return { eq: scalar(t, v.at) };
    const [from, to] = [t.slice(0, dots), t.slice(dots + 2)];
    if (from === '' || to === '') this.fail(v.at, `a range needs both ends, e.g. 1..5 (got '${t}'; for one end write >= or <=)`);
    const range = { gte: scalar(from, v.at), lte: scalar(to, v.at) };
    if (rangeIsEmpty(range.gte, range.lte)) this.fail(v.at, `the range '${t}' is empty: its start is after its end`);
    return range;
  }

  private priority(name: string, values: Value[]): Comparison<IssuePriority> & { in?: IssuePriority[] } {
    const first = values[0]!;
    if (values.length === 1 && (/^[<>]/.test(first.text) || first.text.includes('..'))) {
      return this.comparison(first, (text, at) => this.word({ text, at }, 'priority', issuePriorities));
    }
    for (const v of values)
      if (/^[<>]/.test(v.text) || v.text.includes('..'))
        this.fail(v.at, `'${name}:' takes a list of priorities or one comparison, not both`);
    return { in: values.map((v) => this.word(v, 'priority', issuePriorities)) };
  }

  /** A date (YYYY-MM-DD, UTC) or a relative time (-7d, +2w; kept relative), in a comparison or range. */
  private dates(q: 'created' | 'updated' | 'due', v: Value): Comparison<string> {
    const c = this.comparison(v, (text, at) => {
      const t = lower(text);
      if (isCalendarDate(text)) return text;
      const m = relativePattern.exec(t);
      if (m) return `${m[1]}${Number(m[2])}${m[3]}`;
      return this.fail(
        at,
        `expected a date (YYYY-MM-DD) or a relative time such as -7d (a sign, 1 to 4 digits, h/d/w/m), got '${text}'`,
      );
    });
    if (q !== 'due' && c.eq !== undefined && isRelative(c.eq))
      this.fail(v.at, `a relative time needs a comparison or a range, e.g. '${q}:>${c.eq}'`);
    return c;
  }

  /** The key after `cf.` (any case), 422 for one no field could have. */
  private fieldKey(written: string, at: number): string {
    const key = lower(written);
    if (!FIELD_KEY.test(key) || key.length > fieldLimits.key)
      this.fail(
        at,
        `expected a custom field's key after 'cf.' (letters, digits and _, starting with a letter, at most ${fieldLimits.key}), got '${written}'`,
      );
    return key;
  }

  /** The field a `has:` or `no:` value names (`cf.severity`), if it names one. */
  private customRef(v: Value): string | undefined {
    if (!lower(v.text).startsWith(customPrefix)) return undefined;
    return this.fieldKey(v.text.slice(customPrefix.length), v.at + customPrefix.length);
  }

  /**
   * `cf.<key>:` values: a list of texts (`high`, `"Acme Corp"`, `3`, `2026-12-01`, `me`, `true`),
   * or one comparison or range of numbers or dates (`>3`, `1..5`, `<=-7d`). What the texts mean
   * is the type's of each project's field of that key (lib/model/selection/evaluate.ts).
   */
  private customTest(key: string, name: string, values: Value[]) {
    const isComparison = (v: Value) => !v.quoted && (/^[<>]/.test(v.text) || v.text.includes('..'));
    const first = values[0]!;
    if (values.length === 1 && isComparison(first)) {
      const c = this.comparison(first, (text, at) => this.customBound(text, at));
      if (c.eq !== undefined) return { key, in: [first.text] };
      if (c.gte !== undefined && c.lte !== undefined && typeof c.gte !== typeof c.lte)
        this.fail(first.at, `a range's ends must both be numbers or both dates, got '${first.text}'`);
      return { key, ...c };
    }
    for (const v of values) if (isComparison(v)) this.fail(v.at, `'${name}:' takes a list of values or one comparison, not both`);
    return { key, in: values.map((v) => v.text) };
  }

  /** An end of a `cf.<key>:` comparison: a number (3, -1.5) or a date (YYYY-MM-DD, -7d). */
  private customBound(text: string, at: number): number | string {
    if (/^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(text)) {
      const n = Number(text);
      if (!(Math.abs(n) <= fieldLimits.number))
        this.fail(at, `a number is at most ${fieldLimits.number} either way, got '${text}'`);
      return n === 0 ? 0 : n;
    }
    const m = relativePattern.exec(lower(text));
    if (m) return `${m[1]}${Number(m[2])}${m[3]}`;
    if (isCalendarDate(text)) return text;
    return this.fail(at, `expected a number or a date (YYYY-MM-DD, or a relative time such as -7d), got '${text}'`);
  }

  private no(v: Value): FieldCondition {
    const field = this.customRef(v);
    if (field !== undefined) return { cf: { key: field, has: false } };
    const f = this.word(v, "'no:' field", noFields);
    switch (f) {
      case 'assignee':
        return { assignee: { in: [null] } };
      case 'parent':
        return { parent: { in: [null] } };
      case 'sprint':
        return { sprint: { in: [null] } };
      case 'label':
        return { label: { null: true } };
      case 'points':
        return { points: { null: true } };
      case 'due':
        return { due: { null: true } };
    }
  }

  private sort(v: Value): SelectionSort {
    const m = /^([a-z]+)(?:-(asc|desc))?$/.exec(lower(v.text));
    const field = m?.[1];
    if (!m || !field || !(sortFields as readonly string[]).includes(field))
      this.fail(v.at, `unknown sort '${v.text}' (known: ${sortFields.map((f) => `${f}-asc, ${f}-desc`).join(', ')})`);
    return { field: field as SelectionSort['field'], order: (m[2] ?? 'desc') as SelectionSort['order'] };
  }
}

import type { IssuePriority, IssueStatus, IssueType } from '../../schemas/issues.ts';
import type { Condition, FieldCondition, Selection, SelectionSort } from '../../schemas/selection.ts';
import { isClosed } from '../derivations.ts';
import { statusKey } from '../../vocabulary/workflow.ts';
import { fieldTestOf, nodeOf, type FieldTest } from './conditions.ts';
import {
  isDateValue,
  priorityRank,
  pullRequestStates,
  relativeOffsetMs,
  type PullRequestState,
} from '../../vocabulary/selection.ts';
import type { SelectableValue } from '../custom-fields.ts';

/** What the evaluator reads of an issue: plain values, whatever store they come from. */
export interface SelectableIssue {
  id: number;
  title: string;
  /** The prefix of the issue's project (`APL`). */
  project_prefix: string;
  /** null: the project backlog. */
  sprint_id: number | null;
  /** Its state's category: what `category:` and `is:open`/`is:closed` read. */
  status: IssueStatus;
  /** Its state's name as answers give it (`status`, e.g. `in_review`); absent: its category's own state. */
  state?: string | undefined;
  assignee_id: number | null;
  author_id: number;
  /** Names of the issue's labels. */
  labels: readonly string[];
  priority: IssuePriority;
  type: IssueType;
  parent_id: number | null;
  story_points: number | null;
  /** ISO 8601 date-times. */
  created_at: string;
  updated_at: string;
  /** YYYY-MM-DD, or null. */
  due_date: string | null;
  /** Whether an open issue blocks it. */
  blocked: boolean;
  /** The key it had in the source it was imported from (`DI-127`): text equal to it finds it. */
  source_key?: string | null | undefined;
  /** Its own key (`SD-5`): text equal to it (any case) finds it. */
  issue_number?: string | undefined;
  /** How many of its linked pull requests are in each state (`has:pr`, `pr:`); absent (or a state absent): none. */
  pull_requests?: Readonly<Partial<Record<PullRequestState, number>>> | undefined;
  /**
   * Its project's custom fields by key, each with its type and value (`cf.<key>:`;
   * lib/model/custom-fields.ts: `selectableValues`); absent, or a key absent: no such field.
   */
  custom_fields?: Readonly<Record<string, SelectableValue>> | undefined;
}

/** What a selection is read against: the caller (`@me`), the time relative times count from, and which sprints are active. */
export interface SelectionContext {
  me: number;
  now: Date;
  activeSprintIds: ReadonlySet<number>;
}

type Test = (issue: SelectableIssue) => boolean;
type Comparison<T> = { eq?: T; gt?: T; gte?: T; lt?: T; lte?: T };

const DAY_MS = 86_400_000;
const lower = (s: string) => s.toLowerCase();

/**
 * A predicate for `selection` in `context`: every condition holds, a group's as its `and` or `or`
 * says (docs/search.md). Values that
 * depend on the context (`@me`, relative times, active sprints) and lower-cased texts are worked out
 * once, so that testing many issues costs only the comparisons. `selection` is one that
 * `parseSelection` or `validateSelection` returned (lib/model/selection.ts).
 */
export function selectionMatcher(selection: Selection, context: SelectionContext): Test {
  const tests = selection.and.map((c) => conditionTest(c, context));
  return (issue) => tests.every((t) => t(issue));
}

/** Whether `issue` is selected by `selection` in `context`. */
export function matches(selection: Selection, issue: SelectableIssue, context: SelectionContext): boolean {
  return selectionMatcher(selection, context)(issue);
}

/** A condition's test: a field's, or that of a group (all of its conditions hold, or one) or of a negation. */
function conditionTest(condition: Condition, context: SelectionContext): Test {
  const node = nodeOf(condition);
  switch (node.kind) {
    case 'field':
      return fieldTest(node.condition, context);
    case 'not': {
      const inner = conditionTest(node.condition, context);
      return (issue) => !inner(issue);
    }
    case 'and': {
      const tests = node.conditions.map((c) => conditionTest(c, context));
      return (issue) => tests.every((t) => t(issue));
    }
    case 'or': {
      const tests = node.conditions.map((c) => conditionTest(c, context));
      return (issue) => tests.some((t) => t(issue));
    }
  }
}

/** Every end of a comparison must hold; `lt`/`gte` take the first instant of a value, `gt`/`lte` the one after it. */
function compare<T>(c: Comparison<T>, lowOf: (v: T) => number, highOf: (v: T) => number): (x: number) => boolean {
  const checks: ((x: number) => boolean)[] = [];
  if (c.eq !== undefined) {
    const [lo, hi] = [lowOf(c.eq), highOf(c.eq)];
    checks.push((x) => x >= lo && x < hi);
  }
  if (c.gt !== undefined) {
    const hi = highOf(c.gt);
    checks.push((x) => x >= hi);
  }
  if (c.gte !== undefined) {
    const lo = lowOf(c.gte);
    checks.push((x) => x >= lo);
  }
  if (c.lt !== undefined) {
    const lo = lowOf(c.lt);
    checks.push((x) => x < lo);
  }
  if (c.lte !== undefined) {
    const hi = highOf(c.lte);
    checks.push((x) => x < hi);
  }
  return (x) => checks.every((check) => check(x));
}

/** Whole numbers (points, priority ranks): the value after n is n + 1. */
const numeric = <T>(c: Comparison<T>, valueOf: (v: T) => number) => compare(c, valueOf, (v) => valueOf(v) + 1);

/**
 * Dates and times as instants (ms): a calendar day spans [its UTC midnight, the next one); a
 * relative time is one instant, `now` moved by it.
 */
function instants(c: Comparison<string>, now: number) {
  const start = (v: string) => {
    const offset = relativeOffsetMs(v);
    return offset !== undefined ? now + offset : Date.parse(`${v}T00:00:00.000Z`);
  };
  const end = (v: string) => start(v) + (relativeOffsetMs(v) !== undefined ? 1 : DAY_MS);
  return compare(c, start, end);
}

/** Due dates are days: a relative time stands for the UTC day it falls on. */
function days(c: Comparison<string>, now: number) {
  const day = (v: string) => {
    const offset = relativeOffsetMs(v);
    const d = offset !== undefined ? new Date(now + offset).toISOString().slice(0, 10) : v;
    return Date.parse(`${d}T00:00:00.000Z`);
  };
  return compare(c, day, (v) => day(v) + DAY_MS);
}

function fieldTest(condition: FieldCondition, context: SelectionContext): Test {
  const t = fieldTestOf(condition);
  return (
    placeTest(t, context) ??
    peopleTest(t, context) ??
    rangeTest(t, context.now.getTime()) ??
    pullRequestTest(t) ??
    customFieldTest(t, context) ??
    (() => false)
  );
}

/** What an issue says and where it is: its title or key, project, sprint, state, category, openness. */
function placeTest(t: FieldTest, context: SelectionContext): Test | undefined {
  switch (t.field) {
    case 'title': {
      const text = lower(t.test.contains);
      // An issue is found by its own key too (`SD-5`), and an imported one by its key in the source (`DI-127`): the whole key.
      return (issue) =>
        lower(issue.title).includes(text) ||
        (typeof issue.source_key === 'string' && lower(issue.source_key) === text) ||
        (typeof issue.issue_number === 'string' && lower(issue.issue_number) === text);
    }
    case 'project': {
      const prefixes = new Set(t.test.in);
      return (issue) => prefixes.has(issue.project_prefix.toUpperCase());
    }
    case 'sprint': {
      const ids = new Set(t.test.in.filter((v) => typeof v === 'number'));
      const active = t.test.in.includes('active');
      const backlog = t.test.in.includes(null);
      return ({ sprint_id: s }) => (s === null ? backlog : ids.has(s) || (active && context.activeSprintIds.has(s)));
    }
    case 'status': {
      // A state's name in any case, spaces or punctuation: names are unique in a project under it.
      const names = new Set(t.test.in.map(statusKey));
      return (issue) => names.has(issue.state ?? issue.status);
    }
    case 'category': {
      const categories = new Set<string>(t.test.in);
      return (issue) => categories.has(issue.status);
    }
    case 'is':
      switch (t.test) {
        case 'open':
          return (issue) => !isClosed(issue.status);
        case 'closed':
          return (issue) => isClosed(issue.status);
        case 'blocked':
          return (issue) => issue.blocked;
      }
  }
  return undefined;
}

/** Who and what kind: assignee, author, labels, type, parent. */
function peopleTest(t: FieldTest, context: SelectionContext): Test | undefined {
  switch (t.field) {
    case 'assignee': {
      const ids = new Set(t.test.in.map((v) => (v === '@me' ? context.me : v)));
      return (issue) => ids.has(issue.assignee_id);
    }
    case 'author': {
      const ids = new Set(t.test.in.map((v) => (v === '@me' ? context.me : v)));
      return (issue) => ids.has(issue.author_id);
    }
    case 'label': {
      if (t.test.in === undefined) return (issue) => issue.labels.length === 0;
      const names = new Set(t.test.in.map(lower));
      return (issue) => issue.labels.some((l) => names.has(lower(l)));
    }
    case 'type': {
      const types = new Set<string>(t.test.in);
      return (issue) => types.has(issue.type);
    }
    case 'parent': {
      const ids = new Set(t.test.in);
      return (issue) => ids.has(issue.parent_id);
    }
  }
  return undefined;
}

/** Values on a scale: priority, points, times, the due day. */
function rangeTest(t: FieldTest, now: number): Test | undefined {
  switch (t.field) {
    case 'priority': {
      if (t.test.in !== undefined) {
        const ps = new Set<string>(t.test.in);
        return (issue) => ps.has(issue.priority);
      }
      const within = numeric(t.test, priorityRank);
      return (issue) => within(priorityRank(issue.priority));
    }
    case 'points': {
      if (t.test.null) return (issue) => issue.story_points === null;
      const within = numeric(t.test, (v: number) => v);
      return (issue) => issue.story_points !== null && within(issue.story_points);
    }
    case 'created': {
      const within = instants(t.test, now);
      return (issue) => within(Date.parse(issue.created_at));
    }
    case 'updated': {
      const within = instants(t.test, now);
      return (issue) => within(Date.parse(issue.updated_at));
    }
    case 'due': {
      if (t.test.null) return (issue) => issue.due_date === null;
      const within = days(t.test, now);
      return (issue) => issue.due_date !== null && within(Date.parse(`${issue.due_date}T00:00:00.000Z`));
    }
  }
  return undefined;
}

/** Whether an issue has a linked pull request in `state`. */
const hasPullRequest = (issue: SelectableIssue, state: PullRequestState) => (issue.pull_requests?.[state] ?? 0) > 0;

/** Its linked pull requests: any (`has:pr`), or in one of some states (`pr:`). */
function pullRequestTest(t: FieldTest): Test | undefined {
  switch (t.field) {
    case 'has':
      // `pr`, the one thing `has:` tells: a pull request in any state.
      return (issue) => pullRequestStates.some((state) => hasPullRequest(issue, state));
    case 'pr': {
      const states = [...new Set(t.test.in)];
      return (issue) => states.some((state) => hasPullRequest(issue, state));
    }
  }
  return undefined;
}

type CustomTest = Extract<FieldTest, { field: 'cf' }>['test'];
/** A number as `cf.<key>:` writes one: an optional `-`, digits, an optional fraction and exponent. */
const numberText = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const numberOf = (text: string) => (numberText.test(text) ? Number(text) : undefined);
const dayOf = (date: string) => Date.parse(`${date}T00:00:00.000Z`);

/**
 * A custom field's test, by its key (docs/search.md#custom-fields): the issue's project's field of
 * that key, read as its type says. An issue whose project has no such field never matches.
 */
function customFieldTest(t: FieldTest, context: SelectionContext): Test | undefined {
  if (t.field !== 'cf') return undefined;
  const { key } = t.test;
  const valueTest = customValueTest(t.test, context);
  return (issue) => {
    const field =
      issue.custom_fields !== undefined && Object.hasOwn(issue.custom_fields, key) ? issue.custom_fields[key] : undefined;
    return field !== undefined && valueTest(field);
  };
}

/** Whether a field holds a value: null is none, and so is a checkbox's false. */
const hasValue = (f: SelectableValue) => f.value !== null && f.value !== false;

function customValueTest(test: CustomTest, context: SelectionContext): (field: SelectableValue) => boolean {
  const now = context.now.getTime();
  if (test.has !== undefined) {
    const wanted = test.has;
    return (f) => hasValue(f) === wanted;
  }
  if (test.in === undefined) {
    // A comparison: of a number field's value with numbers, of a date field's day with dates.
    const bounds = [test.gt, test.gte, test.lt, test.lte].filter((b) => b !== undefined);
    if (bounds.every((b) => typeof b === 'number')) {
      const within = exactNumbers(test as Comparison<number>);
      return (f) => f.type === 'number' && typeof f.value === 'number' && within(f.value);
    }
    if (bounds.every((b) => typeof b === 'string')) {
      const within = days(test as Comparison<string>, now);
      return (f) => f.type === 'date' && typeof f.value === 'string' && within(dayOf(f.value));
    }
    return () => false;
  }
  const texts = test.in;
  const lowered = texts.map(lower);
  const numbers = texts.map(numberOf).filter((n) => n !== undefined);
  const accounts = new Set(
    lowered.map((v) => (v === 'me' || v === '@me' ? context.me : numberOf(v))).filter((n) => n !== undefined),
  );
  const dayTests = texts.filter(isDateValue).map((v) => days({ eq: v }, now));
  const checks = new Set(lowered.filter((v) => v === 'true' || v === 'false'));
  return (f) => {
    const v = f.value;
    switch (f.type) {
      case 'select':
        return typeof v === 'string' && lowered.includes(lower(v));
      case 'multi_select':
        return Array.isArray(v) && v.some((name) => lowered.includes(lower(name)));
      case 'text':
      case 'url':
        return typeof v === 'string' && lowered.some((w) => lower(v).includes(w));
      case 'number':
        return typeof v === 'number' && numbers.includes(v);
      case 'account':
        return typeof v === 'number' && accounts.has(v);
      case 'date':
        return typeof v === 'string' && dayTests.some((within) => within(dayOf(v)));
      case 'checkbox':
        return checks.has(v === true ? 'true' : 'false');
    }
  };
}

/** A number field's values need not be whole: each bound is compared with the value itself. */
function exactNumbers(c: Comparison<number>): (x: number) => boolean {
  return (x) =>
    (c.gt === undefined || x > c.gt) &&
    (c.gte === undefined || x >= c.gte) &&
    (c.lt === undefined || x < c.lt) &&
    (c.lte === undefined || x <= c.lte);
}

/** The order of a selection without `sort:`: most recently updated first. */
export const defaultSort: SelectionSort = { field: 'updated', order: 'desc' };

const sortKey: Record<SelectionSort['field'], (issue: SelectableIssue) => number | null> = {
  created: (i) => Date.parse(i.created_at),
  updated: (i) => Date.parse(i.updated_at),
  priority: (i) => priorityRank(i.priority),
  due: (i) => (i.due_date === null ? null : Date.parse(`${i.due_date}T00:00:00.000Z`)),
  points: (i) => i.story_points,
};

/**
 * The comparator of an order: by the field in its direction, issues without a value (no due date,
 * no points) last in either direction, ties by issue id in the same direction, so that the order is
 * total and a page boundary is well defined.
 */
export function issueComparator(sort: SelectionSort = defaultSort): (a: SelectableIssue, b: SelectableIssue) => number {
  const key = sortKey[sort.field];
  const sign = sort.order === 'asc' ? 1 : -1;
  return (a, b) => {
    const [ka, kb] = [key(a), key(b)];
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else if (ka !== kb) return sign * (ka - kb);
    return sign * (a.id - b.id);
  };
}

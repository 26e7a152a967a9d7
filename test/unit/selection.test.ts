import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import {
  issueComparator,
  matches,
  parseSelection,
  printSelection,
  selectionMatcher,
  validateSelection,
  type Condition,
  type SelectableIssue,
  type Selection,
  type SelectionContext,
} from '../../lib/model/selection.ts';
import { errorResponse } from '../../lib/http/errors.ts';
import { pullRequestStates } from '../../lib/vocabulary/selection.ts';
import { linkStates } from '../../lib/schemas/github.ts';
import { selectableIssueOf, type ShownIssue } from '../../lib/webhooks/filter.ts';

/**
 * The selection grammar (docs/search.md) by example: each qualifier parsed into its JSON form,
 * printed back in its canonical spelling, and evaluated over a handful of issues; the errors a
 * query or a JSON selection can meet. test/unit/selection.property.test.ts holds the same rules
 * over generated input.
 */

const context: SelectionContext = { me: 7, now: new Date('2026-11-25T12:00:00.000Z'), activeSprintIds: new Set([10, 12]) };

const base: SelectableIssue = {
  id: 0,
  title: '',
  project_prefix: 'APL',
  sprint_id: null,
  status: 'todo',
  assignee_id: null,
  author_id: 7,
  labels: [],
  priority: 'none',
  type: 'task',
  parent_id: null,
  story_points: null,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
  due_date: null,
  blocked: false,
};

const issues: SelectableIssue[] = [
  {
    ...base,
    id: 1,
    title: 'Login page fails on Safari',
    sprint_id: 10,
    status: 'todo',
    assignee_id: 7,
    labels: ['Bug', 'ui'],
    priority: 'high',
    type: 'bug',
    story_points: 3,
    created_at: '2026-11-01T09:00:00.000Z',
    updated_at: '2026-11-24T10:00:00.000Z',
    due_date: '2026-11-20',
    pull_requests: { open: 1, draft: 0, merged: 0, closed: 0 },
  },
  {
    ...base,
    id: 2,
    title: 'Sign in with SSO',
    sprint_id: 11,
    status: 'in_progress',
    assignee_id: 8,
    labels: ['feature'],
    priority: 'urgent',
    type: 'story',
    parent_id: 1,
    story_points: 8,
    created_at: '2026-10-15T00:00:00.000Z',
    updated_at: '2026-10-20T00:00:00.000Z',
    due_date: '2026-12-01',
    blocked: true,
    pull_requests: { open: 0, draft: 1, merged: 2, closed: 0 },
  },
  {
    ...base,
    id: 3,
    title: 'Refactor the "sign in" form',
    project_prefix: 'WEB',
    status: 'backlog',
    author_id: 8,
    created_at: '2026-11-25T11:00:00.000Z',
    updated_at: '2026-11-25T11:30:00.000Z',
  },
  {
    ...base,
    id: 4,
    title: 'Crash in export',
    project_prefix: 'WEB',
    sprint_id: 12,
    // A state of its project's own, in the done category.
    status: 'done',
    state: 'shipped',
    assignee_id: 7,
    author_id: 8,
    labels: ['bug', 'wontfix'],
    priority: 'medium',
    type: 'bug',
    parent_id: 3,
    story_points: 1,
    created_at: '2026-09-01T00:00:00.000Z',
    // Exactly seven days before `now`.
    updated_at: '2026-11-18T12:00:00.000Z',
    due_date: '2026-11-25',
    // Only the states it counts.
    pull_requests: { closed: 1 },
  },
  {
    ...base,
    id: 5,
    title: 'Epic: billing',
    project_prefix: 'OPS',
    status: 'cancelled',
    assignee_id: 9,
    author_id: 9,
    labels: ['Billing'],
    priority: 'low',
    type: 'epic',
    story_points: 13,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T23:59:59.999Z',
    due_date: '2026-11-26',
    blocked: true,
    // Its pull requests' counts moved back to none (a link moved to another state, counted there).
    pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 },
  },
];

const selected = (q: string) => {
  const test = selectionMatcher(parseSelection(q), context);
  return issues.filter(test).map((i) => i.id);
};

/** What a query throws: its messages, or the value it returned. */
function thrown(run: () => unknown): unknown {
  try {
    return { returned: run() };
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).errors;
  }
}

describe('every qualifier: its JSON form, its canonical query, the issues it selects', () => {
  // [query, JSON conditions, ids selected]; the query is its own canonical form.
  const cases: [string, Selection['and'], number[]][] = [
    ['login', [{ title: { contains: 'login' } }], [1]],
    ['sign', [{ title: { contains: 'sign' } }], [2, 3]],
    ['"sign in"', [{ title: { contains: 'sign in' } }], [2, 3]],
    ['"in with"', [{ title: { contains: 'in with' } }], [2]],
    ['sign form', [{ title: { contains: 'sign' } }, { title: { contains: 'form' } }], [3]],
    ['-sign', [{ not: { title: { contains: 'sign' } } }], [1, 4, 5]],
    ['"\\"sign in\\""', [{ title: { contains: '"sign in"' } }], [3]],
    ['"Epic: billing"', [{ title: { contains: 'Epic: billing' } }], [5]],
    ['project:APL', [{ project: { in: ['APL'] } }], [1, 2]],
    ['project:APL,OPS', [{ project: { in: ['APL', 'OPS'] } }], [1, 2, 5]],
    ['sprint:active', [{ sprint: { in: ['active'] } }], [1, 4]],
    ['sprint:11', [{ sprint: { in: [11] } }], [2]],
    ['sprint:none', [{ sprint: { in: [null] } }], [3, 5]],
    ['sprint:active,none', [{ sprint: { in: ['active', null] } }], [1, 3, 4, 5]],
    ['status:todo,in_progress', [{ status: { in: ['todo', 'in_progress'] } }], [1, 2]],
    // A state's name, in any case, spaces or punctuation; the categories by their own or Linear's names.
    ['status:shipped', [{ status: { in: ['shipped'] } }], [4]],
    ['status:done', [{ status: { in: ['done'] } }], []],
    ['category:in_progress,done', [{ category: { in: ['in_progress', 'done'] } }], [2, 4]],
    ['is:open', [{ is: 'open' }], [1, 2, 3]],
    ['is:closed', [{ is: 'closed' }], [4, 5]],
    ['-is:closed', [{ not: { is: 'closed' } }], [1, 2, 3]],
    ['is:blocked', [{ is: 'blocked' }], [2, 5]],
    ['assignee:@me', [{ assignee: { in: ['@me'] } }], [1, 4]],
    ['assignee:8', [{ assignee: { in: [8] } }], [2]],
    ['no:assignee', [{ assignee: { in: [null] } }], [3]],
    ['assignee:@me,none', [{ assignee: { in: ['@me', null] } }], [1, 3, 4]],
    ['-assignee:@me', [{ not: { assignee: { in: ['@me'] } } }], [2, 3, 5]],
    ['author:@me', [{ author: { in: ['@me'] } }], [1, 2]],
    ['author:8,9', [{ author: { in: [8, 9] } }], [3, 4, 5]],
    ['label:bug', [{ label: { in: ['bug'] } }], [1, 4]],
    ['label:bug,feature', [{ label: { in: ['bug', 'feature'] } }], [1, 2, 4]],
    ['label:bug label:ui', [{ label: { in: ['bug'] } }, { label: { in: ['ui'] } }], [1]],
    ['-label:wontfix', [{ not: { label: { in: ['wontfix'] } } }], [1, 2, 3, 5]],
    ['label:"good first issue",bug', [{ label: { in: ['good first issue', 'bug'] } }], [1, 4]],
    ['no:label', [{ label: { null: true } }], [3]],
    ['priority:high,urgent', [{ priority: { in: ['high', 'urgent'] } }], [1, 2]],
    ['priority:>=high', [{ priority: { gte: 'high' } }], [1, 2]],
    ['priority:>none', [{ priority: { gt: 'none' } }], [1, 2, 4, 5]],
    ['priority:<medium', [{ priority: { lt: 'medium' } }], [3, 5]],
    ['priority:<=low', [{ priority: { lte: 'low' } }], [3, 5]],
    ['priority:low..medium', [{ priority: { gte: 'low', lte: 'medium' } }], [4, 5]],
    ['-priority:low', [{ not: { priority: { in: ['low'] } } }], [1, 2, 3, 4]],
    ['type:bug', [{ type: { in: ['bug'] } }], [1, 4]],
    ['type:story,epic', [{ type: { in: ['story', 'epic'] } }], [2, 5]],
    ['parent:1', [{ parent: { in: [1] } }], [2]],
    ['parent:1,3', [{ parent: { in: [1, 3] } }], [2, 4]],
    ['no:parent', [{ parent: { in: [null] } }], [1, 3, 5]],
    ['points:3', [{ points: { eq: 3 } }], [1]],
    ['points:>=3', [{ points: { gte: 3 } }], [1, 2, 5]],
    ['points:>3', [{ points: { gt: 3 } }], [2, 5]],
    ['points:<3', [{ points: { lt: 3 } }], [4]],
    ['points:<=3', [{ points: { lte: 3 } }], [1, 4]],
    ['points:1..5', [{ points: { gte: 1, lte: 5 } }], [1, 4]],
    ['-points:>=3', [{ not: { points: { gte: 3 } } }], [3, 4]],
    ['no:points', [{ points: { null: true } }], [3]],
    ['created:2026-11-01', [{ created: { eq: '2026-11-01' } }], [1, 5]],
    ['created:>2026-11-01', [{ created: { gt: '2026-11-01' } }], [3]],
    ['created:>=2026-11-01', [{ created: { gte: '2026-11-01' } }], [1, 3, 5]],
    ['created:<2026-11-01', [{ created: { lt: '2026-11-01' } }], [2, 4]],
    ['created:<=2026-10-15', [{ created: { lte: '2026-10-15' } }], [2, 4]],
    ['created:2026-10-01..2026-10-31', [{ created: { gte: '2026-10-01', lte: '2026-10-31' } }], [2]],
    ['created:>-1d', [{ created: { gt: '-1d' } }], [3]],
    ['updated:>-7d', [{ updated: { gt: '-7d' } }], [1, 3]],
    ['updated:>=-7d', [{ updated: { gte: '-7d' } }], [1, 3, 4]],
    ['updated:<-7d', [{ updated: { lt: '-7d' } }], [2, 5]],
    ['updated:<=-7d', [{ updated: { lte: '-7d' } }], [2, 4, 5]],
    ['updated:>-1w', [{ updated: { gt: '-1w' } }], [1, 3]],
    ['updated:>-24h', [{ updated: { gt: '-24h' } }], [3]],
    ['updated:>-1m', [{ updated: { gt: '-1m' } }], [1, 3, 4, 5]],
    ['updated:-14d..-1d', [{ updated: { gte: '-14d', lte: '-1d' } }], [1, 4]],
    ['updated:2026-11-01', [{ updated: { eq: '2026-11-01' } }], [5]],
    ['due:2026-11-25', [{ due: { eq: '2026-11-25' } }], [4]],
    ['due:+0d', [{ due: { eq: '+0d' } }], [4]],
    ['due:+1d', [{ due: { eq: '+1d' } }], [5]],
    ['due:<+0d', [{ due: { lt: '+0d' } }], [1]],
    ['due:<=+1d', [{ due: { lte: '+1d' } }], [1, 4, 5]],
    ['due:>2026-11-25', [{ due: { gt: '2026-11-25' } }], [2, 5]],
    ['due:>-1w', [{ due: { gt: '-1w' } }], [1, 2, 4, 5]],
    ['due:2026-11-01..2026-11-30', [{ due: { gte: '2026-11-01', lte: '2026-11-30' } }], [1, 4, 5]],
    ['no:due', [{ due: { null: true } }], [3]],
    ['-no:due', [{ not: { due: { null: true } } }], [1, 2, 4, 5]],
    ['has:pr', [{ has: 'pr' }], [1, 2, 4]],
    ['-has:pr', [{ not: { has: 'pr' } }], [3, 5]],
    ['pr:open', [{ pr: { in: ['open'] } }], [1]],
    ['pr:draft', [{ pr: { in: ['draft'] } }], [2]],
    ['pr:merged', [{ pr: { in: ['merged'] } }], [2]],
    ['pr:closed', [{ pr: { in: ['closed'] } }], [4]],
    ['pr:open,draft', [{ pr: { in: ['open', 'draft'] } }], [1, 2]],
    ['pr:merged,closed', [{ pr: { in: ['merged', 'closed'] } }], [2, 4]],
    ['-pr:merged', [{ not: { pr: { in: ['merged'] } } }], [1, 3, 4, 5]],
    ['pr:draft pr:merged', [{ pr: { in: ['draft'] } }, { pr: { in: ['merged'] } }], [2]],
    ['has:pr is:open -pr:open', [{ has: 'pr' }, { is: 'open' }, { not: { pr: { in: ['open'] } } }], [2]],
    ['', [], [1, 2, 3, 4, 5]],
    [
      'is:open type:bug assignee:@me updated:>-7d',
      [{ is: 'open' }, { type: { in: ['bug'] } }, { assignee: { in: ['@me'] } }, { updated: { gt: '-7d' } }],
      [1],
    ],
  ];

  it.each(cases)('%s', (query, and, ids) => {
    const selection = parseSelection(query);
    expect(selection).toEqual({ and });
    expect(printSelection(selection)).toBe(query);
    expect(validateSelection(selection)).toEqual(selection);
    expect(selected(query)).toEqual(ids);
    for (const issue of issues) expect(matches(selection, issue, context)).toBe(ids.includes(issue.id));
  });

  it('every qualifier of the grammar has an example above', () => {
    const named = new Set(cases.flatMap(([q]) => [...q.matchAll(/(?:^|\s)-?([a-z]+):/g)].map((m) => m[1])));
    for (const q of [
      'project',
      'sprint',
      'status',
      'is',
      'assignee',
      'author',
      'label',
      'priority',
      'type',
      'parent',
      'points',
      'created',
      'updated',
      'due',
      'has',
      'pr',
      'no',
    ])
      expect(named).toContain(q);
  });
});

describe('OR, AND, NOT and parentheses, as GitHub spells them: the JSON form, the canonical query, the issues selected', () => {
  const bug: Condition = { type: { in: ['bug'] } };
  const story: Condition = { type: { in: ['story'] } };
  const epic: Condition = { type: { in: ['epic'] } };
  // [query, JSON conditions, ids selected]; the query is its own canonical form.
  const cases: [string, Selection['and'], number[]][] = [
    ['type:bug OR type:story', [{ or: [bug, story] }], [1, 2, 4]],
    [
      '(label:bug OR label:feature) is:open',
      [{ or: [{ label: { in: ['bug'] } }, { label: { in: ['feature'] } }] }, { is: 'open' }],
      [1, 2],
    ],
    [
      'project:WEB (is:closed OR no:label)',
      [{ project: { in: ['WEB'] } }, { or: [{ is: 'closed' }, { label: { null: true } }] }],
      [3, 4],
    ],
    ['-(type:bug OR type:epic)', [{ not: { or: [bug, epic] } }], [2, 3]],
    ['(type:bug is:open) OR type:epic', [{ or: [{ and: [bug, { is: 'open' }] }, epic] }], [1, 5]],
    ['-(is:open label:bug)', [{ not: { and: [{ is: 'open' }, { label: { in: ['bug'] } }] } }], [2, 3, 4, 5]],
    ['type:bug OR (type:story OR type:epic)', [{ or: [bug, { or: [story, epic] }] }], [1, 2, 4, 5]],
    ['login OR "sign in"', [{ or: [{ title: { contains: 'login' } }, { title: { contains: 'sign in' } }] }], [1, 2, 3]],
    [
      '(type:bug OR type:story) (priority:high OR is:closed)',
      [{ or: [bug, story] }, { or: [{ priority: { in: ['high'] } }, { is: 'closed' }] }],
      [1, 4],
    ],
    ['"OR" "AND" "NOT"', [{ title: { contains: 'OR' } }, { title: { contains: 'AND' } }, { title: { contains: 'NOT' } }], []],
    ['sign or in', [{ title: { contains: 'sign' } }, { title: { contains: 'or' } }, { title: { contains: 'in' } }], [3]],
  ];

  it.each(cases)('%s', (query, and, ids) => {
    const selection = parseSelection(query);
    expect(selection).toEqual({ and });
    expect(printSelection(selection)).toBe(query);
    expect(validateSelection(selection)).toEqual(selection);
    expect(selected(query)).toEqual(ids);
  });

  it('AND, explicit or not, binds tighter than OR', () => {
    const grouped = parseSelection('(type:bug is:open) OR type:epic');
    expect(parseSelection('type:bug is:open OR type:epic')).toEqual(grouped);
    expect(parseSelection('type:bug AND is:open OR type:epic')).toEqual(grouped);
    expect(parseSelection('type:epic OR type:bug is:open')).toEqual({ and: [{ or: [epic, { and: [bug, { is: 'open' }] }] }] });
    expect(selected('type:bug is:open OR type:epic')).toEqual([1, 5]);
    // Read the other way round it would select 1, 4 and 5... minus the closed: 1 and 5 anyway, so check a query where it differs.
    expect(selected('type:epic OR type:bug is:closed')).toEqual([4, 5]);
  });
});

describe('canonical spelling', () => {
  it.each([
    ['Status:TODO,In_Progress', 'status:todo,in_progress'],
    ['status:"In Review",Shipped!', 'status:in_review,shipped'],
    ['category:started,Completed,canceled', 'category:in_progress,done,cancelled'],
    ['project:apl', 'project:APL'],
    ['no:sprint', 'sprint:none'],
    ['assignee:none', 'no:assignee'],
    ['assignee:@ME', 'assignee:@me'],
    ['parent:none', 'no:parent'],
    ['sprint:ACTIVE', 'sprint:active'],
    ['sort:updated', 'sort:updated-desc'],
    ['sort:Priority-ASC', 'sort:priority-asc'],
    ['"plain"', 'plain'],
    ['label:"bug"', 'label:bug'],
    ['points:007', 'points:7'],
    ['points:"3"', 'points:3'],
    ['updated:>-07D', 'updated:>-7d'],
    ['  is:open \t\n  login  ', 'is:open login'],
    ['sort:due-asc is:open', 'is:open sort:due-asc'],
    ['--x', '-"-x"'],
    ['"a:b"', '"a:b"'],
    ['"back\\\\slash"', '"back\\\\slash"'],
    ['"a\\b"', '"a\\\\b"'],
    ['label:a:b', 'label:a:b'],
    ['label:"a,b"', 'label:"a,b"'],
    ['-"two words"', '-"two words"'],
    ['NOT label:wontfix', '-label:wontfix'],
    ['NOT(type:bug OR type:epic)', '-(type:bug OR type:epic)'],
    ['type:bug AND is:open', 'type:bug is:open'],
    ['(type:bug OR type:story)', 'type:bug OR type:story'],
    ['((is:open))', 'is:open'],
    ['type:bug is:open OR type:epic', '(type:bug is:open) OR type:epic'],
    ['sort:due-asc type:bug OR type:story', 'type:bug OR type:story sort:due-asc'],
    ['(type:bug OR type:story) sort:due-asc', 'type:bug OR type:story sort:due-asc'],
    ['x  OR\ty', 'x OR y'],
    ['label:"a(b)",c', 'label:"a(b)",c'],
    ['"(draft)"', '"(draft)"'],
    ['"OR"', '"OR"'],
    ['Or nOT', 'Or nOT'],
    ['-ANDROID', '-ANDROID'],
    ['HAS:PR', 'has:pr'],
    ['Pr:Open,MERGED', 'pr:open,merged'],
    ['pr:"draft"', 'pr:draft'],
    ['NOT has:pr', '-has:pr'],
  ])('%s prints as %s', (query, canonical) => {
    const selection = parseSelection(query);
    expect(printSelection(selection)).toBe(canonical);
    expect(parseSelection(canonical)).toEqual(selection);
  });

  it('sort is kept beside the conditions', () => {
    expect(parseSelection('sort:points-asc label:x')).toEqual({
      and: [{ label: { in: ['x'] } }],
      sort: { field: 'points', order: 'asc' },
    });
  });
});

describe('a query that cannot be read is a 422 naming the place and what was expected', () => {
  it.each([
    ['is:open status:', "q: at 9: expected a value after 'status:'"],
    [
      'stauts:todo',
      `q: at 1: unknown qualifier 'stauts' (known: project, sprint, status, category, is, assignee, author, label, priority, type, parent, points, created, updated, due, has, pr, no, sort, cf.<field key>)`,
    ],
    [
      'category:tdo',
      "q: at 10: unknown category 'tdo' (known: backlog, todo, unstarted, in_progress, started, done, completed, cancelled, canceled)",
    ],
    ['status:"!!"', "q: at 8: expected a state name, not '!!'"],
    [
      'category:__proto__',
      "q: at 10: unknown category '__proto__' (known: backlog, todo, unstarted, in_progress, started, done, completed, cancelled, canceled)",
    ],
    [
      'category:constructor',
      "q: at 10: unknown category 'constructor' (known: backlog, todo, unstarted, in_progress, started, done, completed, cancelled, canceled)",
    ],
    [`${'('.repeat(33)}a${')'.repeat(33)}`, 'q: at 33: parentheses nested more than 32 deep (at most 32)'],
    ['status:todo,', "q: at 12: expected a value after ','"],
    ['status:,todo', "q: at 8: expected a value before ','"],
    ['is:open,closed', "q: at 8: 'is:' takes one value: open, closed, blocked"],
    ['is:done', "q: at 4: unknown 'is:' value 'done' (known: open, closed, blocked)"],
    ['no:title', "q: at 4: unknown 'no:' field 'title' (known: assignee, label, parent, points, due, sprint)"],
    ['has:issue', "q: at 5: unknown 'has:' value 'issue' (known: pr)"],
    ['has:pr,pr', "q: at 7: 'has:' takes one value: pr or cf.<field key>"],
    ['has:', "q: at 1: expected a value after 'has:'"],
    ['pr:approved', "q: at 4: unknown pull request state 'approved' (known: open, draft, merged, closed)"],
    ['pr:open,', "q: at 8: expected a value after ','"],
    ['pr:>open', "q: at 4: unknown pull request state '>open' (known: open, draft, merged, closed)"],
    ['assignee:bob', "q: at 10: expected an account id, @me or none, got 'bob'"],
    ['author:none', "q: at 8: expected an account id or @me, got 'none'"],
    ['sprint:0', "q: at 8: expected a sprint id, active or none, got '0'"],
    ['parent:APL-1', "q: at 8: expected an issue id or none, got 'APL-1'"],
    ['project:A', "q: at 9: expected a project prefix (2 to 4 letters or digits), got 'A'"],
    ['priority:hgh', "q: at 10: unknown priority 'hgh' (known: none, low, medium, high, urgent)"],
    ['priority:>=hgh', "q: at 10: unknown priority 'hgh' (known: none, low, medium, high, urgent)"],
    ['priority:high,>=low', "q: at 15: 'priority:' takes a list of priorities or one comparison, not both"],
    ['priority:high..low', "q: at 10: the range 'high..low' is empty: its start is after its end"],
    ['type:bgu', "q: at 6: unknown type 'bgu' (known: task, story, bug, epic)"],
    ['points:-1', "q: at 8: expected a whole number, got '-1'"],
    ['points:>=', "q: at 8: expected a value after '>='"],
    ['points:1..', "q: at 8: a range needs both ends, e.g. 1..5 (got '1..'; for one end write >= or <=)"],
    ['points:5..1', "q: at 8: the range '5..1' is empty: its start is after its end"],
    ['points:1,2', "q: at 9: 'points:' takes one value: a number (3), a comparison (>=3) or a range (1..5)"],
    [
      'created:2026-02-30',
      "q: at 9: expected a date (YYYY-MM-DD) or a relative time such as -7d (a sign, 1 to 4 digits, h/d/w/m), got '2026-02-30'",
    ],
    [
      'updated:>-7y',
      "q: at 9: expected a date (YYYY-MM-DD) or a relative time such as -7d (a sign, 1 to 4 digits, h/d/w/m), got '-7y'",
    ],
    ['updated:-7d', "q: at 9: a relative time needs a comparison or a range, e.g. 'updated:>-7d'"],
    ['due:2026-11-30..2026-11-01', "q: at 5: the range '2026-11-30..2026-11-01' is empty: its start is after its end"],
    [
      'sort:title',
      "q: at 6: unknown sort 'title' (known: created-asc, created-desc, updated-asc, updated-desc, priority-asc, priority-desc, due-asc, due-desc, points-asc, points-desc)",
    ],
    ['sort:due -sort:points', "q: at 10: 'sort:' cannot be negated"],
    ['sort:due sort:points', "q: at 10: 'sort:' given twice (one order per query)"],
    ['login -', "q: at 7: expected a qualifier or text after '-'"],
    ['"sign in', `q: at 1: unterminated quote (a quoted phrase ends with '"')`],
    ['""', 'q: at 1: expected text between the quotes'],
    ['"a"b', 'q: at 4: expected a space after the closing quote'],
    ['sign"in"', `q: at 5: unexpected '"' inside a word (put the whole phrase in quotes)`],
    ['label:"a"b', "q: at 10: expected ',' or a space after the closing quote"],
    ['label:a"b"', `q: at 8: unexpected '"' inside a value (put the whole value in quotes)`],
    ['label:""', 'q: at 7: expected a value between the quotes'],
    [':todo', "q: at 1: expected a qualifier name before ':'"],
    // Positions count Unicode characters, not UTF-16 units.
    ['😀😀 status:', "q: at 4: expected a value after 'status:'"],
    ['OR type:bug', `q: at 1: expected a term before 'OR' (to search for the word, quote it: "OR")`],
    ['type:bug OR', `q: at 10: expected a term after 'OR' (to search for the word, quote it: "OR")`],
    ['type:bug AND', `q: at 10: expected a term after 'AND' (to search for the word, quote it: "AND")`],
    ['type:bug AND OR type:story', `q: at 10: expected a term after 'AND' (to search for the word, quote it: "OR")`],
    ['type:bug OR sort:due', "q: at 10: expected a term after 'OR' ('sort:' is not one)"],
    ['-OR x', `q: at 2: expected a term after the negation (to search for the word, quote it: "OR")`],
    ['(type:bug OR type:story', "q: at 1: unclosed '(' (a group ends with ')')"],
    ['type:bug)', `q: at 9: unmatched ')' (to search for a parenthesis, quote it: ")")`],
    ['is:open ()', "q: at 9: expected a term between '(' and ')'"],
    ['(is:open)is:closed', "q: at 10: expected a space after ')'"],
    ['(is:open sort:due)', "q: at 10: 'sort:' orders the whole query: put it outside the parentheses"],
    ['NOT NOT is:open', 'q: at 5: a negation cannot be negated (leave both out)'],
    ['-NOT is:open', 'q: at 2: a negation cannot be negated (leave both out)'],
    ['NOT -is:open', 'q: at 5: a negation cannot be negated (leave both out)'],
    ['-(-is:open)', 'q: at 1: a negation cannot be negated (leave both out)'],
    ['NOT', "q: at 1: expected a term after 'NOT'"],
    ['fix(login)', "q: at 4: unexpected '(' inside a word (put the whole phrase in quotes)"],
    ['label:a(b)', "q: at 8: unexpected '(' inside a value (put the whole value in quotes)"],
    [
      '((((((a OR b) c) OR d) e) OR f) g) OR h',
      'q: at 2: groups nested more than 5 deep (at most 5: parentheses, and terms joined by OR)',
    ],
  ])('%s', (query, message) => {
    expect(thrown(() => parseSelection(query))).toEqual([message]);
  });

  it('names the field it reads (a webhook filter, say)', () => {
    expect(thrown(() => parseSelection('is:', 'filter'))).toEqual(["filter: at 1: expected a value after 'is:'"]);
  });

  it('answers 422 with the message through the one error mapper', () => {
    let error: unknown;
    try {
      parseSelection('category:tdo');
    } catch (err) {
      error = err;
    }
    const response = errorResponse(error);
    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body)).toEqual({
      errors: [
        "q: at 10: unknown category 'tdo' (known: backlog, todo, unstarted, in_progress, started, done, completed, cancelled, canceled)",
      ],
    });
  });

  it('takes at most 1,000 characters and 50 terms', () => {
    expect(parseSelection('x'.repeat(1000)).and).toHaveLength(1);
    expect(thrown(() => parseSelection('x'.repeat(1001)))).toEqual([
      'q: at 1001: the query is longer than 1,000 characters (1,001)',
    ]);
    // 1,000 characters of emoji are 2,000 UTF-16 units: still within the bound.
    expect(parseSelection('😀'.repeat(1000)).and).toHaveLength(1);
    const fifty = Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ');
    expect(parseSelection(`${fifty} sort:due`).and).toHaveLength(50);
    expect(thrown(() => parseSelection(`${fifty} extra`))).toEqual([
      `q: at ${fifty.length + 2}: more than 50 terms (at most 50, 'sort:' not counted)`,
    ]);
  });

  it('counts the terms of every group toward the 50, and lets groups nest 5 deep', () => {
    const ors = Array.from({ length: 25 }, (_, i) => `(a${i} OR b${i})`).join(' ');
    expect(parseSelection(ors).and).toHaveLength(25);
    expect(thrown(() => parseSelection(`${ors} c`))).toEqual([
      `q: at ${ors.length + 2}: more than 50 terms (at most 50, 'sort:' not counted)`,
    ]);
    const five = '(((((a OR b) c) OR d) e) OR f) g';
    expect(printSelection(parseSelection(five))).toBe(five);
    expect(thrown(() => parseSelection(`(${five}) OR h`))).toEqual([
      'q: at 2: groups nested more than 5 deep (at most 5: parentheses, and terms joined by OR)',
    ]);
  });
});

describe('a selection nested deeper than MAX_NESTING', () => {
  it('is a 422 naming the limit, read without recursion however deep (100,000 levels)', () => {
    let deep: unknown = { type: { in: ['bug'] } };
    for (let i = 0; i < 100_000; i++) deep = { not: deep };
    const refused = () => validateSelection({ and: [deep] }, 'filter');
    expect(refused).toThrow(ValidationError);
    expect(refused).toThrow('filter nests objects and arrays more than 32 deep (at most 32 levels)');
    // 10 groups (25 levels of JSON) pass the bound, and the schema then reads them.
    let fits: unknown = { type: { in: ['bug'] } };
    for (let i = 0; i < 10; i++) fits = { and: [fits, { type: { in: ['bug'] } }] };
    expect(() => validateSelection({ and: [fits] })).toThrow(/nests groups more than 5 deep/);
  });
});

describe('the JSON form is validated with messages naming the path', () => {
  const invalid: [unknown, string[]][] = [
    [null, ['selection must be an object']],
    [{}, ['and is required']],
    [{ and: {} }, ['and must be an array of conditions']],
    [{ and: [{}] }, ['and.0 must hold exactly one field (or "not", "and", "or"), e.g. {"status": {"in": ["todo"]}}']],
    [
      { and: [{ stauts: { in: ['todo'] } }] },
      [
        "and.0 has an unknown field 'stauts': did you mean 'status'? (known: title, project, sprint, status, category, is, assignee, author, label, priority, type, parent, points, created, updated, due, has, pr, cf, not, and, or)",
      ],
    ],
    [
      { and: [{ status: { in: ['todo'] }, points: { eq: 1 } }] },
      ['and.0 must hold exactly one field (or "not", "and", "or"), e.g. {"status": {"in": ["todo"]}}'],
    ],
    [
      { and: [{ category: { in: ['tdo'] } }] },
      ['and.0.category.in.0 must be one of: backlog, todo, in_progress, done, cancelled'],
    ],
    [{ and: [{ status: { in: ['--'] } }] }, ['and.0.status.in.0 must name a state (letters or digits)']],
    [
      { and: [{ status: { eq: 'todo' } }] },
      ['and.0.status.in is required', "and.0.status has an unknown operator 'eq' (known: in)"],
    ],
    [{ and: [{ status: { in: [] } }] }, ['and.0.status.in must hold at least one value']],
    [{ and: [{ project: { in: ['apl'] } }] }, ['and.0.project.in.0 must be 2 to 4 uppercase letters or digits']],
    [{ and: [{ assignee: { in: ['bob'] } }] }, ['and.0.assignee.in.0 must be an account id, "@me" or null (unassigned)']],
    [{ and: [{ is: 'done' }] }, ['and.0.is must be one of: open, closed, blocked']],
    [{ and: [{ has: 'issue' }] }, ['and.0.has must be one of: pr']],
    [{ and: [{ has: { in: ['pr'] } }] }, ['and.0.has must be one of: pr']],
    [{ and: [{ pr: { in: ['approved'] } }] }, ['and.0.pr.in.0 must be one of: open, draft, merged, closed']],
    [{ and: [{ pr: { in: [] } }] }, ['and.0.pr.in must hold at least one value']],
    [{ and: [{ pr: 'open' }] }, ['and.0.pr must be an object']],
    [
      { and: [{ points: { gt: 1, lt: 3 } }] },
      [
        'and.0.points must be {"eq": n}, {"gt": v}, {"gte": v}, {"lt": v}, {"lte": v}, a range {"gte": a, "lte": b} or {"null": true}',
      ],
    ],
    [{ and: [{ points: { gte: 5, lte: 1 } }] }, ['and.0.points is an empty range: gte is after lte']],
    [{ and: [{ points: { null: false } }] }, ['and.0.points.null must be true (the field has no value)']],
    [
      { and: [{ updated: { eq: '-7d' } }] },
      ['and.0.updated.eq must be a date (YYYY-MM-DD): a relative time needs gt, gte, lt or lte'],
    ],
    [
      { and: [{ due: { lt: 'tomorrow' } }] },
      ['and.0.due.lt must be a real date (YYYY-MM-DD) or a relative time such as -7d or +2w (units h, d, w, m)'],
    ],
    [
      { and: [{ not: { not: { is: 'open' } } }] },
      [
        "and.0.not has an unknown field 'not' (known: title, project, sprint, status, category, is, assignee, author, label, priority, type, parent, points, created, updated, due, has, pr, cf, and, or)",
      ],
    ],
    [
      { and: [], sort: { field: 'title', order: 'up' } },
      ['sort.field must be one of: created, updated, priority, due, points', 'sort.order must be one of: asc, desc'],
    ],
    [{ and: [], or: [] }, ["selection has an unknown key 'or' (known: and, sort)"]],
    [{ and: [{ or: [{ is: 'open' }] }] }, ['and.0.or must hold at least 2 conditions (one condition needs no "or")']],
    [{ and: [{ and: [] }] }, ['and.0.and must hold at least 2 conditions (one condition needs no "and")']],
    [{ and: [{ or: { is: 'open' } }] }, ['and.0.or must be an array of conditions']],
    [
      { and: [{ or: [{ is: 'open' }, { stauts: {} }] }] },
      [
        "and.0.or.1 has an unknown field 'stauts': did you mean 'status'? (known: title, project, sprint, status, category, is, assignee, author, label, priority, type, parent, points, created, updated, due, has, pr, cf, not, and, or)",
      ],
    ],
    [
      { and: [{ or: [{ is: 'open' }, { is: 'closed' }], is: 'open' }] },
      ['and.0 must hold exactly one field (or "not", "and", "or"), e.g. {"status": {"in": ["todo"]}}'],
    ],
    [
      { and: [{ not: { or: [{ not: { not: { is: 'open' } } }, { is: 'closed' }] } }] },
      [
        "and.0.not.or.0.not has an unknown field 'not' (known: title, project, sprint, status, category, is, assignee, author, label, priority, type, parent, points, created, updated, due, has, pr, cf, and, or)",
      ],
    ],
    [
      { and: Array.from({ length: 26 }, () => ({ or: [{ is: 'open' }, { is: 'closed' }] })) },
      ['and must hold at most 50 conditions on a field in all, groups included (it holds 52)'],
    ],
    [
      {
        and: [
          {
            or: [
              { is: 'open' },
              {
                and: [
                  { is: 'open' },
                  {
                    or: [
                      { is: 'open' },
                      {
                        and: [
                          { is: 'open' },
                          {
                            or: [{ is: 'open' }, { not: { and: [{ is: 'open' }, { or: [{ is: 'open' }, { is: 'closed' }] }] } }],
                          },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
      ['and.0.or.1.and.1.or.1.and.1.or.1.not nests groups more than 5 deep (at most 5 levels of "and" and "or")'],
    ],
    [{ and: Array.from({ length: 51 }, () => ({ is: 'open' })) }, ['and must hold at most 50 conditions']],
    [
      { and: [{ title: { contains: 'x'.repeat(1001) } }] },
      ['selection is too long: as a query it is 1,001 characters (at most 1,000)'],
    ],
  ];

  it.each(invalid.map(([input, messages]) => [JSON.stringify(input).slice(0, 90), input, messages]))(
    '%s',
    (_name, input, messages) => {
      expect(thrown(() => validateSelection(input))).toEqual(messages);
    },
  );

  it('prefixes the name it is given', () => {
    expect(thrown(() => validateSelection({ and: [{ is: 'done' }] }, 'filter'))).toEqual([
      'filter.and.0.is must be one of: open, closed, blocked',
    ]);
  });

  it('takes a selection with its sort as it is', () => {
    const selection = { and: [{ label: { in: ['a b'] } }], sort: { field: 'due', order: 'asc' } };
    expect(validateSelection(selection)).toEqual(selection);
    expect(printSelection(validateSelection(selection))).toBe('label:"a b" sort:due-asc');
  });
});

describe('sort', () => {
  const order = (q: string) => [...issues].sort(issueComparator(parseSelection(q).sort)).map((i) => i.id);

  it.each([
    ['sort:updated-desc', [3, 1, 4, 5, 2]],
    ['sort:updated-asc', [2, 5, 4, 1, 3]],
    ['sort:created-asc', [4, 2, 5, 1, 3]],
    ['sort:priority-desc', [2, 1, 4, 5, 3]],
    ['sort:priority-asc', [3, 5, 4, 1, 2]],
    // No due date / no points: last either way.
    ['sort:due-asc', [1, 4, 5, 2, 3]],
    ['sort:due-desc', [2, 5, 4, 1, 3]],
    ['sort:points-desc', [5, 2, 1, 4, 3]],
    ['sort:points-asc', [4, 1, 2, 5, 3]],
  ])('%s', (q, ids) => {
    expect(order(q)).toEqual(ids);
  });

  it('without sort: most recently updated first; ties by id in the same direction', () => {
    expect([...issues].sort(issueComparator()).map((i) => i.id)).toEqual([3, 1, 4, 5, 2]);
    const twins = [
      { ...base, id: 2 },
      { ...base, id: 9 },
      { ...base, id: 4 },
    ];
    expect(twins.sort(issueComparator({ field: 'created', order: 'asc' })).map((i) => i.id)).toEqual([2, 4, 9]);
    expect(twins.sort(issueComparator({ field: 'created', order: 'desc' })).map((i) => i.id)).toEqual([9, 4, 2]);
  });
});

describe('relative times are resolved at evaluation, against the now given', () => {
  it('the same selection selects differently as time passes', () => {
    const selection = parseSelection('updated:>-1d');
    const issue = { ...base, updated_at: '2026-11-24T12:00:00.000Z' };
    expect(matches(selection, issue, { ...context, now: new Date('2026-11-25T11:59:59.999Z') })).toBe(true);
    expect(matches(selection, issue, { ...context, now: new Date('2026-11-25T12:00:00.000Z') })).toBe(false);
  });

  it('a due date compares by the UTC day the relative time falls on', () => {
    const selection = parseSelection('due:<+0d');
    const issue = { ...base, due_date: '2026-11-24' };
    expect(matches(selection, issue, { ...context, now: new Date('2026-11-24T23:59:59.999Z') })).toBe(false);
    expect(matches(selection, issue, { ...context, now: new Date('2026-11-25T00:00:00.000Z') })).toBe(true);
  });

  it('@me and active sprints come from the context', () => {
    const selection = parseSelection('assignee:@me sprint:active');
    const issue = { ...base, assignee_id: 3, sprint_id: 40 };
    expect(matches(selection, issue, context)).toBe(false);
    expect(matches(selection, issue, { ...context, me: 3, activeSprintIds: new Set([40]) })).toBe(true);
  });
});

describe('docs/search.md says what the parser does', () => {
  const doc = readFileSync(join(repoRoot, 'docs/search.md'), 'utf8');
  const section = (heading: string) => doc.split(/^## /m).find((s) => s.startsWith(heading)) ?? '';
  const rows = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith('| ') && !l.startsWith('| -'))
      .slice(1)
      .map((l) => l.split(' | ').map((c) => c.replace(/^\|?\s*|\s*\|?$/g, '')));
  const code = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

  it('every query answering a question parses, and is written in its canonical form', () => {
    const queries = rows(section('Questions')).flatMap(([, query]) => code(query!));
    expect(queries.length).toBeGreaterThan(10);
    for (const q of queries) expect(printSelection(parseSelection(q))).toBe(q);
  });

  it('every error message shown in full is the one the parser gives', () => {
    const shown = rows(section('Errors')).filter(([q, m]) => q!.startsWith('`') && !m!.includes('…'));
    expect(shown.length).toBeGreaterThan(4);
    for (const [q, m] of shown) expect(thrown(() => parseSelection(code(q!)[0]!))).toEqual(code(m!));
  });
});

describe('linked pull requests (has:pr, pr:)', () => {
  it('pr: takes the states a link has', () => {
    expect([...pullRequestStates]).toEqual([...linkStates]);
  });

  it('a webhook filter reads them from the issue its payload shows, and none from one that shows none', () => {
    const shown: ShownIssue = {
      id: 1,
      title: 't',
      sprint_id: null,
      status: 'todo',
      assignee_id: null,
      priority: 'none',
      type: 'task',
      parent_id: null,
      story_points: null,
      created_at: base.created_at,
      updated_at: base.updated_at,
      due_date: null,
      blocked: false,
    };
    const merged = selectableIssueOf({ ...shown, links: { count: 2, pull_requests: { merged: 1, open: 0 } } }, {});
    const none = selectableIssueOf(shown, {});
    const test = (q: string) => [merged, none].map(selectionMatcher(parseSelection(q), context));
    expect(test('has:pr')).toEqual([true, false]);
    expect(test('pr:merged')).toEqual([true, false]);
    expect(test('pr:open,draft')).toEqual([false, false]);
    expect(test('-has:pr')).toEqual([false, true]);
  });
});

import type { DynamoDBRecord } from 'aws-lambda';
import { build } from 'esbuild';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import { parseSelection, printSelection } from '../../lib/model/selection.ts';
import { readWebhookFilter, webhookFilterFields } from '../../lib/model/webhook-filters.ts';
import { changeEventOf } from '../../lib/feed/events.ts';
import {
  filterAdmits,
  filterApplies,
  filterContext,
  filterNeeds,
  selectableIssueOf,
  sprintActiveAt,
  type ShownIssue,
} from '../../lib/webhooks/filter.ts';
import { eventTypes } from '../../lib/vocabulary/event-types.ts';
import { selectableValues, type FieldDefinition } from '../../lib/model/custom-fields.ts';

/** The messages of the ValidationError `f` throws. */
function refusal(f: () => unknown): string[] {
  try {
    f();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error('not refused');
}

describe('a webhook filter as written', () => {
  it('no filter: null, an empty query or spaces only', () => {
    expect(readWebhookFilter(null, 7)).toBeNull();
    expect(readWebhookFilter('', 7)).toBeNull();
    expect(readWebhookFilter(' \t\u00a0\n', 7)).toBeNull();
    expect(webhookFilterFields('  ', 7)).toEqual({ filter: null, filterSelection: null });
  });

  it('@me is the account writing the filter, stored as its id, negated or not, once in a list', () => {
    const s = readWebhookFilter('assignee:@me,7,none -author:@me type:bug', 7);
    expect(s).toEqual({
      and: [{ assignee: { in: [7, null] } }, { not: { author: { in: [7] } } }, { type: { in: ['bug'] } }],
    });
  });

  it('@me inside OR groups and negated groups is the writing account too', () => {
    expect(readWebhookFilter('(assignee:@me OR author:@me) NOT (type:bug OR assignee:@me)', 7)).toEqual({
      and: [
        { or: [{ assignee: { in: [7] } }, { author: { in: [7] } }] },
        { not: { or: [{ type: { in: ['bug'] } }, { assignee: { in: [7] } }] } },
      ],
    });
    expect(webhookFilterFields('type:bug OR assignee:@me', 7).filter).toBe('type:bug OR assignee:7');
  });

  it('stores the canonical query beside its JSON form, and the one reads back as the other', () => {
    const { filter, filterSelection } = webhookFilterFields('TYPE:Bug  priority:>=HIGH   assignee:@me "sign in"', 12);
    expect(filter).toBe('type:bug priority:>=high assignee:12 "sign in"');
    expect(filter).toBe(printSelection(filterSelection!));
    expect(parseSelection(filter!)).toEqual(filterSelection);
  });

  it('a query that cannot be read is a 422 naming filter, the place and what was expected', () => {
    expect(refusal(() => readWebhookFilter('is:open status:', 1))).toEqual(["filter: at 9: expected a value after 'status:'"]);
    expect(refusal(() => readWebhookFilter('stauts:todo', 1))[0]).toMatch(/^filter: at 1: unknown qualifier 'stauts'/);
  });

  it('sort: is refused: a filter selects events, it orders nothing', () => {
    expect(refusal(() => readWebhookFilter('type:bug sort:updated-desc', 1))[0]).toMatch(
      /^filter: 'sort:updated-desc'.*leave it out/,
    );
  });

  it('a filter whose ids in place of @me make it longer than a query may be is refused', () => {
    // 999 characters with `@me`; 1,011 with a 15-digit account id in its place.
    const query = `assignee:@me ${'x'.repeat(999 - 'assignee:@me '.length)}`;
    expect(Array.from(query)).toHaveLength(999);
    expect(readWebhookFilter(query, 7)).not.toBeNull();
    expect(refusal(() => readWebhookFilter(query, 123_456_789_012_345))[0]).toMatch(/^filter is too long/);
  });
});

describe('what a filter needs read at the fan-out', () => {
  const needs = (...queries: string[]) => filterNeeds(queries.map((q) => parseSelection(q)));

  it('nothing for the fields the event carries', () => {
    expect(
      needs('type:bug priority:>=high assignee:4 is:open is:blocked points:>=3 updated:>-1d due:<+0d sprint:3,none'),
    ).toEqual({
      project: false,
      activeSprint: false,
    });
  });

  it('the project for project: and label: (names and no:label), the sprint for sprint:active, negated or not', () => {
    expect(needs('project:APL')).toEqual({ project: true, activeSprint: false });
    expect(needs('-label:ui')).toEqual({ project: true, activeSprint: false });
    expect(needs('no:label')).toEqual({ project: true, activeSprint: false });
    expect(needs('-sprint:active')).toEqual({ project: false, activeSprint: true });
    expect(needs('type:bug', 'sprint:4,active label:x')).toEqual({ project: true, activeSprint: true });
  });

  it('the same for qualifiers inside OR groups and negated groups', () => {
    expect(needs('type:bug OR (is:open -(label:ui OR type:epic))')).toEqual({ project: true, activeSprint: false });
    expect(needs('type:bug OR NOT (is:open sprint:active)')).toEqual({ project: false, activeSprint: true });
    expect(needs('type:bug OR (is:open OR priority:high)')).toEqual({ project: false, activeSprint: false });
  });

  it('filters decide on issue, comment and attachment events only', () => {
    expect(eventTypes.filter(filterApplies)).toEqual([
      'issue.created',
      'issue.updated',
      'issue.deleted',
      'comment.created',
      'comment.updated',
      'comment.deleted',
      'attachment.added',
      'attachment.removed',
      // A comment back from the trash, or purged: matched against its issue, as its other events.
      'comment.restored',
      'comment.purged',
      // An attachment back from the trash, or purged: matched against its issue, as its other events.
      'attachment.restored',
      'attachment.purged',
      // An issue back from the trash, or purged: matched against the issue as it was.
      'issue.restored',
      'issue.purged',
    ]);
  });
});

describe('the issue a filter is matched against', () => {
  const stored = {
    type: 'issue',
    org_id: 1,
    id: 9,
    project_id: 2,
    sprint_id: 4,
    issue_number: 'AP-9',
    title: 'Login fails',
    description: null,
    status: 'in_progress',
    story_points: 5,
    position: 1000,
    assignee_id: 3,
    priority: 'high',
    issue_type: 'bug',
    due_date: '2026-12-01',
    parent_id: 8,
    label_ids: new Set([11, 12, 13]),
    open_blockers: 1,
    started_at: null,
    completed_at: null,
    created_at: '2026-11-20T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    rev: 1,
    updated_by: 5,
  };
  const inserted: DynamoDBRecord = {
    eventID: 'e1',
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: '100', NewImage: marshall(stored) as never },
  };
  const event = changeEventOf(inserted)!;
  const catalogue = new Map([
    [11, { name: 'UI' }],
    [12, { name: 'a11y' }],
  ]);

  it('is the payload’s issue, with the project’s prefix and its label ids named (a label gone has no name)', () => {
    const issue = selectableIssueOf(event.resource as unknown as ShownIssue, { prefix: 'AP', labelNames: catalogue, author: 5 });
    expect(issue).toEqual({
      id: 9,
      title: 'Login fails',
      project_prefix: 'AP',
      sprint_id: 4,
      status: 'in_progress',
      state: 'in_progress',
      assignee_id: 3,
      author_id: 5,
      labels: ['UI', 'a11y'],
      priority: 'high',
      type: 'bug',
      parent_id: 8,
      story_points: 5,
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-21T00:00:00.000Z',
      due_date: '2026-12-01',
      blocked: true,
      source_key: null,
      pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 },
    });
  });

  it('an issue that records its author is matched by it; otherwise no author: holds', () => {
    const shown = event.resource as unknown as ShownIssue;
    expect(selectableIssueOf({ ...shown, author_id: 6 }, { author: 5 }).author_id).toBe(6);
    expect(selectableIssueOf(shown, {}).author_id).toBe(0);
  });

  it('is admitted by the filters it matches, relative times counted from the change, sprint:active from the sprint read', () => {
    const issue = selectableIssueOf(event.resource as unknown as ShownIssue, { prefix: 'AP', labelNames: catalogue, author: 5 });
    const at = '2026-11-21T00:00:00.000Z';
    const subject = { issue, context: filterContext(at, 4) };
    const admits = (q: string, s = subject) => filterAdmits(parseSelection(q), s);
    expect(admits('type:bug priority:>=high')).toBe(true);
    expect(admits('type:bug priority:urgent')).toBe(false);
    expect(admits('project:AP label:ui is:open is:blocked sprint:active author:5 assignee:3')).toBe(true);
    expect(admits('updated:>-1h')).toBe(true);
    expect(admits('updated:>-1h', { issue, context: filterContext('2026-11-21T02:00:00.000Z', 4) })).toBe(false);
    expect(admits('sprint:active', { issue, context: filterContext(at, null) })).toBe(false);
    expect(admits('-label:a11y')).toBe(false);
    expect(admits('type:story OR label:ui')).toBe(true);
    expect(admits('type:story OR label:wontfix')).toBe(false);
    expect(admits('NOT (type:story OR label:wontfix)')).toBe(true);
    expect(admits('(type:story priority:urgent) OR (type:bug -sprint:active)')).toBe(false);
  });

  it('no filter admits everything; a filter admits nothing when there is no issue (a comment whose issue is gone)', () => {
    expect(filterAdmits(null, undefined)).toBe(true);
    expect(filterAdmits(undefined, undefined)).toBe(true);
    expect(filterAdmits(parseSelection(''), undefined)).toBe(false);
  });
});

describe('whether a sprint was active at a change', () => {
  const activated = { status: 'active', activated_at: '2026-11-20T10:00:00.000Z' };
  const completed = { ...activated, status: 'completed', report: { completed_at: '2026-11-27T10:00:00.000Z' } };

  it('from its activation on, until its completion, whatever its status now', () => {
    expect(sprintActiveAt(activated, '2026-11-20T09:59:59.999Z')).toBe(false);
    expect(sprintActiveAt(activated, '2026-11-20T10:00:00.000Z')).toBe(true);
    expect(sprintActiveAt(completed, '2026-11-25T00:00:00.000Z')).toBe(true);
    expect(sprintActiveAt(completed, '2026-11-27T10:00:00.000Z')).toBe(false);
    const completing = { ...activated, status: 'completing', completion: { completed_at: '2026-11-27T10:00:00.000Z' } };
    expect(sprintActiveAt(completing, '2026-11-27T09:00:00.000Z')).toBe(true);
    expect(sprintActiveAt(completing, '2026-11-28T00:00:00.000Z')).toBe(false);
  });

  it('a sprint in planning, or none (the backlog, a sprint gone), was not; one without an activation time answers its status', () => {
    expect(sprintActiveAt({ status: 'planning' }, '2026-11-20T10:00:00.000Z')).toBe(false);
    expect(sprintActiveAt(undefined, '2026-11-20T10:00:00.000Z')).toBe(false);
    expect(sprintActiveAt({ status: 'active' }, '2026-11-20T10:00:00.000Z')).toBe(true);
  });
});

describe('custom fields in a filter (cf.<key>:)', () => {
  const field = (id: number, key: string, type: FieldDefinition['type'], options: string[] = []): FieldDefinition => ({
    version: 1,
    id,
    key,
    name: key,
    type,
    description: null,
    required: false,
    options: options.map((name, i) => ({ id: i + 1, name, color: '#6b7280' })),
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: '2026-11-01T00:00:00.000Z',
  });
  const fields = [field(1, 'severity', 'select', ['low', 'high']), field(2, 'estimate', 'number'), field(3, 'owner', 'account')];
  const stored = {
    type: 'issue',
    org_id: 1,
    id: 9,
    project_id: 2,
    sprint_id: null,
    issue_number: 'AP-9',
    title: 'Login fails',
    status: 'todo',
    position: 1000,
    priority: 'high',
    issue_type: 'bug',
    created_at: '2026-11-20T00:00:00.000Z',
    updated_at: '2026-11-21T00:00:00.000Z',
    rev: 1,
    updated_by: 5,
    custom_fields: { '1': 2, '2': 3, '3': 7 },
  };
  const event = changeEventOf({
    eventID: 'e1',
    eventName: 'INSERT',
    dynamodb: { SequenceNumber: '100', NewImage: marshall(stored) as never },
  })!;

  it('needs the project read (its fields name the values), negated or in a group', () => {
    expect(filterNeeds([parseSelection('cf.severity:high')])).toEqual({ project: true, activeSprint: false });
    expect(filterNeeds([parseSelection('type:bug OR -has:cf.severity')])).toEqual({ project: true, activeSprint: false });
  });

  it('an account field’s me or @me is the account writing the filter', () => {
    expect(webhookFilterFields('cf.owner:me,@me,3', 7).filter).toBe('cf.owner:7,3');
  });

  it('an issue event carries the values as stored; through the project’s fields they are matched by key', () => {
    expect(event.customFieldValues).toEqual({ '1': 2, '2': 3, '3': 7 });
    const issue = selectableIssueOf(event.resource as unknown as ShownIssue, {
      prefix: 'AP',
      customFields: selectableValues(event.customFieldValues, fields),
    });
    const subject = { issue, context: filterContext(event.at, null) };
    const admits = (q: string) => filterAdmits(readWebhookFilter(q, 7), subject);
    expect(admits('cf.severity:high')).toBe(true);
    expect(admits('cf.severity:low')).toBe(false);
    expect(admits('cf.estimate:>=3 cf.owner:me')).toBe(true);
    expect(admits('cf.owner:@me')).toBe(true);
    expect(admits('cf.nokey:x')).toBe(false);
    expect(admits('-cf.nokey:x has:cf.estimate')).toBe(true);
    // Without the project's fields (not read), no cf. condition holds.
    expect(
      filterAdmits(parseSelection('cf.severity:high'), {
        ...subject,
        issue: selectableIssueOf(event.resource as unknown as ShownIssue, {}),
      }),
    ).toBe(false);
  });
});

describe('the change feed’s bundle', () => {
  it('evaluates filters without loading zod (its start-up time; tools/bench/bundles.ts)', async () => {
    const out = await build({
      entryPoints: ['lib/webhooks/fanout.ts'],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs).toContain('lib/model/selection/evaluate.ts');
    expect(inputs.filter((path) => /node_modules\/zod\/|lib\/schemas\//.test(path))).toEqual([]);
  });
});

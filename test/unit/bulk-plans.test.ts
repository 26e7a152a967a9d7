import { describe, expect, it } from 'vitest';
import {
  checkDryTarget,
  checkPlainCreate,
  checkVersion,
  dryCreate,
  dryFields,
  dryPlace,
  placeAmong,
} from '../../lib/model/bulk-plans.ts';
import { assigneeMessage, newIssue, targetSprintMessage, type ProjectRules } from '../../lib/model/issue-plans.ts';
import type { Catalogue } from '../../lib/model/labels.ts';
import { defaultStates, type Workflow } from '../../lib/model/workflow.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { NotFoundError, PreconditionFailedError, SprintBusyError, ValidationError } from '../../lib/vocabulary/errors.ts';

const now = '2025-05-01T10:00:00.000Z';
const later = '2025-05-02T10:00:00.000Z';

const workflow = (): Workflow => ({
  states: defaultStates(now),
  homes: { backlog: 1, todo: 2, in_progress: 3, done: 4, cancelled: 5 },
  moved: new Map(),
  rev: 1,
  lastId: 5,
});
const catalogue: Catalogue = new Map([[1, { name: 'bug', color: '#d73a4a' }]]);
const rules: ProjectRules = { catalogue, workflow: workflow(), fields: [] };
const sprint = { projectId: 5, sprintId: 9 };

const errorOf = (run: () => unknown): unknown => {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
};

describe('checkPlainCreate', () => {
  const read = { sprint: { status: 'active' }, accounts: new Set([3]) };

  it('answers the label ids of a create that passes every check', () => {
    expect(checkPlainCreate({ title: 't', labels: ['BUG'], assignee_id: 3 }, 9, read, rules, now)).toEqual([1]);
    expect(checkPlainCreate({ title: 't' }, null, { sprint: undefined, accounts: new Set() }, rules, now)).toEqual([]);
  });

  it('refuses, in the order a single create does: labels, state, list, list completing, assignee', () => {
    const unknownLabel = errorOf(() => checkPlainCreate({ title: 't', labels: ['x'], status: 'nope' }, 9, read, rules, now));
    expect((unknownLabel as ValidationError).errors[0]).toMatch(/^labels: unknown label 'x'/);
    const unknownState = errorOf(() =>
      checkPlainCreate({ title: 't', status: 'nope' }, 9, { ...read, sprint: undefined }, rules, now),
    );
    expect((unknownState as ValidationError).errors[0]).toMatch(/^status: 'nope' is no state/);
    expect(errorOf(() => checkPlainCreate({ title: 't' }, 9, { ...read, sprint: undefined }, rules, now))).toEqual(
      new NotFoundError('Sprint'),
    );
    const completing = { ...read, sprint: { status: 'completing' } };
    expect(errorOf(() => checkPlainCreate({ title: 't', assignee_id: 4 }, 9, completing, rules, now))).toBeInstanceOf(
      SprintBusyError,
    );
    expect(
      (errorOf(() => checkPlainCreate({ title: 't', assignee_id: 4 }, 9, read, rules, now)) as ValidationError).errors,
    ).toEqual([assigneeMessage]);
  });
});

describe('dryCreate', () => {
  const read = { prefix: 'APL', issueSeq: 40, taken: 2, length: 5 };

  it('answers the issue numbered after those taken before it, id 0, last of its list', () => {
    const issue = dryCreate({ at: sprint, input: { title: 'Dry', labels: ['bug'] }, now }, undefined, read, [1], 8, rules);
    expect(issue).toMatchObject({ id: 0, issue_number: 'APL-43', position: 6, parent_id: 8, status: 'todo', created_at: now });
    expect(issue.labels).toEqual([{ id: 1, name: 'bug', color: '#d73a4a' }]);
  });

  it('answers the place asked, or last when it is past the end', () => {
    const request = { at: sprint, input: { title: 'Dry' }, now };
    expect(dryCreate(request, 2, read, [], null, rules).position).toBe(2);
    expect(dryCreate(request, 40, read, [], null, rules).position).toBe(6);
  });

  it('refuses a state the project has not', () => {
    const request = { at: sprint, input: { title: 'Dry', status: 'shipped' }, now };
    expect(() => dryCreate(request, undefined, read, [], null, rules)).toThrow(ValidationError);
  });
});

describe('a dry update', () => {
  const current: Issue = newIssue(
    { id: 7, number: 7, positionSeq: 1 },
    'APL',
    { at: sprint, input: { title: 'A' }, now },
    [],
    null,
    rules,
  );

  it('expects the version it names, or any', () => {
    expect(() => checkVersion(undefined, 3)).not.toThrow();
    expect(() => checkVersion(3, 3)).not.toThrow();
    expect(errorOf(() => checkVersion(2, 3))).toBeInstanceOf(PreconditionFailedError);
  });

  it('refuses a target sprint the project has not (422) and one being completed (409); the backlog always takes it', () => {
    expect((errorOf(() => checkDryTarget(4, undefined)) as ValidationError).errors).toEqual([targetSprintMessage]);
    expect(errorOf(() => checkDryTarget(4, { status: 'completing' }))).toBeInstanceOf(SprintBusyError);
    expect(() => checkDryTarget(4, { status: 'planning' })).not.toThrow();
    expect(() => checkDryTarget(null, undefined)).not.toThrow();
  });

  it('changes the fields sent and the state with its times', () => {
    const next = dryFields(current, { title: 'B', priority: 'high', status: 'done' }, rules.workflow, later);
    expect(next).toMatchObject({
      title: 'B',
      priority: 'high',
      status: 'done',
      status_category: 'done',
      completed_at: later,
      updated_at: later,
    });
    expect(current.title).toBe('A');
  });

  it('places a moved issue last of the target list or at the place asked, one list shorter and the other longer', () => {
    expect(dryPlace(undefined, 4, 2)).toEqual({ position: 3, from: 3, to: 3 });
    expect(dryPlace(1, 4, 2)).toEqual({ position: 1, from: 3, to: 3 });
  });

  it('places an issue in its own list among its siblings, or leaves it where it is', () => {
    expect(dryPlace(9, 4, undefined)).toEqual({ position: 4, from: 4, to: undefined });
    expect(dryPlace(2, 4, undefined)).toEqual({ position: 2, from: 4, to: undefined });
    expect(dryPlace(undefined, 4, undefined)).toEqual({ position: undefined, from: 4, to: undefined });
  });

  it('takes a place past the end as last', () => {
    expect(placeAmong(3, 10)).toBe(4);
    expect(placeAmong(3, 2)).toBe(2);
  });
});

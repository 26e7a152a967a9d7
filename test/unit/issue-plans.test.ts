import { describe, expect, it } from 'vitest';
import {
  checkTarget,
  isPlainUpdate,
  listRefusal,
  newIssue,
  placeInWindow,
  placeStep,
  planCreate,
  planCreatesTogether,
  planFieldChanges,
  planPackedRun,
  RENUMBER_STEP,
  RENUMBER_WITH_WRITE,
  stateOfNewIssue,
  targetSprintMessage,
  updateTarget,
  type ProjectRules,
} from '../../lib/model/issue-plans.ts';
import { labelIdsIn, labelsShown, type Catalogue } from '../../lib/model/labels.ts';
import { appendedPosition, type ListWindow } from '../../lib/model/positions.ts';
import { defaultStates, type Workflow, type WorkflowState } from '../../lib/model/workflow.ts';
import type { Issue } from '../../lib/schemas/issues.ts';
import { NotFoundError, SprintBusyError, ValidationError } from '../../lib/vocabulary/errors.ts';

const now = '2025-05-01T10:00:00.000Z';
const later = '2025-05-02T10:00:00.000Z';

/** The five default states (ids 1..5: backlog, todo, in_progress, done, cancelled), and `review` (6). */
function workflow(changes: (states: WorkflowState[]) => void = () => undefined): Workflow {
  const states = defaultStates(now);
  states.push({ ...states[2]!, id: 6, name: 'Review', order: 3500 });
  changes(states);
  return { states, homes: { backlog: 1, todo: 2, in_progress: 3, done: 4, cancelled: 5 }, moved: new Map(), rev: 1, lastId: 6 };
}

const catalogue: Catalogue = new Map([
  [1, { name: 'bug', color: '#d73a4a' }],
  [2, { name: 'Frontend', color: '#0000ff' }],
]);

const rules = (over: Partial<ProjectRules> = {}): ProjectRules => ({ catalogue, workflow: workflow(), fields: [], ...over });

const slot = { id: 41, number: 7, positionSeq: 3 };
const backlog = { projectId: 5, sprintId: null };
const sprint = { projectId: 5, sprintId: 9 };

const errorsOf = (run: () => unknown): string[] => {
  try {
    run();
  } catch (err) {
    if (err instanceof ValidationError) return err.errors;
    throw err;
  }
  throw new Error('expected a refusal');
};

/** An issue as read, in state `todo` of a sprint. */
const issue = (over: Partial<Issue> = {}): Issue => ({
  ...newIssue(slot, 'APL', { at: sprint, input: { title: 'Read' }, now }, [1], null, rules()),
  ...over,
});

describe('labels of an issue write', () => {
  it('names labels by id or by name in any case, each once, in id order', () => {
    expect(labelIdsIn(catalogue, ['FRONTEND', 1, 'Bug'])).toEqual([1, 2]);
  });

  it('refuses every label the catalogue does not hold, naming each', () => {
    expect(errorsOf(() => labelIdsIn(catalogue, [3, 'bug', 'ux']))).toEqual([
      "labels: unknown label 3, 'ux' (not in this project's catalogue)",
    ]);
  });

  it('shows the labels by name, leaving out those the catalogue no longer holds', () => {
    expect(labelsShown([2, 1, 8], catalogue)).toEqual([
      { id: 1, name: 'bug', color: '#d73a4a' },
      { id: 2, name: 'Frontend', color: '#0000ff' },
    ]);
  });
});

describe('stateOfNewIssue', () => {
  it('puts a create in the first state of todo in a sprint, of backlog in the backlog', () => {
    expect(stateOfNewIssue(workflow(), { title: 't' }, 9, now)).toEqual({
      state_id: 2,
      status: 'todo',
      started_at: null,
      completed_at: null,
    });
    expect(stateOfNewIssue(workflow(), { title: 't' }, null, now).state_id).toBe(1);
  });

  it('starts an issue created in progress, and completes one created done', () => {
    expect(stateOfNewIssue(workflow(), { title: 't', status: 'review' }, 9, now)).toEqual({
      state_id: 6,
      status: 'in_progress',
      started_at: now,
      completed_at: null,
    });
    expect(stateOfNewIssue(workflow(), { title: 't', status: 'done' }, 9, now).completed_at).toBe(now);
  });

  it("refuses a state's required fields missing, without the line of allowed moves", () => {
    const strict = workflow((states) => (states[5]!.requiredFields = ['assignee_id']));
    expect(errorsOf(() => stateOfNewIssue(strict, { title: 't', status: 'review' }, 9, now))).toEqual([
      "status: entering 'review' requires assignee_id (rule: required_fields of 'review')",
    ]);
    expect(stateOfNewIssue(strict, { title: 't', status: 'review', assignee_id: 3 }, 9, now).state_id).toBe(6);
  });

  it('refuses a state the project has not', () => {
    expect(errorsOf(() => stateOfNewIssue(workflow(), { title: 't', status: 'shipped' }, 9, now))[0]).toMatch(
      /^status: 'shipped' is no state of this project/,
    );
  });
});

describe('planCreate', () => {
  it('writes the issue on its slot: number, appended key, defaults, labels shown by name', () => {
    const plan = planCreate(slot, 'APL', { at: sprint, input: { title: 'New', labels: ['frontend'] }, now }, 12, rules());
    expect(plan.labelIds).toEqual([2]);
    expect(plan.issue).toMatchObject({
      id: 41,
      project_id: 5,
      sprint_id: 9,
      issue_number: 'APL-7',
      status: 'todo',
      state_id: 2,
      position: appendedPosition(3),
      priority: 'none',
      type: 'task',
      parent_id: 12,
      labels: [{ id: 2, name: 'Frontend', color: '#0000ff' }],
      created_at: now,
      updated_at: now,
      blocked: false,
    });
  });

  it("keeps an import's times and key, its time of change being the source's", () => {
    const imported = { created_at: '2020-01-01T00:00:00Z', updated_at: '2020-02-01T00:00:00Z', source_key: 'JIRA-1' };
    const plan = planCreate(slot, 'APL', { at: backlog, input: { title: 'Old', status: 'done' }, imported, now }, null, rules());
    expect(plan.issue).toMatchObject({
      created_at: '2020-01-01T00:00:00Z',
      updated_at: '2020-02-01T00:00:00Z',
      completed_at: '2020-02-01T00:00:00Z',
      source_key: 'JIRA-1',
    });
  });

  it('refuses unknown labels before it looks at the state', () => {
    const request = { at: sprint, input: { title: 'x', labels: ['nope'], status: 'shipped' }, now };
    expect(errorsOf(() => planCreate(slot, 'APL', request, null, rules()))).toEqual([
      "labels: unknown label 'nope' (not in this project's catalogue)",
    ]);
  });
});

describe('planCreatesTogether', () => {
  const reserved = { prefix: 'APL', slots: [1, 2, 3].map((i) => ({ id: 100 + i, number: i, positionSeq: i })) };

  it('gives a parent to its first children while it has room, and none to the others', () => {
    const creates = [1, 2, 3].map((i) => ({ sprintId: null, input: { title: `c${i}`, parent_id: 50 } }));
    const parents = new Map([[50, { link: 'link-50', room: 2 }]]);
    const plans = planCreatesTogether(5, creates, reserved, parents, rules(), now);
    expect(plans.map((p) => ('issue' in p ? [p.issue.id, p.issue.parent_id, p.parent] : p))).toEqual([
      [101, 50, 'link-50'],
      [102, 50, 'link-50'],
      [103, null, undefined],
    ]);
    // The parents given are not changed by the plan.
    expect(parents.get(50)!.room).toBe(2);
  });

  it('creates without its parent an issue whose parent was refused or has no link', () => {
    const creates = [
      { sprintId: 9, input: { title: 'a', parent_id: 60 } },
      { sprintId: 9, input: { title: 'b', parent_id: 61 } },
    ];
    const plans = planCreatesTogether(5, creates, reserved, new Map([[61, { link: undefined, room: 5 }]]), rules(), now);
    expect(plans.map((p) => 'issue' in p && [p.issue.parent_id, p.issue.sprint_id])).toEqual([
      [null, 9],
      [null, 9],
    ]);
  });

  it('answers a refused create by its index; a refusal after its parent was given keeps the room it took', () => {
    const creates = [
      { sprintId: null, input: { title: 'a', labels: ['nope'], parent_id: 50 } },
      { sprintId: null, input: { title: 'b', status: 'shipped', parent_id: 50 } },
      { sprintId: null, input: { title: 'c', parent_id: 50 } },
    ];
    const plans = planCreatesTogether(5, creates, reserved, new Map([[50, { link: 'p', room: 1 }]]), rules(), now);
    expect(plans[0]).toMatchObject({ index: 0, refused: expect.any(ValidationError) });
    expect(plans[1]).toMatchObject({ index: 1, refused: expect.any(ValidationError) });
    expect(plans[2]).toMatchObject({ index: 2, parent: undefined, issue: { parent_id: null, id: 103 } });
  });
});

describe('planFieldChanges', () => {
  it('sets the plain fields sent, by their declared names, beside what the base holds', () => {
    const { set, next } = planFieldChanges(issue(), { title: 'New', story_points: 3, type: 'bug' }, rules(), {
      updatedAt: later,
      sprintId: null,
    });
    expect(set).toEqual({ updatedAt: later, sprintId: null, title: 'New', storyPoints: 3, type: 'bug' });
    expect(next).toMatchObject({ title: 'New', story_points: 3, type: 'bug', sprint_id: null, updated_at: later });
  });

  it('moves the state with its category and times; the answer names the state', () => {
    const { set, next } = planFieldChanges(issue(), { status: 'review' }, rules(), { updatedAt: later });
    expect(set).toEqual({ updatedAt: later, stateId: 6, status: 'in_progress', startedAt: later, completedAt: null });
    expect(next).toMatchObject({ status: 'review', status_category: 'in_progress', started_at: later, state_id: 6 });
  });

  it("holds a move to the state's rules on the issue as the update leaves it", () => {
    const strict = rules({ workflow: workflow((states) => (states[5]!.requiredFields = ['story_points'])) });
    expect(errorsOf(() => planFieldChanges(issue(), { status: 'review' }, strict, { updatedAt: later }))).toEqual([
      "status: entering 'review' requires story_points (rule: required_fields of 'review')",
      'allowed next states: backlog, in_progress, done, cancelled, review',
    ]);
    expect(planFieldChanges(issue(), { status: 'review', story_points: 2 }, strict, { updatedAt: later }).set.stateId).toBe(6);
  });

  it('refuses a blocked issue a state that refuses blocked ones', () => {
    const guarded = rules({ workflow: workflow((states) => (states[3]!.refuseBlocked = true)) });
    const errors = errorsOf(() => planFieldChanges(issue({ blocked: true }), { status: 'done' }, guarded, { updatedAt: later }));
    expect(errors[0]).toBe("status: a blocked issue may not enter 'done' (rule: refuse_blocked of 'done')");
  });

  it('sets labels by id and shows them by name; refuses unknown ones', () => {
    const { set, next } = planFieldChanges(issue(), { labels: ['BUG', 2] }, rules(), { updatedAt: later });
    expect(set.labelIds).toEqual([1, 2]);
    expect(next.labels.map((l) => l.name)).toEqual(['bug', 'Frontend']);
    expect(() => planFieldChanges(issue(), { labels: [9] }, rules(), { updatedAt: later })).toThrow(ValidationError);
  });

  it('does not change the base it was given', () => {
    const base = { updatedAt: later };
    planFieldChanges(issue(), { title: 'x' }, rules(), base);
    expect(base).toEqual({ updatedAt: later });
  });
});

describe('where an update goes', () => {
  it('moves to the list it names, else stays in its own', () => {
    expect(updateTarget(sprint, { sprint_id: null })).toEqual({ target: null, moving: true });
    expect(updateTarget(sprint, { sprint_id: 9 })).toEqual({ target: 9, moving: false });
    expect(updateTarget(backlog, { title: 'x' })).toEqual({ target: null, moving: false });
  });

  it('refuses a sprint the project has not, not the backlog', () => {
    expect(errorsOf(() => checkTarget(4, false))).toEqual([targetSprintMessage]);
    expect(() => checkTarget(null, false)).not.toThrow();
    expect(() => checkTarget(4, true)).not.toThrow();
  });

  it('takes together only updates that leave the issue where it is, with no new parent', () => {
    expect(isPlainUpdate({ title: 'x', sprint_id: 9 }, sprint)).toBe(true);
    expect(isPlainUpdate({ position: 1 }, sprint)).toBe(false);
    expect(isPlainUpdate({ parent_id: null }, sprint)).toBe(false);
    expect(isPlainUpdate({ sprint_id: null }, sprint)).toBe(false);
  });

  it('tells a list that cannot take a write: project gone, sprint gone, sprint completing', () => {
    expect(listRefusal(false, null, undefined)).toEqual(new NotFoundError('Project'));
    expect(listRefusal(true, 9, undefined)).toEqual(new NotFoundError('Sprint'));
    expect(listRefusal(true, 9, { status: 'completing' })).toBeInstanceOf(SprintBusyError);
    expect(listRefusal(true, 9, { status: 'active' })).toBeUndefined();
    expect(listRefusal(true, null, undefined)).toBeUndefined();
  });
});

describe('placeStep', () => {
  it('leaves an issue where it is, or appends a moved one, when no place is asked', () => {
    expect(placeStep(false, 5, undefined)).toEqual({ kind: 'stay' });
    expect(placeStep(true, 5, undefined)).toEqual({ kind: 'append' });
  });

  it('appends at a place past the end, but keeps the only issue of its list at 1', () => {
    expect(placeStep(false, 3, 4)).toEqual({ kind: 'append' });
    expect(placeStep(true, 0, 1)).toEqual({ kind: 'append' });
    expect(placeStep(false, 0, 7)).toEqual({ kind: 'kept', at: 1 });
  });

  it('reads the neighbours for a place among the siblings', () => {
    expect(placeStep(false, 3, 3)).toEqual({ kind: 'window' });
    expect(placeStep(true, 3, 1)).toEqual({ kind: 'window' });
  });
});

describe('placeInWindow', () => {
  const spaced = (n: number, step = 1024): ListWindow => ({
    slots: Array.from({ length: n }, (_, i) => ({ id: i + 1, position: (i + 1) * step })),
    before: 0,
    atStart: true,
    atEnd: true,
  });
  const read = (window: ListWindow) => ({ window, listRev: 4, endBound: 1_000_000 });

  it('writes the moving issue alone at the midpoint of its neighbours', () => {
    expect(placeInWindow(true, 2, read(spaced(3)))).toEqual({
      kind: 'placed',
      place: { position: 1536, renumber: [], listRev: undefined, at: 2 },
    });
  });

  it('changes nothing for an issue asked to its own place', () => {
    expect(placeInWindow(false, 2, read({ ...spaced(3), movedAt: 1 }))).toEqual({ kind: 'placed', place: { at: 2 } });
  });

  it("respaces neighbours with no room between them, checking the list's revision", () => {
    const step = placeInWindow(true, 2, read(spaced(3, 1)));
    expect(step.kind).toBe('placed');
    const place = (step as { place: { renumber: unknown[]; listRev: unknown } }).place;
    expect(place.renumber.length).toBeGreaterThan(0);
    expect(place.listRev).toEqual({ expected: 4 });
  });

  it('answers the packed run behind the gap when no window has room', () => {
    const packed: ListWindow = {
      slots: [
        { id: 1, position: 1 },
        { id: 2, position: 2 },
      ],
      before: 0,
      atStart: false,
      atEnd: false,
    };
    expect(placeInWindow(true, 2, { window: packed, listRev: 4, endBound: 3 })).toEqual({
      kind: 'packed',
      successor: { id: 2, position: 2 },
    });
  });
});

describe('planPackedRun', () => {
  it('moves the run behind the issue; the moves near the gap go with its write, the far ones first, from the end', () => {
    const run = Array.from({ length: RENUMBER_WITH_WRITE + RENUMBER_STEP + 3 }, (_, i) => ({ id: i + 1, position: i }));
    const plan = planPackedRun(run, 10);
    expect(plan.position).toBe(appendedPosition(10));
    expect(plan.head).toHaveLength(RENUMBER_WITH_WRITE);
    expect(plan.head[0]).toEqual({ id: 1, from: 0, to: appendedPosition(11) });
    expect(plan.chunks.map((c) => [c[0]!.id, c.at(-1)!.id])).toEqual([
      [RENUMBER_WITH_WRITE + 4, run.length],
      [RENUMBER_WITH_WRITE + 1, RENUMBER_WITH_WRITE + 3],
    ]);
  });

  it('writes a short run with the issue alone', () => {
    const plan = planPackedRun([{ id: 8, position: 5 }], 20);
    expect(plan).toEqual({ position: appendedPosition(20), head: [{ id: 8, from: 5, to: appendedPosition(21) }], chunks: [] });
  });
});

import { describe, expect, it } from 'vitest';
import {
  carryOverMessage,
  planActivation,
  planCompletion,
  planSprintDelete,
  planSprintUpdate,
  slugify,
  type SprintAsRead,
} from '../../lib/model/sprint-plans.ts';
import { SprintBusyError, TransitionError, ValidationError } from '../../lib/vocabulary/errors.ts';
import { endBeforeStartMessage } from '../../lib/vocabulary/messages.ts';

const sprint = (over: Partial<SprintAsRead> = {}): SprintAsRead => ({
  status: 'planning',
  start_date: '2025-03-01',
  end_date: '2025-03-14',
  ...over,
});

const errorsOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal');
};

describe('slugify', () => {
  it('is the kebab-case of the name, accents folded', () => {
    expect(slugify('Sprint 12: Checkout!')).toBe('sprint-12-checkout');
    expect(slugify('Été à Zürich')).toBe('ete-a-zurich');
  });

  it('answers "sprint" for a name with no letter or digit', () => {
    expect(slugify('!!!')).toBe('sprint');
  });
});

describe('planSprintUpdate', () => {
  it('writes only the fields sent, the slug following the name', () => {
    const plan = planSprintUpdate(sprint(), { name: 'Sprint 2' });
    expect(plan.fields).toMatchObject({ name: 'Sprint 2', slug: 'sprint-2' });
    expect(plan.fields.start_date).toBeUndefined();
    expect(plan.expected).toEqual({});
  });

  it('a start date alone is checked against the stored end date, which the write expects unchanged', () => {
    expect(planSprintUpdate(sprint(), { start_date: '2025-03-10' }).expected).toEqual({ end_date: '2025-03-14' });
    const err = errorsOf(() => planSprintUpdate(sprint(), { start_date: '2025-03-20' }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).errors).toEqual([endBeforeStartMessage]);
  });

  it('an end date alone is checked against the stored start date, which the write expects unchanged', () => {
    expect(planSprintUpdate(sprint(), { end_date: '2025-03-02' }).expected).toEqual({ start_date: '2025-03-01' });
    expect(() => planSprintUpdate(sprint(), { end_date: '2025-02-28' })).toThrow(ValidationError);
  });

  it('both dates sent are checked together and expect nothing stored', () => {
    expect(planSprintUpdate(sprint(), { start_date: '2025-04-01', end_date: '2025-04-02' }).expected).toEqual({});
    expect(() => planSprintUpdate(sprint(), { start_date: '2025-04-02', end_date: '2025-04-01' })).toThrow(ValidationError);
  });

  it('clearing a date lifts the check', () => {
    expect(planSprintUpdate(sprint({ end_date: '2025-01-01' }), { start_date: null }).expected).toEqual({
      end_date: '2025-01-01',
    });
  });
});

describe('planSprintDelete', () => {
  it('refuses a sprint being completed or receiving a completion’s issues (409)', () => {
    expect(() => planSprintDelete(sprint({ status: 'completing' }))).toThrow(SprintBusyError);
    expect(() => planSprintDelete(sprint({ receiving: 1 }))).toThrow(SprintBusyError);
  });

  it('lets any other sprint go', () => {
    expect(() => planSprintDelete(sprint({ status: 'completed', receiving: 0 }))).not.toThrow();
  });
});

describe('planActivation', () => {
  it('starts on the stored start date, or today when none', () => {
    expect(planActivation(sprint(), '2025-05-05')).toEqual({ start: '2025-03-01' });
    expect(planActivation(sprint({ start_date: null, end_date: null }), '2025-05-05')).toEqual({ start: '2025-05-05' });
  });

  it('only a sprint in planning is activated (422)', () => {
    const err = errorsOf(() => planActivation(sprint({ status: 'active' }), '2025-05-05'));
    expect(err).toBeInstanceOf(TransitionError);
    expect((err as Error).message).toBe('Sprint is active: only a sprint in planning can be activated');
  });

  it('a sprint receiving a completion’s issues waits (409)', () => {
    expect(() => planActivation(sprint({ receiving: 2 }), '2025-05-05')).toThrow(SprintBusyError);
  });

  it('a sprint whose end is before its start (today, when unset) is refused (422)', () => {
    const err = errorsOf(() => planActivation(sprint({ start_date: null, end_date: '2025-05-01' }), '2025-05-05'));
    expect(err).toBeInstanceOf(TransitionError);
    expect((err as Error).message).toContain('end_date 2025-05-01 is before its start (2025-05-05)');
  });
});

describe('planCompletion', () => {
  const at = '2025-06-01T10:00:00.000Z';
  const active = { ...sprint({ status: 'active' }), id: 7 };

  it('an active sprint begins its completion, to the backlog by default', () => {
    expect(planCompletion(active, null, undefined, at)).toEqual({
      kind: 'begin',
      plan: { carry_over_sprint_id: null, completed_at: at, actual_end_date: '2025-06-01' },
    });
  });

  it('carries over to another sprint in planning', () => {
    const step = planCompletion(active, 8, sprint(), at);
    expect(step).toMatchObject({ kind: 'begin', plan: { carry_over_sprint_id: 8 } });
  });

  it('refuses a target that is itself, missing, or not in planning (422)', () => {
    for (const [requested, target] of [
      [7, sprint()],
      [8, undefined],
      [8, sprint({ status: 'active' })],
    ] as const) {
      const err = errorsOf(() => planCompletion(active, requested, target, at));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).errors).toEqual([carryOverMessage]);
    }
  });

  it('only an active sprint begins (422)', () => {
    expect(() => planCompletion({ ...active, status: 'planning' }, null, undefined, at)).toThrow(TransitionError);
    expect(() => planCompletion({ ...active, status: 'completed' }, null, undefined, at)).toThrow(TransitionError);
  });

  it('a completing sprint is finished as stored; another target asked for is a 409 after it', () => {
    const completing = {
      ...active,
      status: 'completing' as const,
      completion: { carry_over_sprint_id: null, completed_at: at, actual_end_date: '2025-06-01' },
    };
    expect(planCompletion(completing, null, undefined, at)).toEqual({ kind: 'finish' });
    const step = planCompletion(completing, 8, sprint(), at);
    expect(step.kind).toBe('finish');
    expect(step.kind === 'finish' && step.conflict).toBeInstanceOf(SprintBusyError);
    expect(step.kind === 'finish' && step.conflict?.message).toBe(
      'The sprint was completed with its open issues carried over to the backlog',
    );
  });
});

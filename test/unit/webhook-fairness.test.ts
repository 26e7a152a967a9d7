import { describe, expect, it } from 'vitest';
import {
  attemptSpeed,
  deferDelayMs,
  endpointInFlightCap,
  LANE_CONCURRENCY,
  laneOf,
  messageGroupOf,
  nextMessage,
  orgInFlightCap,
  SLOW_AFTER,
  slowAttemptsAfter,
} from '../../lib/model/fairness.ts';

describe('fair delivery rules', () => {
  it('put every message of an organisation in one message group, and organisations in different ones', () => {
    expect(messageGroupOf({ orgId: 7 })).toBe(messageGroupOf({ orgId: 7 }));
    expect(messageGroupOf({ orgId: 7 })).not.toBe(messageGroupOf({ orgId: 70 }));
  });

  it('let an organisation hold a fifth of a lane, an endpoint half of that, and always at least one', () => {
    expect(orgInFlightCap(LANE_CONCURRENCY.fast)).toBe(10);
    expect(orgInFlightCap(LANE_CONCURRENCY.slow)).toBe(2);
    expect(orgInFlightCap(16)).toBe(3);
    expect(orgInFlightCap(2)).toBe(1);
    expect(endpointInFlightCap(10)).toBe(5);
    expect(endpointInFlightCap(3)).toBe(2);
    expect(endpointInFlightCap(1)).toBe(1);
  });

  it('serve the group with the fewest messages in flight next, the oldest of its messages first', () => {
    const ready = [{ group: 'a' }, { group: 'a' }, { group: 'b' }, { group: 'c' }, { group: 'b' }];
    expect(nextMessage(ready, new Map([['a', 3]]))).toBe(2);
    expect(
      nextMessage(
        ready,
        new Map([
          ['a', 3],
          ['b', 1],
          ['c', 2],
        ]),
      ),
    ).toBe(2);
    expect(
      nextMessage(
        ready,
        new Map([
          ['a', 1],
          ['b', 1],
          ['c', 1],
        ]),
      ),
    ).toBe(0);
    expect(nextMessage(ready, new Map())).toBe(0);
    expect(nextMessage([], new Map())).toBe(-1);
  });

  it('put a message over its cap back for longer each time, at most 32 times the base, spread by the jitter', () => {
    expect(deferDelayMs(0, 1000, 0.5)).toBe(1000);
    expect(deferDelayMs(1, 1000, 0.5)).toBe(2000);
    expect(deferDelayMs(5, 1000, 0.5)).toBe(32_000);
    expect(deferDelayMs(40, 1000, 0.5)).toBe(32_000);
    expect(deferDelayMs(0, 1000, 0)).toBe(500);
    expect(deferDelayMs(0, 1000, 1)).toBe(1500);
  });

  it('call an attempt slow from the slow threshold on (half the timeout unless set), answered or not; a quicker failure says nothing', () => {
    expect(attemptSpeed({ durationMs: 10_000 }, 5000)).toBe('slow');
    expect(attemptSpeed({ status: 200, durationMs: 5000 }, 5000)).toBe('slow');
    expect(attemptSpeed({ status: 500, durationMs: 4999 }, 5000)).toBe('answered');
    expect(attemptSpeed({ durationMs: 3 }, 5000)).toBe('refused');
  });

  it('move an endpoint to the slow lane after 3 slow attempts in a row, and back at its first quick answer', () => {
    let slow = 0;
    for (let i = 0; i < SLOW_AFTER - 1; i++) slow = slowAttemptsAfter(slow, 'slow');
    expect(laneOf(slow)).toBe('fast');
    slow = slowAttemptsAfter(slow, 'refused');
    expect(laneOf(slow)).toBe('fast');
    slow = slowAttemptsAfter(slow, 'slow');
    expect(slow).toBe(SLOW_AFTER);
    expect(laneOf(slow)).toBe('slow');
    expect(laneOf(slowAttemptsAfter(slow, 'refused'))).toBe('slow');
    expect(slowAttemptsAfter(slow, 'answered')).toBe(0);
    expect(laneOf(slowAttemptsAfter(slow, 'answered'))).toBe('fast');
  });
});

import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import type { Key } from '../../lib/db/core/keys.ts';
import { batchGet, existsCheck, Refused, rereadOnStale, STALE, transact } from '../../lib/db/core/transactions.ts';
import { UnavailableError } from '../../lib/vocabulary/errors.ts';
import { explainRefusal } from '../../lib/services/refusals.ts';

let seq = 0;
const key = (what: string): Key => ({ PK: `TEST#${Date.now().toString(36)}${seq++}`, SK: what });
const put = (k: Key) => ({ item: { Put: { TableName: tableName(), Item: { ...k } } } });

afterEach(() => vi.restoreAllMocks());

describe('a refused transaction', () => {
  it('names the guard that failed, whatever its place in the transaction', async () => {
    const missing = key('missing');
    const present = key('present');
    await transact([put(present)]);
    for (const items of [
      [existsCheck(present, 'project'), existsCheck(missing, 'sprint'), put(key('new'))],
      [put(key('new')), existsCheck(missing, 'sprint'), existsCheck(present, 'project')],
    ]) {
      const refused = await transact(items).catch((err: unknown) => err);
      expect(refused).toBeInstanceOf(Refused);
      expect((refused as Refused).reason).toBe('sprint');
    }
  });

  it('means to the domain only what its reason is mapped to; other errors pass through', () => {
    const meanings = { gone: () => new UnavailableError('gone') };
    expect(explainRefusal(new Refused('gone'), meanings)).toEqual(new UnavailableError('gone'));
    const unmapped = new Refused('other');
    expect(explainRefusal(unmapped, meanings)).toBe(unmapped);
    const plain = new Error('plain');
    expect(explainRefusal(plain, meanings)).toBe(plain);
  });
});

describe('re-reading on a stale decision', () => {
  it('runs the step again while it is refused as stale, and returns its answer', async () => {
    let runs = 0;
    const answer = await rereadOnStale(async () => {
      runs++;
      if (runs < 3) throw new Refused(STALE);
      return 'done';
    });
    expect(answer).toBe('done');
    expect(runs).toBe(3);
  });

  it('gives up with 503 after the bound, and never retries another refusal', async () => {
    let runs = 0;
    await expect(
      rereadOnStale(async () => {
        runs++;
        throw new Refused(STALE);
      }, 4),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(runs).toBe(4);

    runs = 0;
    await expect(
      rereadOnStale(async () => {
        runs++;
        throw new Refused('project');
      }),
    ).rejects.toEqual(new Refused('project'));
    expect(runs).toBe(1);
  });
});

describe('the retry budget of a write that loses races', () => {
  /** What DynamoDB throws when another transaction held one of the items (nothing applied). */
  const conflict = () =>
    Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
    });

  it('runs the step again after a TransactionConflict as after a stale refusal', async () => {
    let runs = 0;
    const answer = await rereadOnStale(async () => {
      runs++;
      if (runs === 1) throw conflict();
      if (runs === 2) throw new Refused(STALE);
      return 'done';
    });
    expect([answer, runs]).toEqual(['done', 3]);
  });

  it('starts no attempt past its time bound, whatever attempts are left', async () => {
    // On a clock of the test's own, so that a busy machine's late timers change nothing.
    vi.useFakeTimers();
    try {
      const started = Date.now();
      const starts: number[] = [];
      const outcome = rereadOnStale(
        async () => {
          starts.push(Date.now() - started);
          await new Promise((r) => setTimeout(r, 40));
          throw new Refused(STALE);
        },
        { attempts: 1000, withinMs: 200, baseMs: 1, capMs: 2 },
      );
      const refused = expect(outcome).rejects.toBeInstanceOf(UnavailableError);
      await vi.runAllTimersAsync();
      await refused;
      expect(Math.max(...starts)).toBeLessThan(200);
      expect(starts.length).toBeGreaterThan(1);
      expect(starts.length).toBeLessThanOrEqual(5);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('batchGet', () => {
  const original = db.send.bind(db) as (command: unknown) => Promise<unknown>;

  /** DynamoDB answers with every key unprocessed (throttling) `times` times, then normally. */
  function throttleBatchGets(times: number) {
    let left = times;
    const spy = vi.spyOn(db, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof BatchGetCommand && left > 0) {
        left--;
        const request = command.input.RequestItems?.[tableName()];
        return { Responses: { [tableName()]: [] }, UnprocessedKeys: { [tableName()]: request } };
      }
      return original(command);
    }) as never);
    return spy;
  }

  it('reads unprocessed keys again until they come back', async () => {
    const k = key('item');
    await transact([put(k)]);
    throttleBatchGets(2);
    const [item] = await batchGet([k]);
    expect(item).toMatchObject(k);
  });

  it('ends sustained throttling in a 503 instead of reading until the function times out', async () => {
    const k = key('item');
    const spy = throttleBatchGets(Number.POSITIVE_INFINITY);
    await expect(batchGet([k])).rejects.toBeInstanceOf(UnavailableError);
    expect(spy.mock.calls.length).toBeLessThan(10);
  });
});

import type { ApiClient } from './api.ts';

/**
 * Work the service finishes after it answers (the change feed's activity and webhook deliveries, a
 * cascade's removals, an import job) is waited for, never slept on: `eventually` reads until the
 * condition holds, at once when it already does, and past its bound fails naming what it waited
 * for and what it read last.
 *
 * The bounds follow from the work (docs/local-development.md, "Waiting for background work"): the
 * local stream consumers' lag, measured over the whole suite with a CPU-bound process beside it, with
 * a margin of several times, plus what the work itself takes where it is long (a cascade's items
 * are removed page by page).
 */
export const bounds = {
  /** The change feed's activity entries and webhook deliveries of a few writes. */
  changeFeed: 20_000,
  /** The cascade's removal of `items` items (pages of up to 125 between consumer deadlines). */
  cascade: (items = 100) => 15_000 + items * 25,
  /**
   * A background job of `rows` rows (an import), over `runs` runs: each run after the first waits
   * for the stream record of the one before (the consumer's lag).
   */
  job: (rows = 100, runs = 1) => 15_000 + rows * 20 + (runs - 1) * 2_500,
} as const;

export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  boundMs: number = bounds.changeFeed,
): Promise<T> {
  const started = Date.now();
  for (let wait = 50; ; wait = Math.min(500, wait * 2)) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() - started > boundMs) {
      throw new Error(`waited ${boundMs} ms for ${what}; last read: ${JSON.stringify(value)?.slice(0, 1000)}`);
    }
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Waits until `check()` holds (what a local receiver has been sent, say), as `eventually` does. */
export function until(what: string, check: () => boolean, boundMs: number = bounds.changeFeed): Promise<boolean> {
  return eventually(
    what,
    async () => check(),
    (held) => held,
    boundMs,
  );
}

/**
 * The activity of `path` (an issue or a sprint) once it holds at least `count` entries, or those
 * `which` keeps (the change feed writes them a moment after each change).
 */
export function activityOf<E = any>(
  client: ApiClient,
  path: string,
  count: number,
  which: (entry: E) => boolean = () => true,
): Promise<E[]> {
  return eventually(
    `${count} activity entries of ${path}`,
    async () => ((await client.get(`${path}/activity`)).body as E[]).filter(which),
    (entries) => Array.isArray(entries) && entries.length >= count,
  );
}

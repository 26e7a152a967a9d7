import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendedPosition,
  appendToEnd,
  blockAtOffset,
  blockOf,
  blockStart,
  BLOCK_SPAN,
  countBefore,
  defaultPlacementOptions,
  gapFor,
  isAllocated,
  midpoint,
  planPlacement,
  POSITION_BASE,
  rankDelta,
  rankIndexOf,
  windowAt,
  windowAtStart,
  windowReadAt,
  type KeyChange,
  type Slot,
} from '../../lib/model/positions.ts';

const MARGIN = defaultPlacementOptions.maxWindow + 1;

/** List order: by position, then by id. */
const bySlot = (a: Slot, b: Slot) => a.position - b.position || a.id - b.id;

/**
 * One list and its project's allocator, moved exactly as lib/services/issues.ts does it (the same
 * pure functions; the "Query" is a slice of the sorted list), next to a model of the order a user
 * asked for. Counts what each move cost.
 */
class Simulation {
  seq = 0;
  nextId = 1;
  items = new Map<number, number>();
  model: number[] = [];
  stats = { moves: 0, renumbered: 0, largestRenumber: 0, fallbacks: 0, largestFallback: 0, largestRead: 0 };
  /** The rank counters, kept only through `rankDelta` of every key change, as the writes keep them. */
  counters: Record<string, number> = {};

  private keyChanges(changes: KeyChange[]) {
    for (const [name, by] of Object.entries(rankDelta(changes))) this.counters[name] = (this.counters[name] ?? 0) + by;
  }

  /** Every issue by position (then id), kept in order as keys change: what a Query of the list reads. */
  private order: Slot[] = [];

  /** Where `slot` is, or would go, in `order` (a binary search). */
  private indexOf(slot: Slot): number {
    let lo = 0;
    let hi = this.order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (bySlot(this.order[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private unorder(id: number) {
    const position = this.items.get(id);
    if (position !== undefined) this.order.splice(this.indexOf({ id, position }), 1);
  }

  private setKey(id: number, to: number) {
    this.keyChanges([{ from: this.items.get(id), to }]);
    this.unorder(id);
    this.items.set(id, to);
    this.order.splice(this.indexOf({ id, position: to }), 0, { id, position: to });
  }

  /** The list in order (a copy: callers may keep it while keys change). */
  sorted(): Slot[] {
    return this.order.slice();
  }

  /** The list sorted anew from every issue's key, for the checks: not the order kept above. */
  resorted(): Slot[] {
    return [...this.items].map(([id, position]) => ({ id, position })).sort(bySlot);
  }

  create() {
    this.seq += 1;
    const id = this.nextId++;
    this.setKey(id, appendedPosition(this.seq));
    this.model.push(id);
  }

  remove(index: number) {
    const id = this.model[index % this.model.length];
    if (id === undefined) return;
    this.keyChanges([{ from: this.items.get(id) }]);
    this.unorder(id);
    this.items.delete(id);
    this.model = this.model.filter((x) => x !== id);
  }

  move(index: number, place: number) {
    const id = this.model[index % this.model.length];
    if (id === undefined) return;
    this.stats.moves += 1;
    const siblings = this.model.length - 1;
    const expected = this.model.filter((x) => x !== id);
    expected.splice(Math.min(place - 1, siblings), 0, id);
    this.model = expected;

    if (place > siblings) {
      if (siblings > 0) this.setKey(id, appendedPosition(++this.seq));
      return;
    }
    const list = this.sorted();
    const { block, before, limit } = windowReadAt(rankIndexOf(this.counters), place, MARGIN);
    const from = list.findIndex((s) => s.position >= blockStart(block));
    const start = from < 0 ? list.length : from;
    const read = list.slice(start, start + limit);
    expect(start).toBe(before);
    this.stats.largestRead = Math.max(this.stats.largestRead, read.length);
    const moved = this.items.get(id) as number;
    const window = windowAt(read, before, start + limit >= list.length, id, blockOf(moved) < block);
    const gap = gapFor(place, window.before, window.slots.length);
    if (window.movedAt === gap) return;
    const plan = planPlacement({ ...window, gap, endBound: appendedPosition(this.seq + 1) });
    if (plan) {
      expect(isAllocated(plan.position)).toBe(false);
      this.setKey(id, plan.position);
      for (const r of plan.renumber) {
        expect(this.items.get(r.id)).toBe(r.from);
        this.setKey(r.id, r.to);
      }
      this.stats.renumbered += plan.renumber.length;
      this.stats.largestRenumber = Math.max(this.stats.largestRenumber, plan.renumber.length);
      return;
    }
    // The fallback of lib/services/issues.ts: re-append the run from the gap to the end, written
    // from the end backwards in chunks; the list must stay ordered after each chunk.
    this.stats.fallbacks += 1;
    const successor = window.slots[gap] as Slot;
    const run = list.slice(list.findIndex((s) => s.id === successor.id)).filter((s) => s.id !== id);
    this.stats.largestFallback = Math.max(this.stats.largestFallback, run.length);
    const first = this.seq + 1;
    this.seq += run.length + 1;
    const moves = run.map((s, i) => ({ id: s.id, to: appendedPosition(first + 1 + i) }));
    for (let end = moves.length; end > 0; end -= 100) {
      for (const m of moves.slice(Math.max(0, end - 100), end)) this.setKey(m.id, m.to);
      this.checkStrictOrder(id);
    }
    this.setKey(id, appendedPosition(first));
  }

  /** Positions of all but the moving issue strictly increase in list order (hence are unique). */
  checkStrictOrder(movingId: number) {
    const order = this.sorted().filter((s) => s.id !== movingId);
    // One assertion over the whole list (an expect per pair made this property most of the file's time).
    const unordered = order.findIndex((s, k) => k > 0 && !(s.position > order[k - 1]!.position));
    expect(unordered, `position ${order[unordered]?.position} after ${order[unordered - 1]?.position}`).toBe(-1);
  }

  check() {
    const sorted = this.resorted();
    expect(sorted.map((s) => s.id)).toEqual(this.model);
    // The counters kept by deltas equal a recount, and give every issue its place.
    const recount: Record<string, number> = {};
    for (const s of sorted) recount[`rk_${blockOf(s.position)}`] = (recount[`rk_${blockOf(s.position)}`] ?? 0) + 1;
    expect(rankIndexOf(this.counters)).toEqual(rankIndexOf(recount));
    const index = rankIndexOf(this.counters);
    // Each issue's place from the counters (those of earlier blocks, then its rank in its own), in
    // list order: 1, 2, 3... One assertion over the list: an expect per issue made this most of the
    // property's time.
    const inBlock = new Map<number, number>();
    const places = sorted.map((s) => {
      const block = blockOf(s.position);
      inBlock.set(block, (inBlock.get(block) ?? 0) + 1);
      return countBefore(index, block) + inBlock.get(block)!;
    });
    expect(places).toEqual(sorted.map((_, i) => i + 1));
    expect(new Set(sorted.map((s) => s.position)).size).toBe(sorted.length);
    const bound = appendedPosition(this.seq + 1);
    expect(sorted.filter((s) => !(Number.isSafeInteger(s.position) && s.position > 0 && s.position < bound))).toEqual([]);
  }
}

describe('positions', () => {
  it('picks a midpoint that is never an allocator position', () => {
    expect(midpoint(0, 1024)).toBe(512);
    expect(midpoint(0, 2048)).toBe(1025);
    expect(midpoint(1024, 2048)).toBe(1536);
    expect(midpoint(1023, 1025)).toBeUndefined();
    expect(midpoint(5, 6)).toBeUndefined();
    expect(midpoint(5, 7)).toBe(6);
    expect(midpoint(2047, 2050)).toBe(2049);
  });

  it('maps place k to a gap in the window, whichever end it was read from', () => {
    expect(gapFor(1, 0, 10)).toBe(0);
    expect(gapFor(4, 0, 10)).toBe(3);
    expect(gapFor(50, 40, 20)).toBe(9);
    expect(gapFor(99, 0, 10)).toBe(10);
    expect(gapFor(1, 40, 20)).toBe(0);
  });

  it('reads the window from the block that holds the place minus the margin, at most a block more than needed', () => {
    // 100 appended issues: blocks of 32 allocations.
    const counters: Record<string, number> = {};
    for (let seq = 1; seq <= 100; seq++) {
      const name = `rk_${blockOf(appendedPosition(seq))}`;
      counters[name] = (counters[name] ?? 0) + 1;
    }
    const index = rankIndexOf(counters);
    expect(index.reduce((n, [, c]) => n + c, 0)).toBe(100);
    expect(Math.max(...index.map(([, c]) => c))).toBeLessThanOrEqual(BLOCK_SPAN / 1024);
    const near = windowReadAt(index, 1, 41);
    expect(near.before).toBe(0);
    expect(near.limit).toBe(43);
    const deep = windowReadAt(index, 90, 41);
    expect(deep.before).toBeLessThanOrEqual(90 - 2 - 41);
    expect(deep.before).toBeGreaterThan(90 - 2 - 41 - 32);
    expect(deep.limit).toBe(90 + 41 + 1 - deep.before);
    expect(windowReadAt([], 5, 41)).toEqual({ block: 0, before: 0, limit: 47 });
  });

  it("reads the window of a place among the first margin + 2 from the list's first issue, whatever the index", () => {
    const indexes: [number, number][][] = [
      [],
      [[0, 1]],
      [[3, 2]],
      [
        [33, 40],
        [34, 5],
        [90, 400],
      ],
    ];
    for (const index of indexes) {
      for (let place = 1; place <= 43; place++) {
        expect(windowAtStart(place, 41)).toBe(true);
        expect(windowReadAt(index, place, 41)).toEqual({ block: index[0]?.[0] ?? 0, before: 0, limit: place + 42 });
      }
    }
    expect(windowAtStart(44, 41)).toBe(false);
    expect(windowReadAt([[3, 50]], 44, 41).before).toBe(0);
    expect(
      windowReadAt(
        [
          [3, 1],
          [4, 50],
        ],
        44,
        41,
      ),
    ).toMatchObject({ block: 4, before: 1 });
  });

  it('finds the block of an offset and the issues before it', () => {
    const index: [number, number][] = [
      [3, 2],
      [5, 4],
      [9, 1],
    ];
    expect(blockAtOffset(index, 0)).toEqual({ block: 3, before: 0 });
    expect(blockAtOffset(index, 2)).toEqual({ block: 5, before: 2 });
    expect(blockAtOffset(index, 6)).toEqual({ block: 9, before: 6 });
    expect(blockAtOffset(index, 7)).toBeUndefined();
    expect(countBefore(index, 5)).toBe(2);
    expect(countBefore(index, 10)).toBe(7);
    expect(rankIndexOf({ rk_9: 1, rk_3: 2, rk_4: 0, rk_5: 4, issuesCount: 7 })).toEqual(index);
  });

  it('counts key changes per block, leaving out what cancels', () => {
    const a = blockStart(40) + 5;
    const b = blockStart(41) + 7;
    expect(rankDelta([{ to: a }, { from: a, to: a + 1 }, { from: b }])).toEqual({ rk_40: 1, rk_41: -1 });
    const appended = appendToEnd(
      [
        { id: 1, position: a },
        { id: 2, position: b },
      ],
      7,
    );
    expect(appended.moves).toEqual([
      { id: 1, from: a, to: appendedPosition(7) },
      { id: 2, from: b, to: appendedPosition(8) },
    ]);
    expect(appended.leaving).toEqual({ rk_40: -1, rk_41: -1 });
    expect(appended.joining).toEqual({ [`rk_${blockOf(appendedPosition(7))}`]: 2 });
  });

  it('takes the moving issue out of the window and says where it was', () => {
    const keys = [1, 2, 3, 4].map((id) => ({ id, position: id * 1024 }));
    const w = windowAt(keys, 0, true, 3, false);
    expect(w).toMatchObject({ before: 0, atStart: true, atEnd: true, movedAt: 2 });
    expect(w.slots.map((s) => s.id)).toEqual([1, 2, 4]);
    const later = windowAt(keys, 7, false, 99, true);
    expect(later).toMatchObject({ before: 6, atStart: false, atEnd: false, movedAt: undefined });
    expect(later.slots.map((s) => s.id)).toEqual([1, 2, 3, 4]);
  });

  it('moves with a midpoint when there is room, renumbering nothing', () => {
    const slots = [1, 2, 3].map((id) => ({ id, position: id * 1024 }));
    expect(planPlacement({ slots, gap: 0, atStart: true, atEnd: true, endBound: 4096 })).toEqual({ position: 512, renumber: [] });
    expect(planPlacement({ slots, gap: 2, atStart: true, atEnd: true, endBound: 4096 })).toEqual({
      position: 2560,
      renumber: [],
    });
  });

  it('renumbers a small window of neighbours when the gap is full', () => {
    const slots = [
      { id: 1, position: 1024 },
      { id: 2, position: 1025 },
      { id: 3, position: 1026 },
      { id: 4, position: 4096 },
      { id: 5, position: 5120 },
    ];
    const plan = planPlacement({ slots, gap: 2, atStart: false, atEnd: false, endBound: 1e9 });
    expect(plan).toBeDefined();
    const after = new Map(slots.map((s) => [s.id, s.position]));
    for (const r of plan?.renumber ?? []) after.set(r.id, r.to);
    const order = [...after.entries(), [0, plan?.position ?? 0] as [number, number]]
      .sort((a, b) => a[1] - b[1])
      .map(([id]) => id);
    expect(order).toEqual([1, 2, 0, 3, 4, 5]);
    expect(plan?.renumber.length).toBeLessThanOrEqual(3);
    expect(after.get(1)).toBe(1024);
    expect(after.get(5)).toBe(5120);
  });

  it('moves to the top a step below the first issue, off the allocator grid, without renumbering', () => {
    const first = { id: 1, position: appendedPosition(1) };
    const top = planPlacement({ slots: [first], gap: 0, atStart: true, atEnd: true, endBound: appendedPosition(2) });
    expect(top).toEqual({ position: POSITION_BASE - 1, renumber: [] });
    const again = planPlacement({
      slots: [{ id: 2, position: POSITION_BASE - 1 }, first],
      gap: 0,
      atStart: true,
      atEnd: true,
      endBound: 0,
    });
    expect(again).toEqual({ position: POSITION_BASE - 1025, renumber: [] });
  });

  it('gives up (for the caller to re-append the run) only when no window within reach has room', () => {
    const packed = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, position: 2049 + i }));
    const bounded = [{ id: 100, position: 2048 }, ...packed, { id: 200, position: 2110 }];
    expect(planPlacement({ slots: bounded, gap: 30, atStart: false, atEnd: false, endBound: 1e9 })).toBeUndefined();
    // The same run at the end of the list has the room up to the allocator's next value.
    expect(planPlacement({ slots: bounded.slice(0, -1), gap: 55, atStart: false, atEnd: true, endBound: 1e9 })).toBeDefined();
  });

  it('keeps order and unique positions through any sequence of creates, moves and deletes', () => {
    const op = fc.oneof(
      { weight: 2, arbitrary: fc.constant({ kind: 'create' as const }) },
      {
        weight: 5,
        arbitrary: fc.record({ kind: fc.constant('move' as const), index: fc.nat(500), place: fc.integer({ min: 1, max: 80 }) }),
      },
      {
        weight: 4,
        arbitrary: fc.record({ kind: fc.constant('front' as const), index: fc.nat(500), place: fc.integer({ min: 1, max: 3 }) }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), index: fc.nat(500) }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 70 }), fc.array(op, { maxLength: 400 }), (initial, ops) => {
        const sim = new Simulation();
        for (let i = 0; i < initial; i++) sim.create();
        for (const o of ops) {
          if (o.kind === 'create') sim.create();
          else if (o.kind === 'delete') sim.remove(o.index);
          else sim.move(o.index, o.place);
          sim.check();
        }
        expect(sim.stats.largestRenumber).toBeLessThanOrEqual(defaultPlacementOptions.maxWindow);
      }),
      { numRuns: 150 },
    );
  });

  it('moves to the top of a large list at the cost of one write, however often', () => {
    const sim = new Simulation();
    for (let i = 0; i < 2000; i++) sim.create();
    for (let i = 0; i < 3000; i++) sim.move(sim.model.length - 1 - (i % 7), 1);
    sim.check();
    expect(sim.stats).toMatchObject({ renumbered: 0, fallbacks: 0 });
    expect(sim.stats.largestRead).toBeLessThanOrEqual(1 + MARGIN + 1);
  });

  it('keeps moves correct, and renumbering bounded per move, under a long run of moves into one place', () => {
    const sim = new Simulation();
    for (let i = 0; i < 2000; i++) sim.create();
    // The worst habit for sparse positions: always an issue from the end to place 2.
    for (let i = 0; i < 3000; i++) sim.move(sim.model.length - 1 - (i % 7), 2);
    sim.check();
    if (process.env.SHOW_POSITION_STATS) console.log(sim.stats);
    expect(sim.stats.largestRead).toBeLessThanOrEqual(2 + MARGIN + 1);
    expect(sim.stats.largestRenumber).toBeLessThanOrEqual(defaultPlacementOptions.maxWindow);
    // A few neighbours per move on average; a re-append of the tail about once per 200 moves.
    expect(sim.stats.renumbered / sim.stats.moves).toBeLessThan(8);
    expect(sim.stats.fallbacks).toBeLessThan(sim.stats.moves / 100);
  });
});

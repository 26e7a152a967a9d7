import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendedPosition,
  defaultPlacementOptions,
  gapFor,
  isAllocated,
  midpoint,
  planPlacement,
  POSITION_BASE,
  windowOf,
  windowRead,
  type Slot,
} from '../../lib/domain/positions.ts';

const MARGIN = defaultPlacementOptions.maxWindow + 1;

/**
 * One list and its project's allocator, moved exactly as lib/domain/issues.ts does it (the same
 * pure functions; the "Query" is a slice of the sorted list), next to a model of the order a user
 * asked for. Counts what each move cost.
 */
class Simulation {
  seq = 0;
  nextId = 1;
  items = new Map<number, number>();
  model: number[] = [];
  stats = { moves: 0, renumbered: 0, largestRenumber: 0, fallbacks: 0, largestFallback: 0, largestRead: 0 };

  sorted(): Slot[] {
    return [...this.items].map(([id, position]) => ({ id, position })).sort((a, b) => a.position - b.position || a.id - b.id);
  }

  create() {
    this.seq += 1;
    const id = this.nextId++;
    this.items.set(id, appendedPosition(this.seq));
    this.model.push(id);
  }

  remove(index: number) {
    const id = this.model[index % this.model.length];
    if (id === undefined) return;
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
      if (siblings > 0) this.items.set(id, appendedPosition(++this.seq));
      return;
    }
    const list = this.sorted();
    const { forward, limit } = windowRead(place, siblings, MARGIN);
    const read = (forward ? list : [...list].reverse()).slice(0, limit);
    this.stats.largestRead = Math.max(this.stats.largestRead, read.length);
    const window = windowOf(read, forward, list.length < limit, siblings, id);
    const gap = gapFor(place, window.before, window.slots.length);
    if (window.movedAt === gap) return;
    const plan = planPlacement({ ...window, gap, endBound: appendedPosition(this.seq + 1) });
    if (plan) {
      expect(isAllocated(plan.position)).toBe(false);
      this.items.set(id, plan.position);
      for (const r of plan.renumber) {
        expect(this.items.get(r.id)).toBe(r.from);
        this.items.set(r.id, r.to);
      }
      this.stats.renumbered += plan.renumber.length;
      this.stats.largestRenumber = Math.max(this.stats.largestRenumber, plan.renumber.length);
      return;
    }
    // The fallback of lib/domain/issues.ts: re-append the run from the gap to the end, written
    // from the end backwards in chunks; the list must stay ordered after each chunk.
    this.stats.fallbacks += 1;
    const successor = window.slots[gap] as Slot;
    const run = list.slice(list.findIndex((s) => s.id === successor.id)).filter((s) => s.id !== id);
    this.stats.largestFallback = Math.max(this.stats.largestFallback, run.length);
    const first = this.seq + 1;
    this.seq += run.length + 1;
    const moves = run.map((s, i) => ({ id: s.id, to: appendedPosition(first + 1 + i) }));
    for (let end = moves.length; end > 0; end -= 100) {
      for (const m of moves.slice(Math.max(0, end - 100), end)) this.items.set(m.id, m.to);
      this.checkStrictOrder(id);
    }
    this.items.set(id, appendedPosition(first));
  }

  /** Positions of all but the moving issue strictly increase in list order (hence are unique). */
  checkStrictOrder(movingId: number) {
    const order = this.sorted().filter((s) => s.id !== movingId);
    for (let k = 1; k < order.length; k++) expect(order[k]?.position).toBeGreaterThan(order[k - 1]?.position as number);
  }

  check() {
    const sorted = this.sorted();
    expect(sorted.map((s) => s.id)).toEqual(this.model);
    expect(new Set(sorted.map((s) => s.position)).size).toBe(sorted.length);
    for (const s of sorted) {
      expect(Number.isSafeInteger(s.position)).toBe(true);
      expect(s.position).toBeGreaterThan(0);
      expect(s.position).toBeLessThan(appendedPosition(this.seq + 1));
    }
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

  it('reads from the nearer end of the list, the place plus a margin', () => {
    expect(windowRead(1, 1000, 41)).toEqual({ forward: true, limit: 43 });
    expect(windowRead(1000, 1000, 41)).toEqual({ forward: false, limit: 44 });
    expect(windowRead(10, 1000, 41).limit).toBe(52);
    expect(windowRead(990, 1000, 41)).toEqual({ forward: false, limit: 54 });
  });

  it('takes the moving issue out of the window and says where it was', () => {
    const keys = [1, 2, 3, 4].map((id) => ({ id, position: id * 1024 }));
    const w = windowOf(keys, true, true, 3, 3);
    expect(w).toMatchObject({ before: 0, atStart: true, atEnd: true, movedAt: 2 });
    expect(w.slots.map((s) => s.id)).toEqual([1, 2, 4]);
    const back = windowOf([...keys].reverse(), false, false, 10, 99);
    expect(back).toMatchObject({ before: 6, atStart: false, atEnd: true, movedAt: undefined });
    expect(back.slots.map((s) => s.id)).toEqual([1, 2, 3, 4]);
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

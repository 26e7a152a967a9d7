/**
 * Issue positions: sparse integers, so that a move usually writes one issue only.
 *
 * Each list (a sprint's issues, a project's backlog) is ordered by `position`, then id. Positions
 * are what responses show; `position: k` in an update means "put the issue at place k" (1-based)
 * among its siblings.
 *
 * - Allocation (create, move to the end, move to another list without a place, sprint completion):
 *   `position = 2^30 + seq * 1024`, `seq` from an atomic ADD on the project's `position_seq`. Every
 *   allocation is larger than every position that exists when it is made, and allocations never
 *   repeat, so an appended issue is last and unique without looking at its list. The 2^30 offset
 *   gives the start of a list the room its end has: moving an issue to the top takes 1024 less
 *   than the first one, a million times over before that room runs out.
 * - Placing at k inside a list: one keys-only Query (LSI1Keys) reads the places around k from the
 *   nearer end of the list, with a margin of neighbours on each side. The issue takes a midpoint
 *   between its new neighbours. Computed positions are never multiples of 1024, so they cannot
 *   collide with an allocation still in flight; two computed placements in one list are serialised
 *   by a per-list revision (`positions_rev` on the sprint, `backlog_rev` on the project) that the
 *   move's transaction checks and bumps.
 * - No integer left between the neighbours (about 10 moves into the same gap): a small window of
 *   neighbours around the gap (at most `maxWindow`, taken from the margin the Query already read)
 *   is spread evenly over the room between the window's outer neighbours, in the same transaction
 *   as the move, each neighbour conditioned on its old key. The window grows only until the
 *   spacing reaches `targetSpacing`.
 * - Only when even the largest window has no room (a region packed by hundreds of moves into one
 *   place other than the top) does the caller fall back to re-appending the run after the gap with
 *   fresh allocations (lib/domain/issues.ts): the one path whose cost grows with the list.
 *
 * So a move costs one Query of min(k, n - k) + margin keys and one transaction, whatever the size
 * of the list; moving to the end costs one ADD and no Query. test/unit/positions.test.ts measures
 * what long runs of moves into one place cost.
 */

/** Room left between two allocated positions. */
export const POSITION_STEP = 1024;

/** Where allocations start: the room below the first issue of a list. A multiple of the step. */
export const POSITION_BASE = 2 ** 30;

/** The position the allocator's value `seq` stands for. */
export const appendedPosition = (seq: number) => POSITION_BASE + seq * POSITION_STEP;

/** Positions the allocator hands out; computed positions avoid them. */
export const isAllocated = (position: number) => position % POSITION_STEP === 0;

/** An issue in a list: its id and stored position. */
export interface Slot {
  id: number;
  position: number;
}

/** Consecutive siblings around the place an issue moves to (the moving issue left out). */
export interface Neighbourhood {
  /** Siblings in list order. */
  slots: Slot[];
  /** The issue goes between `slots[gap - 1]` and `slots[gap]`. */
  gap: number;
  /** `slots[0]` is the first of the list (nothing lies below it but 0). */
  atStart: boolean;
  /** The last slot is the last of the list (above it lies only `endBound`). */
  atEnd: boolean;
  /** Exclusive upper bound of any computed position: the allocation after the project's current `position_seq`. */
  endBound: number;
}

/** A neighbour moved within its list to make room. */
export interface Renumbering {
  id: number;
  from: number;
  to: number;
}

export interface Placement {
  /** The moving issue's new position. */
  position: number;
  /** Neighbours that get a new position (only those whose position changes). */
  renumber: Renumbering[];
}

export interface PlacementOptions {
  /** Most neighbours renumbered with one move. */
  maxWindow: number;
  /** A renumbered window stops growing once its spacing reaches this. */
  targetSpacing: number;
}

export const defaultPlacementOptions: PlacementOptions = { maxWindow: 40, targetSpacing: 256 };

/** The places around "place k" in a list, read from its nearer end. */
export interface ListWindow {
  /** Siblings in list order, the moving issue left out. */
  slots: Slot[];
  /** Siblings before `slots[0]` (0 when read from the start). */
  before: number;
  atStart: boolean;
  atEnd: boolean;
  /** Where the moving issue sits now, as an index into `slots`, if the window holds it. */
  movedAt?: number | undefined;
}

/**
 * How to read the places around `place` among `siblings` issues: from the start when the place is
 * in the first half of the list, else backwards from the end; `limit` keys, i.e. the places up to
 * it plus `margin` beyond, plus one in case the moving issue is among them.
 */
export function windowRead(place: number, siblings: number, margin: number): { forward: boolean; limit: number } {
  const after = Math.max(0, siblings - place + 1);
  const forward = place - 1 <= after;
  return { forward, limit: (forward ? place : after + 1) + margin + 1 };
}

/**
 * The window a read returned (`keys` in read order; `exhausted` when it reached the far end of
 * the list), with the moving issue taken out.
 */
export function windowOf(keys: Slot[], forward: boolean, exhausted: boolean, siblings: number, movedId: number): ListWindow {
  const raw = forward ? keys : [...keys].reverse();
  const movedIndex = raw.findIndex((s) => s.id === movedId);
  const slots = raw.filter((s) => s.id !== movedId);
  const atStart = forward || exhausted;
  return {
    slots,
    before: atStart ? 0 : Math.max(0, siblings - slots.length),
    atStart,
    atEnd: !forward || exhausted,
    movedAt: movedIndex >= 0 ? movedIndex : undefined,
  };
}

/**
 * Where the raw window of a keys-only read puts "place k". `before` is how many siblings lie
 * before `slots[0]` (0 when read from the start; the counter minus the window when read from the
 * end). Under concurrent changes the count may be off by a few: the place then shifts a little,
 * but order and uniqueness never depend on it.
 */
export function gapFor(place: number, before: number, windowSize: number): number {
  return Math.min(windowSize, Math.max(0, place - 1 - before));
}

/** A free integer strictly between lo and hi that the allocator never hands out, near the middle. */
export function midpoint(lo: number, hi: number): number | undefined {
  const mid = lo + Math.floor((hi - lo) / 2);
  for (const candidate of [mid, mid + 1, mid - 1]) {
    if (candidate > lo && candidate < hi && !isAllocated(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Plans a move into the gap of a neighbourhood: a midpoint when there is room, otherwise the
 * smallest window of neighbours (growing on both sides, up to `maxWindow`) whose even spread
 * reaches `targetSpacing`, or failing that the widest spread found if it leaves at least 3
 * between positions. Undefined when no window within reach has room.
 */
export function planPlacement(n: Neighbourhood, options: PlacementOptions = defaultPlacementOptions): Placement | undefined {
  const { slots, gap } = n;
  const lower = (i: number) => (i > 0 ? slots[i - 1]?.position : n.atStart ? 0 : undefined);
  const upper = (j: number) => (j < slots.length ? slots[j]?.position : n.atEnd ? n.endBound : undefined);

  const lo = lower(gap);
  const hi = upper(gap);
  const first = slots[0];
  if (gap === 0 && n.atStart && first && first.position > 2 * POSITION_STEP) {
    // To the top: a step below the first issue, like an allocation at the other end.
    let position = first.position - POSITION_STEP;
    while (isAllocated(position)) position -= 1;
    return { position, renumber: [] };
  }
  if (lo !== undefined && hi !== undefined) {
    const position = midpoint(lo, hi);
    if (position !== undefined) return { position, renumber: [] };
  }

  let best: { i: number; j: number; spacing: number } | undefined;
  let i = gap;
  let j = gap;
  for (let grow = 0; j - i < options.maxWindow; grow++) {
    // A window needs a known bound on each side: the slot just outside it, or the list's end.
    const canLeft = i > (n.atStart ? 0 : 1);
    const canRight = j < slots.length - (n.atEnd ? 0 : 1);
    if (!canLeft && !canRight) break;
    if ((grow % 2 === 0 && canLeft) || !canRight) i--;
    else j++;
    const wLo = lower(i);
    const wHi = upper(j);
    if (wLo === undefined || wHi === undefined) break;
    const spacing = Math.floor((wHi - wLo) / (j - i + 2));
    if (!best || spacing > best.spacing) best = { i, j, spacing };
    if (spacing >= options.targetSpacing) break;
  }
  if (!best || best.spacing < 3) return undefined;

  return spread(slots.slice(best.i, best.j), gap - best.i, lower(best.i) as number, upper(best.j) as number);
}

/**
 * Spreads `range` (consecutive siblings, list order) evenly over the open interval (lo, hi),
 * leaving the slot at index `hole` for the moving issue. Values that land on an allocator position
 * or on `avoid` (the moving issue's current position, still occupied until its own write) move up
 * by one or two, which stays below the next value since the spacing is at least 3. Undefined when
 * the interval is too small.
 */
export function spread(range: Slot[], hole: number, lo: number, hi: number, avoid?: number): Placement | undefined {
  const spacing = Math.floor((hi - lo) / (range.length + 2));
  if (spacing < 3) return undefined;
  const window: (Slot | undefined)[] = [...range.slice(0, hole), undefined, ...range.slice(hole)];
  let position = 0;
  const renumber: Renumbering[] = [];
  window.forEach((slot, k) => {
    let p = lo + spacing * (k + 1);
    while (isAllocated(p) || p === avoid) p += 1;
    if (slot === undefined) position = p;
    else if (slot.position !== p) renumber.push({ id: slot.id, from: slot.position, to: p });
  });
  return { position, renumber };
}

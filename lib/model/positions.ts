/**
 * Issue order: what a client sees is the place (1..n) of an issue in its list (a sprint's issues, or
 * the project backlog); what is stored is a sparse sort key, so that a move writes a bounded number
 * of items, and a rank index turns sort keys into places without reading the list.
 *
 * Stored sort key (`position` attribute, part of the issue's LSI1 key; never shown to clients)
 * - Allocation (create, move to the end, move to another list without a place, sprint completion):
 *   `2^30 + seq * 1024`, `seq` from an atomic ADD on the project's `position_seq`. Every allocation
 *   is larger than every key that exists when it is made, and allocations never repeat, so an
 *   appended issue is last and unique without looking at its list. A large sprint completion
 *   reserves one run of values for all its moves before its first batch (lib/db/issues/sprint-completion.ts):
 *   its issues are last as of that reservation, in their sprint order.
 * - Placing at k inside a list: one keys-only Query reads the keys around place k (found with the
 *   rank index, below), with a margin of neighbours on each side. The issue takes a midpoint
 *   between its new neighbours (computed keys are never multiples of 1024, so they cannot collide
 *   with an allocation in flight). The issue's list key is its sort key and then its id, so two
 *   placements into one gap at once (the same midpoint) still have places of their own: such moves
 *   commit side by side. A placement that respaces neighbours (below) rewrites keys others may be
 *   reading, so it is serialised by a per-list revision (`positions_rev` on the sprint,
 *   `backlog_rev` on the project) that its transaction checks and bumps.
 * - No integer left between the neighbours (about 10 moves into the same gap): a window of at most
 *   `maxWindow` neighbours around the gap is spread evenly, in the same transaction as the move.
 * - Only when even the largest window has no room (hundreds of moves into one place) is the run
 *   after the gap re-appended with fresh allocations, in transactions of at most 99 issues: the one
 *   path whose cost grows with the list.
 *
 * Rank index (what makes `position` a place at a flat cost)
 * - The sort space is cut into fixed blocks of `BLOCK_SPAN` (32 allocations). The list's owner
 *   item (the sprint, or the project for its backlog) keeps one counter per non-empty block,
 *   `rk_<block>` = how many issues of the list have a key in that block. Every write that puts a
 *   key into a block or takes one out (create, move, renumbered neighbours, move to another list,
 *   delete, sprint completion) ADDs to these counters in the same transaction as the issue writes,
 *   so the counters are exact whatever runs concurrently; a deleted sprint takes its counters with
 *   it, a deleted project its backlog's.
 * - The place of an issue = the counts of the blocks before its block (from the owner item, which
 *   every read of an issue already fetches with its ancestor check) + its rank inside its block:
 *   one keys-only `Select: COUNT` Query from the block's first key to the issue's key. Cost: one
 *   extra call, reading one key per issue of the block before it (~100 bytes each: 10 read units
 *   cover ~400 keys; appended blocks hold at most 32).
 * - `page=N`: the block holding offset (N-1) x per_page is found from the counters; one Query starts
 *   at that block's first key and drops the (fewer than one block of) issues before the offset. So
 *   a deep page reads at most one block more than the first page, whatever N.
 * - A move to place k reads its window from the block that holds place k - margin: at most one
 *   block + 2 x margin keys, whatever k and the list length. For k up to margin + 2 that block is
 *   the list's first whatever the counters (`windowAtStart`): read beside the issue, before them.
 * - Bounds: appended blocks hold at most 32 issues. A block grows past that only by moves into it
 *   (midpoints and spread windows stay between the neighbours); its count is what the in-block
 *   Query reads, so a block into which hundreds of issues were moved costs proportionally (still
 *   one call). The owner item carries one counter (~10 bytes) per non-empty block: about 3 KB for a
 *   10,000-issue list; a counter left at 0 by its last issue stays, about 10 bytes per 32
 *   allocations over the project's life.
 *
 * test/unit/positions.test.ts covers the arithmetic; test/integration/issues.test.ts and
 * test/e2e/issue-positions.test.ts check that every list reads 1..n after every kind of change.
 */

/** Room left between two allocated positions. */
export const POSITION_STEP = 1024;

/** Where allocations start: the room below the first issue of a list. A multiple of the step. */
export const POSITION_BASE = 2 ** 30;

/** The position the allocator's value `seq` stands for. */
export const appendedPosition = (seq: number) => POSITION_BASE + seq * POSITION_STEP;

/** Positions the allocator hands out; computed positions avoid them. */
export const isAllocated = (position: number) => position % POSITION_STEP === 0;

/** Width of a rank-index block in the sort space: 32 allocations. */
export const BLOCK_SPAN = 32 * POSITION_STEP;

/** Prefix of the owner item's attributes that count a list's issues per block. */
export const RANK_PREFIX = 'rk_';

/** The block a stored sort key falls in. */
export const blockOf = (position: number) => Math.floor(position / BLOCK_SPAN);

/** The smallest sort key of a block. */
export const blockStart = (block: number) => block * BLOCK_SPAN;

/** A list's rank index as read from its owner item: [block, count] for non-empty blocks, in order. */
export type RankIndex = [block: number, count: number][];

/** The rank index among a list owner's counters (`rk_<block>`), by the model's names (lib/db/issues/counters.ts: `listCounters`). */
export function rankIndexOf(counters: Readonly<Record<string, number>>): RankIndex {
  const index: RankIndex = [];
  for (const [name, value] of Object.entries(counters)) {
    if (!name.startsWith(RANK_PREFIX)) continue;
    const count = Number(value);
    if (count > 0) index.push([Number(name.slice(RANK_PREFIX.length)), count]);
  }
  return index.sort((a, b) => a[0] - b[0]);
}

/** Issues of the list in blocks before `block`. */
export function countBefore(index: RankIndex, block: number): number {
  let before = 0;
  for (const [b, count] of index) {
    if (b >= block) break;
    before += count;
  }
  return before;
}

/**
 * The block that holds the issue at 0-based `offset` of the list, and how many issues precede that
 * block; undefined when the list is shorter.
 */
export function blockAtOffset(index: RankIndex, offset: number): { block: number; before: number } | undefined {
  let before = 0;
  for (const [block, count] of index) {
    if (offset < before + count) return { block, before };
    before += count;
  }
  return undefined;
}

/** Sort keys leaving (`from`) and entering (`to`) a list. */
export interface KeyChange {
  from?: number | undefined;
  to?: number | undefined;
}

/** What a set of key changes in one list adds to its rank counters (`rk_<block>` -> delta, no zeros). */
export function rankDelta(changes: KeyChange[]): Record<string, number> {
  const delta: Record<string, number> = {};
  const add = (position: number, by: number) => {
    const name = `${RANK_PREFIX}${blockOf(position)}`;
    delta[name] = (delta[name] ?? 0) + by;
  };
  for (const c of changes) {
    if (c.from !== undefined) add(c.from, -1);
    if (c.to !== undefined) add(c.to, 1);
  }
  for (const [name, by] of Object.entries(delta)) if (by === 0) delete delta[name];
  return delta;
}

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

/** The places around "place k" in a list, read from the block that holds it. */
export interface ListWindow {
  /** Siblings in list order, the moving issue left out. */
  slots: Slot[];
  /** Siblings before `slots[0]`. */
  before: number;
  atStart: boolean;
  atEnd: boolean;
  /** Where the moving issue sits now, as an index into `slots`, if the window holds it. */
  movedAt?: number | undefined;
}

/**
 * Where to read the keys around "place k" with the rank index: from the first key of the block that
 * holds the list's issue at offset k - 2 - margin (or the list's first block), `limit` keys, i.e.
 * through place k + margin, plus one in case the moving issue is among them. `before` is how many
 * issues of the list (the moving one included) precede that block.
 */
export function windowReadAt(index: RankIndex, place: number, margin: number): { block: number; before: number; limit: number } {
  const total = index.reduce((n, [, count]) => n + count, 0);
  const offset = Math.max(0, Math.min(place - 2 - margin, total - 1));
  const at = blockAtOffset(index, offset) ?? { block: 0, before: 0 };
  return { block: at.block, before: at.before, limit: place + margin + 1 - at.before };
}

/**
 * Whether the window of `place` starts at the list's first key whatever the rank index says
 * (`windowReadAt` reads from the block of the list's first issue, none before it): it can be read
 * before the index is, from the start of the list.
 */
export const windowAtStart = (place: number, margin: number): boolean => place - 2 - margin <= 0;

/**
 * The window a forward read from a block returned (`keys` in list order; `exhausted` when it
 * reached the end of the list), with the moving issue taken out. `before` counts the list's issues
 * before the block; `movedBefore` says the moving issue is one of them.
 */
export function windowAt(keys: Slot[], before: number, exhausted: boolean, movedId: number, movedBefore: boolean): ListWindow {
  const movedIndex = keys.findIndex((s) => s.id === movedId);
  const siblingsBefore = Math.max(0, before - (movedBefore ? 1 : 0));
  return {
    slots: keys.filter((s) => s.id !== movedId),
    before: siblingsBefore,
    atStart: siblingsBefore === 0,
    atEnd: exhausted,
    movedAt: movedIndex >= 0 ? movedIndex : undefined,
  };
}

/**
 * Where the window of a keys-only read puts "place k". `before` is how many siblings lie before
 * `slots[0]`, from the rank index (exact, since it changes in the same transactions as the keys).
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

/** An issue appended to the end of a list: where its key goes from and to. */
export interface AppendedIssue {
  id: number;
  /** Its key in the list it leaves. */
  from: number;
  /** Its allocated key at the end of the list it joins. */
  to: number;
}

/**
 * Appends issues, in the order given, to the end of a list with the allocator values from
 * `firstSeq` on: their new keys, and what the rank counters of the list they leave and of the list
 * they join move by. The one place that says what "append these issues to the end of a list"
 * writes (sprint completion uses it).
 */
export function appendToEnd(issues: { id: number; position: number }[], firstSeq: number) {
  const moves: AppendedIssue[] = issues.map((issue, i) => ({
    id: issue.id,
    from: issue.position,
    to: appendedPosition(firstSeq + i),
  }));
  return {
    moves,
    leaving: rankDelta(moves.map((m) => ({ from: m.from }))),
    joining: rankDelta(moves.map((m) => ({ to: m.to }))),
  };
}

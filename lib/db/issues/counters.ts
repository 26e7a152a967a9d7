import { ASSIGNED_COUNT, OPEN_BLOCKERS, issueCounters, type Holder, type IssueCounter } from '../../model/derivations.ts';
import {
  BACKLOG_COUNT,
  BURNDOWN_PREFIX,
  scopeCounterNames,
  sprintCounterNames,
  type ListCounterName,
  type SprintCounters,
} from '../../model/sprint-counters.ts';
import { rankIndexOf, type RankIndex } from '../../model/positions.ts';
import { accountItem } from '../organisation/accounts.ts';
import { issueItem, searchRecordItem } from './issue-item.ts';
import { projectItem } from '../projects/projects.ts';
import { burndownNamed, burndownStored, sprintItem } from '../projects/sprints.ts';

/**
 * Where derived counters are stored: the one place their model names (lib/model/derivations.ts,
 * lib/model/sprint-counters.ts) become stored names, each under an attribute its item kind declares.
 * A sprint's counters and its scope history under the sprint item's, the backlog's count under the
 * project item's, the counters an issue keeps for others under the issue item's and its count of
 * open blockers under the search record's too, an account's count of assigned issues under the
 * account item's. A sprint's burndown days under their day's attribute (lib/db/projects/sprints.ts:
 * `burndownStored`); a list's rank blocks and board columns, named by pattern, under their names.
 */
export const listCounterStored: Readonly<Record<ListCounterName, string>> = {
  ...(Object.fromEntries([...sprintCounterNames, ...scopeCounterNames].map((c) => [c, sprintItem.stored(c)])) as Record<
    Exclude<ListCounterName, typeof BACKLOG_COUNT>,
    string
  >),
  [BACKLOG_COUNT]: projectItem.stored('backlogCount'),
};
const listCounterNamed = new Map(Object.entries(listCounterStored).map(([name, stored]) => [stored, name]));

/** The model's name of a list's or an account's counter, from its stored name. */
const named = (holder: Holder['kind'], stored: string): string =>
  (holder === 'list' && (listCounterNamed.get(stored) ?? burndownNamed(stored))) ||
  (holder === 'account' && stored === accountItem.stored('assignedCount') ? ASSIGNED_COUNT : stored);

/** The stored name of a holder's counter, from its model name. */
export function storedCounter(holder: Holder['kind'], counter: string): string {
  const named = issueCounters.find((c) => c === counter);
  if (holder === 'issue' && named) return issueItem.stored(named);
  if (holder === 'search' && counter === OPEN_BLOCKERS) return searchRecordItem.stored(OPEN_BLOCKERS);
  if (holder === 'list' && counter in listCounterStored) return listCounterStored[counter as ListCounterName];
  if (holder === 'list' && counter.startsWith(BURNDOWN_PREFIX)) return burndownStored(counter);
  if (holder === 'account' && counter === ASSIGNED_COUNT) return accountItem.stored('assignedCount');
  return counter;
}

/** The counters a stored holder keeps, by the names the model gives them (every number of a list's or an account's item). */
export function heldCounters(holder: Holder['kind'], item: Record<string, unknown>): Record<string, number> {
  const counters: readonly IssueCounter[] = holder === 'issue' ? issueCounters : holder === 'search' ? [OPEN_BLOCKERS] : [];
  if (counters.length === 0)
    return Object.fromEntries(
      Object.entries(item)
        .filter((e): e is [string, number] => typeof e[1] === 'number')
        .map(([stored, n]) => [named(holder, stored), n]),
    );
  const out: Record<string, number> = {};
  for (const c of counters) {
    const value = item[storedCounter(holder, c)];
    if (typeof value === 'number') out[c] = value;
  }
  return out;
}

/**
 * The counters a list's owner keeps (a sprint, or the project for its backlog), by the model's
 * names, from its stored item as read: what the model's rank index (lib/model/positions.ts) and the
 * board's columns read (none: no counters).
 */
export const listCounters = (owner: object | undefined): Record<string, number> => heldCounters('list', { ...owner });

/** A list's rank index (lib/model/positions.ts), from its owner's stored item as read. */
export const rankIndex = (owner: object | undefined): RankIndex => rankIndexOf(listCounters(owner));

/** A sprint's counters over its issues, from its stored item. */
export function sprintCounters(item: object): SprintCounters {
  const s = sprintItem.decode(item);
  return Object.fromEntries(sprintCounterNames.map((c) => [c, s[c]])) as SprintCounters;
}

/** How many issues a list holds, from its owner's stored item (a sprint, or the project for its backlog; none: 0). */
export function listLength(sprintId: number | null, owner: object | undefined): number {
  if (!owner) return 0;
  return sprintId === null ? projectItem.field(owner, 'backlogCount') : sprintItem.field(owner, 'issuesCount');
}

import { Refused } from '../db/core/transactions.ts';
import {
  activityRefusals,
  ownerId,
  recordActivity,
  writeActivities,
  type ActivityEntry,
  type ActivityOutcome,
} from '../db/issues/activity.ts';

/**
 * How the change feed writes a project's activity entries: packed into as few transactions as
 * fit, each entry on its own only when its transaction was refused (lib/db/issues/activity.ts
 * writes them).
 */

/** Items of one TransactWriteItems at most (DynamoDB's limit). */
const MAX_ITEMS = 100;

/** Bytes of entries in one transaction at most, well within DynamoDB's 4 MB (an entry's changes may hold two descriptions). */
const MAX_BYTES = 1024 * 1024;

/**
 * Writes the entries of one project (`entries`, in stream order) in as few transactions as fit:
 * each holds the project's check, one count per owner (an item appears once in a transaction) and
 * the entries' puts. A refused transaction writes nothing: a removed project (or the one owner of
 * the transaction) refuses all its entries; otherwise its entries are written one by one, each
 * refused on its own, and an owner found removed is not tried again (ids are never reused, so a
 * cascade's thousands of removals cost one refused write, not one each). Answers what became of
 * each entry, in order.
 */
export async function recordActivities(entries: ActivityEntry[]): Promise<ActivityOutcome[]> {
  const outcomes: ActivityOutcome[] = [];
  const removed = new Set<string>();
  for (const chunk of transactionsOf(entries)) {
    const owners = new Set(chunk.map(ownerId));
    try {
      await writeActivities(chunk);
      outcomes.push(...chunk.map(() => 'written' as const));
      continue;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      if (err.reason === activityRefusals.project || (err.reason === activityRefusals.owner && owners.size === 1)) {
        outcomes.push(...chunk.map(() => err.reason as ActivityOutcome));
        if (err.reason === activityRefusals.project) removed.add('project');
        else removed.add(ownerId(chunk[0]!));
        continue;
      }
    }
    for (const entry of chunk) {
      if (removed.has('project')) outcomes.push(activityRefusals.project);
      else if (removed.has(ownerId(entry))) outcomes.push(activityRefusals.owner);
      else {
        const outcome = await recordActivity(entry);
        if (outcome === activityRefusals.project) removed.add('project');
        if (outcome === activityRefusals.owner) removed.add(ownerId(entry));
        outcomes.push(outcome);
      }
    }
  }
  return outcomes;
}

/** Consecutive runs of entries that fit one transaction (items and bytes). */
function transactionsOf(entries: ActivityEntry[]): ActivityEntry[][] {
  const chunks: ActivityEntry[][] = [];
  let chunk: ActivityEntry[] = [];
  let owners = new Set<string>();
  let bytes = 0;
  for (const entry of entries) {
    const owner = ownerId(entry);
    const size = JSON.stringify(entry.activity).length + (entry.description?.before?.length ?? 0);
    // The project's check, a count per owner and a put per entry (two with a description's text).
    const items = 1 + owners.size + (owners.has(owner) ? 0 : 1) + itemsOf(chunk) + itemsOf([entry]);
    if (chunk.length > 0 && (items > MAX_ITEMS || bytes + size > MAX_BYTES)) {
      chunks.push(chunk);
      [chunk, owners, bytes] = [[], new Set(), 0];
    }
    chunk.push(entry);
    owners.add(owner);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/** The puts of `entries`: one each, and one more for a description's text. */
const itemsOf = (entries: ActivityEntry[]) => entries.reduce((n, e) => n + (e.description ? 2 : 1), 0);

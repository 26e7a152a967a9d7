/**
 * The known key an unknown one most likely meant (the "did you mean" of a 422). Free of zod, so
 * that a model the change feed loads (lib/model/custom-fields.ts) may use it; lib/schemas/validate.ts
 * re-exports it.
 */

/** `startDate`, `StartDate`, `start-date` -> `start_date`. */
const snakeCase = (key: string) =>
  key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[\s-]+/g, '_')
    .toLowerCase();

/**
 * The known key an unknown one most likely meant, if one is near: its snake_case form
 * (`startDate` -> `start_date`), the id it names (`sprint` -> `sprint_id`), the one key it ends
 * (`points` -> `story_points`), else the closest within a Damerau-Levenshtein distance (adjacent
 * transpositions count one) scaled to its length: 1 from 4 characters, 2 from 8; none below.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = snakeCase(key);
  const exact = known.find((k) => snakeCase(k) === wanted);
  if (exact !== undefined) return exact;
  const id = known.find((k) => k === `${wanted}_id` || k === `${wanted}_ids`);
  if (id !== undefined) return id;
  const ending = known.filter((k) => k.endsWith(`_${wanted}`));
  if (ending.length === 1) return ending[0];
  let best: { key: string; distance: number } | undefined;
  for (const k of known) {
    const limit = Math.min(2, Math.floor(Math.max(k.length, wanted.length) / 4));
    const distance = editDistance(wanted, snakeCase(k));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { key: k, distance };
  }
  return best?.key;
}

/** Damerau-Levenshtein distance (optimal string alignment): insertions, deletions, substitutions, adjacent transpositions. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

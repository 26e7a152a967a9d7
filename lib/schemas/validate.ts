import type * as z from 'zod/mini';
import { ValidationError } from '../vocabulary/errors.ts';

/**
 * Turns zod issues into the 422 body's `errors` strings: "<field> <message>", the body wrapper left
 * out. An unknown key is named with the object holding it: `body` (the root), the wrapper
 * (`sprint has an unknown key ...`), or the field (`labels.0`, `carry_over`).
 */
export function issueMessages(error: z.core.$ZodError, dropWrapper = true): string[] {
  return error.issues.map((issue) => {
    const path = (dropWrapper ? issue.path.slice(1) : issue.path).map(String);
    if (issue.code === 'unrecognized_keys') {
      if (!issue.message.startsWith('has ')) return issue.message;
      const holder = path.length > 0 ? path.join('.') : issue.path.length > 0 ? String(issue.path[0]) : 'body';
      return `${holder} ${issue.message}`;
    }
    if (path.length === 0) {
      const root = issue.path[0];
      return root === undefined
        ? issue.message
        : `${String(root)} ${issue.message === 'body is required' ? 'is required' : issue.message}`;
    }
    return `${path.join('.')} ${issue.message}`;
  });
}

/** Validates `input` against `schema`; throws a ValidationError (422 `{errors}`) listing every problem. */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, input: unknown, dropWrapper = true): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(issueMessages(result.error, dropWrapper));
  return result.data;
}

/**
 * Stripe's rule (docs/api.md: Requests): a key a body (or an MCP tool's arguments) does not know is
 * refused, never ignored, so that a typo never acts. The message names each unknown key, the known
 * key it most likely meant (`nearestKey`), and the keys the object takes:
 * `has an unknown key 'startDate': did you mean 'start_date'? (known: name, ...)`, after the
 * object holding them (`where`; `issueMessages` puts it there for a body: `sprint`, `carry_over`).
 *
 * @param known the keys it takes (read-only fields accepted and ignored are not listed: none can be set)
 */
export function unknownKeysMessage(
  where: string | undefined,
  keys: readonly string[],
  known: readonly string[],
  noun = 'key',
): string {
  const list = `(known: ${known.length > 0 ? known.join(', ') : 'none'})`;
  const near = (key: string) => nearestKey(key, known);
  const subject = where === undefined ? 'has' : `${where} has`;
  if (keys.length === 1) {
    const key = keys[0]!;
    const guess = near(key);
    return `${subject} an unknown ${noun} '${key}'${guess === undefined ? '' : `: did you mean '${guess}'?`} ${list}`;
  }
  const named = keys.map((key) => {
    const guess = near(key);
    return `'${key}'${guess === undefined ? '' : ` (did you mean '${guess}'?)`}`;
  });
  return `${subject} unknown ${noun}s ${named.join(', ')} ${list}`;
}

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

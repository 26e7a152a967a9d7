import type * as z from 'zod/mini';
import { ValidationError } from '../vocabulary/errors.ts';
import { nearestKey } from '../vocabulary/nearest-key.ts';

export { nearestKey };

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

import type { z } from 'zod';
import { ValidationError } from '../domain/errors.ts';

/** Turns zod issues into the 422 body's `errors` strings: "<field> <message>", the body wrapper left out. */
export function issueMessages(error: z.ZodError, dropWrapper = true): string[] {
  return error.issues.map((issue) => {
    const path = (dropWrapper ? issue.path.slice(1) : issue.path).map(String);
    if (issue.code === 'unrecognized_keys') return issue.message;
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
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, dropWrapper = true): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ValidationError(issueMessages(result.error, dropWrapper));
  return result.data;
}

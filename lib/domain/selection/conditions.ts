import type { FieldCondition } from '../../schemas/selection.ts';

/** One condition seen as its field and that field's test, so that a `switch` on `field` narrows the test. */
export type FieldTest = {
  [K in keyof FieldCondition]-?: { field: K; test: NonNullable<FieldCondition[K]> };
}[keyof FieldCondition];

/**
 * The field a (validated) condition tests, and its test. Read from the condition's own keys, not
 * the schema's list of fields, so that the evaluator loads no zod (the change feed runs it).
 */
export function fieldTestOf(condition: FieldCondition): FieldTest {
  for (const [field, test] of Object.entries(condition)) {
    if (test !== undefined) return { field, test } as FieldTest;
  }
  // A validated condition always holds one field (lib/schemas/selection.ts).
  throw new TypeError('a condition holds no field');
}

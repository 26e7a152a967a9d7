import { selectionFields, type FieldCondition } from '../../schemas/selection.ts';

/** One condition seen as its field and that field's test, so that a `switch` on `field` narrows the test. */
export type FieldTest = {
  [K in keyof FieldCondition]-?: { field: K; test: NonNullable<FieldCondition[K]> };
}[keyof FieldCondition];

/** The field a (validated) condition tests, and its test. */
export function fieldTestOf(condition: FieldCondition): FieldTest {
  for (const field of selectionFields) {
    const test = condition[field];
    if (test !== undefined) return { field, test } as FieldTest;
  }
  // A validated condition always holds one field (lib/schemas/selection.ts).
  throw new TypeError('a condition holds no field');
}

import type { Condition, FieldCondition } from '../../schemas/selection.ts';

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

/**
 * A (validated) condition by its kind: a test of one field, a negation, or a group whose
 * conditions must all hold (`and`) or one of them (`or`).
 */
export type ConditionNode =
  | { kind: 'field'; condition: FieldCondition }
  | { kind: 'not'; condition: Condition }
  | { kind: 'and' | 'or'; conditions: Condition[] };

export function nodeOf(condition: Condition): ConditionNode {
  if (condition.not !== undefined) return { kind: 'not', condition: condition.not };
  if (condition.and !== undefined) return { kind: 'and', conditions: condition.and };
  if (condition.or !== undefined) return { kind: 'or', conditions: condition.or };
  return { kind: 'field', condition: condition as FieldCondition };
}

/** Every condition on a field in `conditions`, at any depth, negated or not (what a reader must fetch for). */
export function fieldConditions(conditions: readonly Condition[]): FieldCondition[] {
  return conditions.flatMap((c) => {
    const node = nodeOf(c);
    if (node.kind === 'field') return [node.condition];
    return fieldConditions(node.kind === 'not' ? [node.condition] : node.conditions);
  });
}

/** How many conditions on a field a condition holds, and how deeply its groups (`and`, `or`) nest (0: none). */
export function measure(condition: Condition): { terms: number; depth: number } {
  const node = nodeOf(condition);
  if (node.kind === 'field') return { terms: 1, depth: 0 };
  if (node.kind === 'not') return measure(node.condition);
  const parts = node.conditions.map(measure);
  return { terms: parts.reduce((n, p) => n + p.terms, 0), depth: 1 + Math.max(...parts.map((p) => p.depth)) };
}

import { nodeOf as nodeOfTree } from '../../vocabulary/condition-tree.ts';
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
  const node = nodeOfTree(condition);
  // Neither a negation nor a group: a test of one field (lib/schemas/selection.ts).
  return node.kind === 'field' ? { kind: 'field', condition: node.condition as FieldCondition } : node;
}

/** Every condition on a field in `conditions`, at any depth, negated or not (what a reader must fetch for). */
export function fieldConditions(conditions: readonly Condition[]): FieldCondition[] {
  return conditions.flatMap((c) => {
    const node = nodeOf(c);
    if (node.kind === 'field') return [node.condition];
    return fieldConditions(node.kind === 'not' ? [node.condition] : node.conditions);
  });
}

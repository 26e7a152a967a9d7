/**
 * How the conditions of a selection nest (lib/schemas/selection.ts), apart from what each one
 * tests: `{"not": c}`, a group `{"and": [...]}` / `{"or": [...]}`, or else a test of one field.
 * Without zod, and without the condition types (generic in them), so that both the schema, which
 * bounds how deeply groups nest, and the evaluator (lib/model/selection/), which the change feed
 * runs without zod, walk conditions the same way.
 */

/** What a condition holds as far as nesting goes. */
export interface Nesting<C> {
  not?: C | undefined;
  and?: C[] | undefined;
  or?: C[] | undefined;
}

/** A condition by its kind: a test of one field, a negation, or a group whose conditions must all hold (`and`) or one (`or`). */
export type Node<C> = { kind: 'field'; condition: C } | { kind: 'not'; condition: C } | { kind: 'and' | 'or'; conditions: C[] };

export function nodeOf<C extends Nesting<C>>(condition: C): Node<C> {
  if (condition.not !== undefined) return { kind: 'not', condition: condition.not };
  if (condition.and !== undefined) return { kind: 'and', conditions: condition.and };
  if (condition.or !== undefined) return { kind: 'or', conditions: condition.or };
  return { kind: 'field', condition };
}

/** How many conditions on a field a condition holds, and how deeply its groups (`and`, `or`) nest (0: none). */
export function measure<C extends Nesting<C>>(condition: C): { terms: number; depth: number } {
  const node = nodeOf(condition);
  if (node.kind === 'field') return { terms: 1, depth: 0 };
  if (node.kind === 'not') return measure(node.condition);
  const parts = node.conditions.map((c) => measure(c));
  return { terms: parts.reduce((n, p) => n + p.terms, 0), depth: 1 + Math.max(...parts.map((p) => p.depth)) };
}

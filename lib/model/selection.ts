/**
 * One selection grammar for issues (docs/search.md): a GitHub-style query string (`q`) and the
 * JSON form it parses into, one validator of that form, a printer back to the canonical query, and
 * one evaluator with its sort order. Pure: no storage, no clock but the `now` it is given.
 */
import { Selection } from '../schemas/selection.ts';
import { ValidationError } from '../vocabulary/errors.ts';
import { printSelection } from './selection/print.ts';
import { selectionLimits } from '../vocabulary/selection.ts';
import { nestingMessage, valueNestsDeeper } from '../vocabulary/nesting.ts';

export type { Condition, FieldCondition, NegatableCondition, Selection, SelectionSort } from '../schemas/selection.ts';
export { parseSelection } from './selection/parse.ts';
export { printCondition, printSelection } from './selection/print.ts';
export {
  defaultSort,
  issueComparator,
  matches,
  selectionMatcher,
  type SelectableIssue,
  type SelectionContext,
} from './selection/evaluate.ts';
export { issuePriorities, issueTypes, selectionLimits, sortFields } from '../vocabulary/selection.ts';
export type { IssuePriority, IssueType } from '../schemas/issues.ts';

/**
 * Checks a selection given as JSON (a search body, a stored filter): the schema of
 * lib/schemas/selection.ts, then the bound every query has (its printed form at most
 * `selectionLimits.characters` characters), so that a valid selection always prints as a query
 * that parses back to it. Throws a ValidationError (422) naming the path of each problem
 * (`and.2.status.in.0 must be one of: ...`), `name` first when given. A value nested deeper
 * than `MAX_NESTING` is refused before the schema, which recurses once per level, reads it.
 */
export function validateSelection(input: unknown, name?: string): Selection {
  if (valueNestsDeeper(input)) throw new ValidationError([nestingMessage(name ?? 'selection')]);
  const result = Selection.safeParse(input);
  if (!result.success) {
    throw new ValidationError(
      result.error.issues.map((issue) => {
        const path = [...(name === undefined ? [] : [name]), ...issue.path.map(String)];
        return `${path.length > 0 ? path.join('.') : 'selection'} ${issue.message}`;
      }),
    );
  }
  const length = Array.from(printSelection(result.data)).length;
  if (length > selectionLimits.characters) {
    throw new ValidationError([
      `${name ?? 'selection'} is too long: as a query it is ${length.toLocaleString('en')} characters (at most ${selectionLimits.characters.toLocaleString('en')})`,
    ]);
  }
  return result.data;
}

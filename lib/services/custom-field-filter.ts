import { parseSelection, selectionMatcher, type Condition, type SelectableIssue, type Selection } from '../model/selection.ts';
import { nodeOf } from '../vocabulary/condition-tree.ts';
import { selectableValues } from '../model/custom-fields.ts';
import { fieldsOf } from '../db/projects/custom-fields.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { ValidationError } from '../vocabulary/errors.ts';

/**
 * The issue lists' `fields` filter (docs/custom-fields.md): the search language's custom field
 * terms, tested on each stored issue through its project's fields. Loaded only by a list that
 * asks for it (lib/services/issues.ts: `listIssues`).
 */

/**
 * The `fields` filter: terms of the search language on custom fields only (docs/custom-fields.md),
 * each key read through the project's fields; 422 for a query that cannot be read or names anything else.
 */
export function customFieldsSelection(fields: string): Selection {
  const selection = parseSelection(fields, 'fields');
  const onlyFields = (c: Condition): boolean => {
    const node = nodeOf(c);
    if (node.kind === 'field') return 'cf' in node.condition;
    if (node.kind === 'not') return onlyFields(node.condition);
    return node.conditions.every(onlyFields);
  };
  if (!selection.and.every(onlyFields) || selection.sort !== undefined) {
    throw new ValidationError([
      'fields: takes custom field terms only (cf.<key>:value, has:cf.<key>); q or GET /api/v1/issues?q= takes the rest',
    ]);
  }
  return selection;
}

/** The stored issues of a project whose custom fields match `fields`, read through its fields. */
export type ValuesFilter = (project: object | undefined) => (item: object) => boolean;

/** The filter `fields` asks for (422 at once for one that cannot be read), for each project it meets. */
export function valuesFilter(fields: string, me: number): ValuesFilter {
  const test = selectionMatcher(customFieldsSelection(fields), { me, now: new Date(), activeSprintIds: new Set() });
  return (project) => {
    const defined = fieldsOf(project);
    return (item) =>
      test({ custom_fields: selectableValues(issueItem.field(item, 'customFields'), defined) } as unknown as SelectableIssue);
  };
}

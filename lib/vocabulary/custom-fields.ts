/**
 * The words of a project's custom fields (docs/custom-fields.md): the types a field may have and
 * the limits every path holds them to.
 */

export const fieldTypes = ['text', 'number', 'date', 'select', 'multi_select', 'account', 'url', 'checkbox'] as const;
export type FieldType = (typeof fieldTypes)[number];

/** The types whose values are options of the field. */
export const optionTypes: readonly FieldType[] = ['select', 'multi_select'];

export const fieldLimits = {
  /** Fields per project (their definitions live on the project item, read with every issue). */
  perProject: 30,
  optionsPerField: 50,
  optionsPerProject: 500,
  name: 50,
  key: 32,
  description: 500,
  optionName: 50,
  /** A text value's characters. */
  text: 1000,
  /** A url value's characters. */
  url: 2000,
  /** A number value's magnitude. */
  number: 1e15,
} as const;

/** A field's key: what `cf.<key>` searches and `custom_fields` answers by. */
export const FIELD_KEY = /^[a-z][a-z0-9_]*$/;

export const DEFAULT_OPTION_COLOR = '#6b7280';

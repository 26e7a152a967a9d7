import { nearestKey } from '../vocabulary/nearest-key.ts';
import { fieldLimits, optionTypes, type FieldType } from '../vocabulary/custom-fields.ts';
import { isCalendarDate } from '../vocabulary/values.ts';
import { ValidationError } from '../vocabulary/errors.ts';
import { foldName } from './labels.ts';

/**
 * The rules of a project's custom fields (docs/custom-fields.md), apart from the table: what a
 * field is, how an issue write's `custom_fields` becomes the values stored on the issue (by field
 * id, options by id), and how stored values are shown (by key, options by their current name). The
 * definitions are kept on the project item (lib/db/projects/custom-fields.ts), which every issue
 * read already reads: showing an issue's values costs no DynamoDB call.
 */

export interface FieldOption {
  id: number;
  name: string;
  color: string;
}

export interface FieldDefinition {
  id: number;
  key: string;
  name: string;
  type: FieldType;
  description: string | null;
  required: boolean;
  /** The choices of a `select` or `multi_select`, in their order; none for the other types. */
  options: FieldOption[];
  /** Bumped by each change of it: its ETag (`If-Match`). */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A project's fields, in id (creation) order. */
export type FieldSet = readonly FieldDefinition[];

/** A value as stored on an issue: a text, a number, true, or option ids. */
export type StoredValue = string | number | boolean | number[];
/** An issue's stored values, by field id. */
export type StoredValues = Readonly<Record<string, StoredValue>>;
/** A value as an issue answers it: options by name, an account by id; null: none (a checkbox: false). */
export type ShownValue = string | number | boolean | string[] | null;

/** The field a write or a search names: by its key, else by its name, ignoring case. */
export function fieldNamed(fields: FieldSet, ref: string): FieldDefinition | undefined {
  const folded = foldName(ref.trim());
  return fields.find((f) => f.key === folded) ?? fields.find((f) => foldName(f.name) === folded);
}

/** The option a value names: its id, or its name ignoring case. */
export function optionNamed(field: FieldDefinition, ref: unknown): FieldOption | undefined {
  if (typeof ref === 'number') return field.options.find((o) => o.id === ref);
  if (typeof ref !== 'string') return undefined;
  const folded = foldName(ref.trim());
  return field.options.find((o) => foldName(o.name) === folded);
}

/** One stored value as shown; undefined when what is stored is no value of the field any more (an option deleted). */
function shownValue(field: FieldDefinition, stored: StoredValue | undefined): ShownValue | undefined {
  if (stored === undefined) return undefined;
  switch (field.type) {
    case 'select': {
      const option = field.options.find((o) => o.id === Number(stored));
      return option?.name;
    }
    case 'multi_select': {
      const ids = new Set((Array.isArray(stored) ? stored : []).map(Number));
      const names = field.options.filter((o) => ids.has(o.id)).map((o) => o.name);
      return names.length > 0 ? names : undefined;
    }
    case 'number':
    case 'account':
      return Number(stored);
    case 'checkbox':
      return stored === true;
    default:
      return String(stored);
  }
}

/** A field with no value: null, a checkbox false. */
const noValue = (field: FieldDefinition): ShownValue => (field.type === 'checkbox' ? false : null);

/** An issue's values as it answers them: every field of its project by key, null when it has none (a checkbox: false). */
export function shownValues(stored: StoredValues | undefined, fields: FieldSet): Record<string, ShownValue> {
  const shown: Record<string, ShownValue> = {};
  for (const field of fields) shown[field.key] = shownValue(field, stored?.[String(field.id)]) ?? noValue(field);
  return shown;
}

/** What an issue stores for the values it shows (an answer read back: options by name, as the project's fields hold them). */
export function storedFromShown(fields: FieldSet, shown: Readonly<Record<string, ShownValue>> | undefined): StoredValues {
  const stored: Record<string, StoredValue> = {};
  for (const field of fields) {
    const read = storedValueOf(field, shown?.[field.key] ?? null);
    if ('value' in read && read.value !== undefined) stored[String(field.id)] = read.value;
  }
  return stored;
}

/** What an issue stores once its project's definitions changed: values of deleted fields and options dropped. */
export function settledValues(stored: StoredValues | undefined, fields: FieldSet): Record<string, StoredValue> {
  const settled: Record<string, StoredValue> = {};
  for (const field of fields) {
    const value = stored?.[String(field.id)];
    if (shownValue(field, value) === undefined) continue;
    settled[String(field.id)] =
      field.type === 'multi_select' ? sortedOptions(field, (value as number[]).map(Number)) : (value as StoredValue);
  }
  return settled;
}

const sortedOptions = (field: FieldDefinition, ids: number[]) => {
  const wanted = new Set(ids);
  return field.options.filter((o) => wanted.has(o.id)).map((o) => o.id);
};

/** What a field of a type takes, as a 422 says it. */
export const accepts: Record<FieldType, string> = {
  text: `a string of at most ${fieldLimits.text} characters`,
  number: `a number between -${fieldLimits.number} and ${fieldLimits.number}`,
  date: 'a date such as 2026-12-31 (YYYY-MM-DD, a day that exists)',
  select: 'one option, by name or id',
  multi_select: 'an array of options, by name or id',
  account: 'an account id of this organisation',
  url: `an http or https URL of at most ${fieldLimits.url} characters`,
  checkbox: 'true or false',
};

const isUrl = (v: string) => {
  if (v.length > fieldLimits.url || /\s/.test(v)) return false;
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const optionList = (field: FieldDefinition) =>
  field.options.length === 0 ? 'it has no options yet' : `options: ${field.options.map((o) => o.name).join(', ')}`;

/** A value read from a write: what is stored (undefined: none), or the problem with it. */
export type ValueRead = { value: StoredValue | undefined } | { problem: string };

/** The option a value names, or the problem: the name is no option (with the nearest one), or no name at all. */
function optionOf(field: FieldDefinition, ref: unknown, where: string): FieldOption | { problem: string } {
  const option = optionNamed(field, ref);
  if (option) return option;
  if (typeof ref !== 'string' && typeof ref !== 'number') return { problem: `${where}: must each be ${accepts.select}` };
  const guess =
    typeof ref === 'string'
      ? nearestKey(
          ref,
          field.options.map((o) => o.name),
        )
      : undefined;
  const shown = typeof ref === 'string' ? `'${ref}'` : String(ref);
  const hint = guess === undefined ? '' : ` (did you mean '${guess}'?)`;
  return { problem: `${where}: ${shown} is no option of ${field.name}${hint}; ${optionList(field)}` };
}

/**
 * A value given for a field as it is stored (undefined: none, the field cleared), or the problem
 * with it. Null clears any field; so do an empty text, an empty array and false.
 */
export function storedValueOf(field: FieldDefinition, given: unknown, where = `custom_fields.${field.key}`): ValueRead {
  if (given === null) return { value: undefined };
  const wrong = { problem: `${where}: must be ${accepts[field.type]} or null (${field.name} is a ${field.type} field)` };
  switch (field.type) {
    case 'text':
      if (typeof given !== 'string') return wrong;
      if (given.length > fieldLimits.text)
        return { problem: `${where}: is too long (maximum is ${fieldLimits.text} characters)` };
      return { value: given.trim() === '' ? undefined : given };
    case 'number':
      return typeof given === 'number' && Number.isFinite(given) && Math.abs(given) <= fieldLimits.number
        ? { value: given }
        : wrong;
    case 'date':
      return typeof given === 'string' && isCalendarDate(given) ? { value: given } : wrong;
    case 'url':
      if (typeof given !== 'string') return wrong;
      return given === '' ? { value: undefined } : isUrl(given) ? { value: given } : wrong;
    case 'checkbox':
      return typeof given === 'boolean' ? { value: given || undefined } : wrong;
    case 'account':
      return typeof given === 'number' && Number.isSafeInteger(given) && given > 0 ? { value: given } : wrong;
    case 'select': {
      const option = optionOf(field, given, where);
      return 'problem' in option ? option : { value: option.id };
    }
    case 'multi_select': {
      if (!Array.isArray(given) || given.length > fieldLimits.optionsPerField) return wrong;
      const ids: number[] = [];
      for (const ref of given) {
        const option = optionOf(field, ref, where);
        if ('problem' in option) return option;
        ids.push(option.id);
      }
      return { value: ids.length === 0 ? undefined : sortedOptions(field, ids) };
    }
  }
}

/** What an issue write does with its `custom_fields`: on a create, or an update of `current`. */
export interface ValuesWrite {
  /** An import's: a field required since leaves the issue as its source had it. */
  imported?: boolean | undefined;
  /** The values the issue stores now (an update); none: a create. */
  current?: StoredValues | undefined;
}

const fieldList = (fields: FieldSet) =>
  fields.length === 0 ? 'this project has no custom fields' : `fields: ${fields.map((f) => f.key).join(', ')}`;

/**
 * The values an issue stores after a write gives `given` (by field key or name; null clears):
 * the current ones with the given ones set or cleared. 422 naming every problem: a field the
 * project has not (with the nearest key), a value the field does not take (what it takes, the
 * nearest option), a required field left without a value on a create or cleared by an update.
 */
export function plannedValues(
  fields: FieldSet,
  asked: Readonly<Record<string, unknown>> | null | undefined,
  write: ValuesWrite = {},
) {
  // The whole null clears every value.
  const given = asked === null ? Object.fromEntries(fields.map((f) => [f.key, null])) : asked;
  const values: Record<string, StoredValue> = { ...settledValues(write.current, fields) };
  const problems: string[] = [];
  for (const [ref, value] of Object.entries(given ?? {})) {
    const field = fieldNamed(fields, ref);
    if (!field) {
      const guess = nearestKey(
        ref,
        fields.map((f) => f.key),
      );
      problems.push(
        `custom_fields: unknown field '${ref}'${guess === undefined ? '' : ` (did you mean '${guess}'?)`}; ${fieldList(fields)}`,
      );
      continue;
    }
    const read = storedValueOf(field, value);
    if ('problem' in read) problems.push(read.problem);
    else if (read.value === undefined) delete values[String(field.id)];
    else values[String(field.id)] = read.value;
  }
  const creating = write.current === undefined;
  for (const field of fields) {
    if (!field.required || field.type === 'checkbox' || values[String(field.id)] !== undefined) continue;
    const named = given !== undefined && Object.keys(given).some((ref) => fieldNamed(fields, ref) === field);
    if ((creating && !write.imported) || named) {
      problems.push(`custom_fields.${field.key}: is required (${field.name}: ${accepts[field.type]})`);
    }
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return values;
}

/** The accounts a write's values name (each must be one of the organisation's). */
export function accountsNamed(fields: FieldSet, values: StoredValues): number[] {
  const ids = fields.filter((f) => f.type === 'account').map((f) => values[String(f.id)]);
  return [...new Set(ids.filter((v): v is number => typeof v === 'number'))];
}

/** Whether two stored values are the same (a multi_select's ids in order). */
export const sameStoredValue = (a: StoredValue | undefined, b: StoredValue | undefined): boolean =>
  Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((v, i) => v === b[i]) : a === b;

/** Whether two issues' stored values are the same. */
export function sameValues(a: StoredValues | undefined, b: StoredValues | undefined): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  return [...keys].every((k) => sameStoredValue(a?.[k], b?.[k]));
}

/** A key made from a name: `Target release` -> `target_release`. */
export function keyFromName(name: string): string {
  const key = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, fieldLimits.key);
  return /^[a-z]/.test(key) ? key : `f_${key}`.slice(0, fieldLimits.key).replace(/_+$/, '') || 'field';
}

/** Whether a field's type takes options. */
export const hasOptions = (type: FieldType) => optionTypes.includes(type);

/** A value as a search reads it: the field's type, and the value as shown (null: none; a checkbox: false). */
export interface SelectableValue {
  type: FieldType;
  value: ShownValue;
}

/**
 * An issue's values as `cf.<key>:` reads them (lib/model/selection/evaluate.ts): every field of its
 * project by key, with its type, so that one query means what each project's field of that key is.
 */
export function selectableValues(stored: StoredValues | undefined, fields: FieldSet): Record<string, SelectableValue> {
  const shown = shownValues(stored, fields);
  const values: Record<string, SelectableValue> = {};
  for (const field of fields) values[field.key] = { type: field.type, value: shown[field.key] ?? null };
  return values;
}

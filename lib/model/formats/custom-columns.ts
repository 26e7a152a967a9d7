import { storedValueOf, type FieldDefinition } from '../custom-fields.ts';
import { fieldLimits, type FieldType } from '../../vocabulary/custom-fields.ts';
import { isCalendarDate } from '../../vocabulary/values.ts';
import { clip, dayOf, fold } from './sources.ts';

/**
 * A Jira CSV's `Custom field (…)` columns as custom fields (docs/import-export.md): what the whole
 * file holds in each is counted in one pass (`CustomColumnStats`, memory bounded per column), the
 * type of each is read from that (`inferredFields`), and each row's cells become its values by key
 * (`customValuesOf`), a value the field does not take left out with a warning. Jira's own columns
 * (rank, development, charts, approvals, sprints, JSON or lexorank values) become no field.
 * Pure, so a dry run and a run decide alike.
 */

/** Distinct values a `select` may have (and be seen repeated). */
export const SELECT_OPTIONS = 20;

/** Why a column is Jira's own, by its field's name (`Rank` of `Custom field (Rank)`), or undefined. */
export function internalByName(name: string): string | undefined {
  const n = fold(name);
  if (n === 'rank' || n.startsWith('rank ')) return "Jira's rank (a lexorank): it orders the issues in their lists, no field";
  if (n.startsWith('[chart]')) return "Jira's chart data";
  if (n === 'development') return "Jira's development panel summary";
  if (n.includes('approval')) return "Jira Service Management's approvals";
  if (n.includes('sprint')) return "Jira's sprints (the Sprint columns are read as sprints)";
  return undefined;
}

/** Why a value is Jira's own data rather than a user's (JSON, a lexorank), or undefined. */
export function internalValue(value: string): string | undefined {
  if (/^\{[\s\S]*\}$/.test(value) || /^\[\{[\s\S]*\}\]$/.test(value)) return "its values are Jira's JSON";
  if (/^\d+\|[0-9a-z]+:[0-9a-z]*$/i.test(value)) return 'its values are Jira lexoranks';
  return undefined;
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;
const JIRA_DAY = /^(\d{1,2}\/[A-Za-z]{3}\/\d{2,4})(?: \d{1,2}:\d{2} ?[AP]M)?$/i;
const ISO_DAY = /^(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/** A number cell as a number, or undefined. */
export const numberOf = (v: string): number | undefined => (NUMBER.test(v.trim()) ? Number(v.trim()) : undefined);

/** A date cell (`21/Nov/26`, `21/Nov/26 9:30 AM`, `2026-11-21`, an ISO date-time) as the day it names, or undefined. */
export function dateOf(v: string): string | undefined {
  const t = v.trim();
  const jira = JIRA_DAY.exec(t);
  if (jira) return dayOf(String(jira[1]));
  const iso = ISO_DAY.exec(t);
  return iso && isCalendarDate(String(iso[1])) ? String(iso[1]) : undefined;
}

const isUrl = (v: string) => /^https?:\/\/[^\s/]+\S*$/i.test(v.trim());

/** What the file holds in one custom column (its repeated columns together). */
interface ColumnCount {
  /** Non-empty cells. */
  values: number;
  numbers: number;
  dates: number;
  urls: number;
  /** Rows with more than one value (a repeated column, as Jira writes a multi-select). */
  multiRows: number;
  /** Distinct values (folded -> as first written), kept only up to one past the most a field may hold. */
  distinct: Map<string, string>;
  /** More distinct values than `distinct` keeps. */
  overflow: boolean;
  /** Why its values are Jira's own, from the first that is. */
  internal?: string | undefined;
  /** A value longer than an option name may be. */
  longValue: boolean;
}

/** Counts of every custom column of a file, row by row: memory bounded by the columns, time linear in the cells. */
export class CustomColumnStats {
  readonly columns = new Map<string, ColumnCount>();

  /** Registers a column of the header (so that an empty one is known). */
  column(header: string): ColumnCount {
    let c = this.columns.get(header);
    if (!c) {
      c = { values: 0, numbers: 0, dates: 0, urls: 0, multiRows: 0, distinct: new Map(), overflow: false, longValue: false };
      this.columns.set(header, c);
    }
    return c;
  }

  /** A row's non-empty cells, by column. */
  add(cells: ReadonlyMap<string, readonly string[]> | undefined) {
    for (const [header, values] of cells ?? []) {
      const c = this.column(header);
      if (values.length > 1) c.multiRows += 1;
      for (const value of values) {
        c.values += 1;
        if (numberOf(value) !== undefined) c.numbers += 1;
        if (dateOf(value) !== undefined) c.dates += 1;
        if (isUrl(value)) c.urls += 1;
        c.internal ??= internalValue(value);
        if (value.trim().length > fieldLimits.optionName) c.longValue = true;
        const folded = fold(value);
        if (!c.distinct.has(folded)) {
          if (c.distinct.size > fieldLimits.optionsPerField) c.overflow = true;
          else c.distinct.set(folded, value.trim());
        }
      }
    }
  }
}

/** A custom column read as a field: its column, the field's name, type and options (in first-seen order). */
export interface InferredField {
  column: string;
  name: string;
  type: FieldType;
  options: string[];
}

/** `Custom field (Severity)` -> `Severity` (a column of another shape: itself). */
export const fieldNameOf = (header: string) => /^custom field \((.+)\)$/i.exec(header.trim())?.[1]?.trim() ?? header.trim();

/**
 * The field each custom column with values becomes, or why it becomes none. Repeated columns with
 * several values in a row: multi_select (text past 50 options); all numbers: number; all dates:
 * date; all http(s) URLs: url; at most 20 distinct values, some repeated: select; else text.
 * A column with no value in any row is neither (it stays among the unknown columns).
 */
export function inferredFields(stats: CustomColumnStats): {
  fields: InferredField[];
  skipped: { name: string; reason: string }[];
} {
  const fields: InferredField[] = [];
  const skipped: { name: string; reason: string }[] = [];
  for (const [column, c] of stats.columns) {
    const name = fieldNameOf(column);
    const internal = internalByName(name) ?? c.internal;
    if (internal) {
      if (c.values > 0) skipped.push({ name: column, reason: internal });
      continue;
    }
    if (c.values === 0) continue;
    const options = [...c.distinct.values()];
    const optionsFit = !c.overflow && !c.longValue;
    let type: FieldType;
    if (c.multiRows > 0) type = optionsFit && options.length <= fieldLimits.optionsPerField ? 'multi_select' : 'text';
    else if (c.numbers === c.values) type = 'number';
    else if (c.dates === c.values) type = 'date';
    else if (c.urls === c.values) type = 'url';
    else if (optionsFit && options.length <= SELECT_OPTIONS && c.values > options.length) type = 'select';
    else type = 'text';
    fields.push({ column, name, type, options: type === 'select' || type === 'multi_select' ? options : [] });
  }
  return { fields, skipped };
}

/** A cell as a value of `field`'s type, before the field's own check. */
function candidate(field: FieldDefinition, values: readonly string[]): unknown {
  const first = values[0]!.trim();
  switch (field.type) {
    case 'number':
      return numberOf(first) ?? first;
    case 'date':
      return dateOf(first) ?? first;
    case 'multi_select':
      return values.map((v) => v.trim());
    case 'text':
      return values.map((v) => v.trim()).join(', ');
    case 'checkbox':
      return /^(true|yes|y|1|x|checked)$/i.test(first) ? true : /^(false|no|n|0|unchecked)$/i.test(first) ? false : first;
    case 'account':
      return first;
    default:
      return first;
  }
}

/**
 * A row's custom cells (by column) as the values an issue write takes (by key), through `fields`
 * (by column). A cell the field does not take is left out with a warning naming its column and value.
 */
export function customValuesOf(
  cells: ReadonlyMap<string, readonly string[]> | undefined,
  fields: ReadonlyMap<string, FieldDefinition>,
  warnings: string[],
): Record<string, unknown> | undefined {
  if (!cells || fields.size === 0) return undefined;
  const values: Record<string, unknown> = {};
  for (const [column, raw] of cells) {
    const field = fields.get(column);
    if (!field || raw.length === 0) continue;
    const value = candidate(field, raw);
    const read =
      field.type === 'account' ? { problem: 'an account field is not read from a CSV' } : storedValueOf(field, value, column);
    if ('problem' in read) {
      const problem = read.problem.startsWith(`${column}: `) ? read.problem.slice(column.length + 2) : read.problem;
      warnings.push(`${column} "${clip(raw.join(', '))}" left out: ${problem}`);
      continue;
    }
    if (read.value !== undefined) values[field.key] = value;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

/**
 * The order to take records in: each list's records (by `listOf`) sorted by their rank (those without
 * one after, in file order), in the places that list's records had in the file. Stable.
 */
export function rankedOrder<T>(records: readonly T[], listOf: (r: T) => string, rankOf: (r: T) => string | undefined): T[] {
  const lists = new Map<string, number[]>();
  records.forEach((r, i) => {
    const list = listOf(r);
    const at = lists.get(list);
    if (at) at.push(i);
    else lists.set(list, [i]);
  });
  const ordered: T[] = [...records];
  for (const places of lists.values()) {
    const sorted = places
      .map((i) => ({ i, rank: rankOf(records[i]!) }))
      .sort((a, b) => {
        if (a.rank === undefined || b.rank === undefined) return a.rank === b.rank ? a.i - b.i : a.rank === undefined ? 1 : -1;
        return a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : a.i - b.i;
      });
    places.forEach((place, n) => (ordered[place] = records[sorted[n]!.i]!));
  }
  return ordered;
}

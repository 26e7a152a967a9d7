import type { FieldCreate, FieldUpdate } from '../schemas/custom-fields.ts';
import { DEFAULT_OPTION_COLOR, fieldLimits } from '../vocabulary/custom-fields.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import { hasOptions, keyFromName, type FieldDefinition, type FieldOption, type FieldSet } from './custom-fields.ts';
import { foldName } from './labels.ts';

/**
 * The decisions of a change of a project's custom fields (lib/services/custom-fields.ts), each a
 * pure function of the definitions as read and what was asked: the fields written, removed, and
 * those whose values the cascade settles; a refusal is the 422 the client sees, naming every problem.
 */

/** What a project's definitions were read at: the fields, their revision and the last id handed out. */
export interface FieldsRead {
  fields: FieldSet;
  rev: number;
  seq: number;
}

/** One change of a project's definitions: fields written whole, fields removed, fields whose values settle. */
export interface FieldsChange {
  put?: FieldDefinition[];
  remove?: number[];
  /** Fields whose values the cascade takes off (deleted) or settles (options deleted). */
  settle?: number[];
  /** The last id handed out after this change. */
  seq: number;
}

/** A change, and the field as it leaves it (none: deleted). */
export interface FieldsPlan {
  change: FieldsChange;
  field?: FieldDefinition | undefined;
}

const optionCount = (fields: FieldSet) => fields.reduce((n, f) => n + f.options.length, 0);

/** The problems of a field's name among the others of its project (`except`: itself). */
function nameProblems(fields: FieldSet, name: string, except?: number): string[] {
  const folded = foldName(name);
  const taken = fields.some((f) => f.id !== except && (foldName(f.name) === folded || f.key === folded));
  return taken ? [`name: has already been taken by another field of this project (names and keys are unique ignoring case)`] : [];
}

/**
 * A field's options as a write gives them, on those it has (`held`): each with an id it has keeps
 * it (renamed, recoloured), a name it has (ignoring case) keeps that option's id, a new name takes
 * the next id. Problems: an id it has not, a name twice.
 */
function plannedOptions(given: FieldCreate['options'], held: readonly FieldOption[], seq: number) {
  const problems: string[] = [];
  const options: FieldOption[] = [];
  let next = seq;
  const seen = new Set<string>();
  for (const o of given ?? []) {
    const folded = foldName(o.name);
    if (seen.has(folded)) problems.push(`options: '${o.name}' is given twice (option names are unique ignoring case)`);
    seen.add(folded);
    const kept = o.id !== undefined ? held.find((h) => h.id === o.id) : held.find((h) => foldName(h.name) === folded);
    if (o.id !== undefined && !kept) {
      problems.push(`options: ${o.id} is no option of this field (leave out the id to add one)`);
      continue;
    }
    options.push({ id: kept?.id ?? ++next, name: o.name, color: o.color ?? kept?.color ?? DEFAULT_OPTION_COLOR });
  }
  return { options, problems, seq: next };
}

const thrown = (problems: string[]) => {
  if (problems.length > 0) throw new ValidationError(problems);
};

/** A new field: its key (given, or made from its name), unique with its name; options only for the selects; within the limits. */
export function planFieldCreate(
  read: FieldsRead,
  input: FieldCreate,
  times: { created_at: string; updated_at: string },
): FieldsPlan {
  const { fields } = read;
  const key = input.key ?? keyFromName(input.name);
  const problems = [...nameProblems(fields, input.name)];
  if (fields.some((f) => f.key === key || foldName(f.name) === key)) {
    problems.push(
      `key: '${key}' is already the key or name of another field of this project${input.key ? '' : ' (give a key of its own)'}`,
    );
  }
  if (fields.length >= fieldLimits.perProject)
    problems.push(`fields: a project may have at most ${fieldLimits.perProject} custom fields`);
  if (!hasOptions(input.type) && (input.options?.length ?? 0) > 0)
    problems.push(`options: only a select or multi_select field has options`);
  const id = read.seq + 1;
  // A field read and sent back as a create: its options' ids name nothing yet, and are new ones.
  const planned = plannedOptions(
    input.options?.map(({ id: _id, ...o }) => o),
    [],
    id,
  );
  problems.push(...planned.problems);
  if (optionCount(fields) + planned.options.length > fieldLimits.optionsPerProject) {
    problems.push(`options: a project's fields may have at most ${fieldLimits.optionsPerProject} options in all`);
  }
  thrown(problems);
  const field: FieldDefinition = {
    id,
    key,
    name: input.name,
    type: input.type,
    description: input.description ?? null,
    required: input.type !== 'checkbox' && input.required === true,
    options: planned.options,
    version: 1,
    createdAt: times.created_at,
    updatedAt: times.updated_at,
  };
  return { change: { put: [field], seq: planned.seq }, field };
}

const fieldIn = (read: FieldsRead, fieldId: number) => {
  const field = read.fields.find((f) => f.id === fieldId);
  if (!field) throw new NotFoundError('Custom field');
  return field;
};

/** A field's update: its name (unique), description, required flag, options (kept by id or name; the others deleted, their values with them). */
export function planFieldUpdate(read: FieldsRead, fieldId: number, input: FieldUpdate, now: string): FieldsPlan {
  const current = fieldIn(read, fieldId);
  const problems = input.name === undefined ? [] : nameProblems(read.fields, input.name, fieldId);
  if (input.options !== undefined && !hasOptions(current.type) && input.options.length > 0) {
    problems.push(`options: only a select or multi_select field has options (${current.name} is a ${current.type} field)`);
  }
  const planned = input.options === undefined ? undefined : plannedOptions(input.options, current.options, read.seq);
  problems.push(...(planned?.problems ?? []));
  const others = optionCount(read.fields) - current.options.length;
  if (planned && others + planned.options.length > fieldLimits.optionsPerProject) {
    problems.push(`options: a project's fields may have at most ${fieldLimits.optionsPerProject} options in all`);
  }
  thrown(problems);
  const field: FieldDefinition = {
    ...current,
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.required !== undefined && { required: current.type !== 'checkbox' && input.required }),
    ...(planned && { options: planned.options }),
    version: current.version + 1,
    updatedAt: now,
  };
  const kept = new Set(field.options.map((o) => o.id));
  const dropped = current.options.some((o) => !kept.has(o.id));
  return { change: { put: [field], seq: planned?.seq ?? read.seq, ...(dropped && { settle: [fieldId] }) }, field };
}

/** A field's delete: gone from the definitions at once, its values taken off by the cascade. */
export function planFieldDelete(read: FieldsRead, fieldId: number): FieldsPlan {
  fieldIn(read, fieldId);
  return { change: { remove: [fieldId], settle: [fieldId], seq: read.seq } };
}

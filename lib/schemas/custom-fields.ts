import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, dateTime, plainText, wrapped } from './common.ts';
import { labelColor, labelDescription } from './labels.ts';
import { DEFAULT_OPTION_COLOR, FIELD_KEY, fieldLimits, fieldTypes } from '../vocabulary/custom-fields.ts';

export { fieldLimits, fieldTypes };

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});

/** A field's or an option's name: trimmed, one line, 1..50 characters. */
const oneLineName = (max: number) =>
  plainText(
    z
      .string(typed('a string'))
      .check(z.trim())
      .check(z.minLength(1, { error: "can't be blank" }))
      .check(z.maxLength(max, { error: `is too long (maximum is ${max} characters)` })),
    'line',
    { nonBlank: true },
  );

const fieldKey = () =>
  meta(
    z
      .string(typed('a string'))
      .check(z.maxLength(fieldLimits.key, { error: `is too long (maximum is ${fieldLimits.key} characters)` }))
      .check(
        z.regex(FIELD_KEY, {
          error: 'must be lower-case letters, digits and underscores, starting with a letter (severity, target_release)',
        }),
      ),
    {
      description: 'What `cf.<key>` searches and `custom_fields` answers by; made from the name when not given. Never changes.',
      example: 'severity',
    },
  );

/** An option's colour, as a label's. */
const color = labelColor;

const fieldDescription = () => labelDescription(fieldLimits.description);

export const FieldOption = meta(z.object({ id: z.number().check(z.int()), name: z.string(), color: z.string() }), {
  id: 'CustomFieldOption',
});

/** An option as a write gives it: a new one by its name, one the field has by its id (renamed, recoloured). */
const optionInput = () =>
  closed(
    z.object(
      {
        id: z.optional(
          z.number(typed('an option id')).check(z.int()).check(z.minimum(1)).check(z.maximum(Number.MAX_SAFE_INTEGER)),
        ),
        name: oneLineName(fieldLimits.optionName),
        color: meta(z.optional(color()), { description: `Default ${DEFAULT_OPTION_COLOR}.` }),
      },
      objectError,
    ),
  );

const optionsInput = () =>
  meta(
    z
      .array(optionInput(), typed('an array of options'))
      .check(z.maxLength(fieldLimits.optionsPerField, { error: `must hold at most ${fieldLimits.optionsPerField} options` })),
    {
      description:
        "The choices of a `select` or `multi_select`, in order; names unique ignoring case. On an update the list replaces the field's: " +
        'an option with an `id` (or the name of one it has) keeps its values, renamed or recoloured; one it leaves out is deleted, and its values with it.',
    },
  );

const FieldType = meta(z.enum(fieldTypes, { error: `must be one of: ${fieldTypes.join(', ')}` }), { id: 'CustomFieldType' });

export const FieldCreateFields = meta(
  z.object(
    {
      name: oneLineName(fieldLimits.name),
      key: z.optional(fieldKey()),
      type: FieldType,
      description: z.optional(fieldDescription()),
      required: meta(z.optional(z.boolean(typed('true or false'))), {
        description: 'Whether an issue must be created with a value (a checkbox never is). Default false.',
      }),
      options: z.optional(optionsInput()),
    },
    objectError,
  ),
  { id: 'CustomFieldCreate' },
);

export const FieldUpdateFields = meta(
  z.object(
    {
      name: z.optional(oneLineName(fieldLimits.name)),
      description: z.optional(fieldDescription()),
      required: z.optional(z.boolean(typed('true or false'))),
      options: z.optional(optionsInput()),
    },
    objectError,
  ),
  { id: 'CustomFieldUpdate', description: 'A field keeps its key and its type.' },
);

export type FieldCreate = z.output<typeof FieldCreateFields>;
export type FieldUpdate = z.output<typeof FieldUpdateFields>;

export const CustomField = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    key: meta(z.string(), { example: 'severity' }),
    name: meta(z.string(), { example: 'Severity' }),
    type: FieldType,
    description: z.nullable(z.string()),
    required: z.boolean(),
    options: meta(z.array(FieldOption), {
      description: 'The choices of a select or multi_select, in order; empty for the other types.',
    }),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'CustomField' },
);
export type CustomField = z.infer<typeof CustomField>;

/** A project's fields, in creation order. */
export const CustomFieldList = meta(z.array(CustomField), { id: 'CustomFieldList' });

export const FieldCreateBody = wrapped('field', FieldCreateFields, CustomField);
export const FieldUpdateBody = wrapped('field', FieldUpdateFields, CustomField);

/** A value as an issue answers it. */
const FieldValue = z.nullable(z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

export const CustomFieldValues = meta(z.record(z.string(), FieldValue), {
  id: 'CustomFieldValues',
  description:
    "Every custom field of the issue's project by its key: text, url and date (`YYYY-MM-DD`) as strings, numbers, a select's option by name, " +
    "a multi_select's as an array of names, an account's id, a checkbox true or false; null when the issue has no value (a checkbox: false).",
  example: { severity: 'high', estimate: 3, customer: 'Acme Corp', platforms: ['ios', 'web'] },
});

/** An issue write's `custom_fields`: values by field key or name; null clears one; fields left out keep theirs. */
export const CustomFieldsInput = () =>
  meta(
    z.nullable(
      z.record(z.string().check(z.maxLength(fieldLimits.name)), z.unknown(), typed('an object of values by field key')).check(
        z.refine((v) => Object.keys(v).length <= fieldLimits.perProject, {
          error: `must name at most ${fieldLimits.perProject} fields`,
        }),
      ),
    ),
    {
      description: 'By field key or name (see get_workspace); null clears.',
    },
  );

/** The `fields` filter of the issue lists and the board: custom field terms of the search language, read by lib/services/custom-field-filter.ts. */
export const customFieldsFilter = (description: string) =>
  meta(
    z.optional(
      z
        .string()
        .check(z.minLength(1, { error: 'must not be empty' }))
        .check(z.maxLength(1000, { error: 'must be at most 1000 characters' })),
    ),
    { description },
  );

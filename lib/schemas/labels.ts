import * as z from 'zod';
import { closed, dateTime, plainText, wrapped } from './common.ts';
import { DEFAULT_LABEL_COLOR, labelFilterNames, labelLimits } from '../vocabulary/label-limits.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});

export { DEFAULT_LABEL_COLOR, labelFilterNames, labelLimits } from '../vocabulary/label-limits.ts';

/**
 * A label's name: trimmed, 1..50 characters, one line, no comma (the `labels` filter separates
 * names with commas). Unique in its project ignoring case.
 */
export const labelName = () =>
  plainText(
    z
      .string(typed('a string'))
      .trim()
      .min(1, { error: "can't be blank" })
      .max(labelLimits.name, { error: `is too long (maximum is ${labelLimits.name} characters)` })
      .refine((v) => !v.includes(','), { error: 'must not contain a comma (the labels filter separates names with commas)' }),
    'line',
    { nonBlank: true, without: ',' },
  );

/** `#rrggbb`, answered in lower case. */
const labelColor = () =>
  z
    .string(typed('a colour such as #d73a4a'))
    .regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour such as #d73a4a (#rrggbb)' })
    .transform((v) => v.toLowerCase())
    .meta({ example: '#d73a4a' });

const labelDescription = () =>
  plainText(
    z
      .string(typed('a string or null'))
      .max(labelLimits.description, { error: `is too long (maximum is ${labelLimits.description} characters)` }),
    'multiline',
  ).nullable();

export const LabelCreateFields = z
  .object(
    {
      name: labelName(),
      color: labelColor()
        .optional()
        .meta({ description: `Default ${DEFAULT_LABEL_COLOR}.` }),
      description: labelDescription().optional(),
    },
    objectError,
  )
  .meta({ id: 'LabelCreate' });

export const LabelUpdateFields = z
  .object(
    { name: labelName().optional(), color: labelColor().optional(), description: labelDescription().optional() },
    objectError,
  )
  .meta({ id: 'LabelUpdate' });

export type LabelCreate = z.output<typeof LabelCreateFields>;
export type LabelUpdate = z.output<typeof LabelUpdateFields>;

export const Label = z
  .object({
    id: z.number().int(),
    project_id: z.number().int(),
    name: z.string().meta({ example: 'bug' }),
    color: z.string().meta({ example: '#d73a4a', description: '`#rrggbb`, lower case.' }),
    description: z.string().nullable(),
    created_at: dateTime(),
    updated_at: dateTime(),
  })
  .meta({ id: 'Label' });
export type Label = z.infer<typeof Label>;

export const LabelCreateBody = wrapped('label', LabelCreateFields, Label);
export const LabelUpdateBody = wrapped('label', LabelUpdateFields, Label);

/** A label as an issue shows it: the catalogue's current name and colour. */
export const IssueLabel = z
  .object({ id: z.number().int(), name: z.string(), color: z.string() })
  .meta({ id: 'IssueLabel', description: "A label of the project's catalogue, in its current spelling." });
export type IssueLabel = z.infer<typeof IssueLabel>;

/**
 * A label as an issue answers it (`{id, name, color}`), sent back: taken by its id, the rest
 * ignored, so that an issue read and sent back keeps its labels. Closed like every object of a
 * body: an unknown key is refused (lib/schemas/common.ts).
 */
const labelAsAnswered = () =>
  closed(z.object({ id: z.number(typed('a label id')).int().min(1).max(Number.MAX_SAFE_INTEGER) }), IssueLabel).transform(
    (label) => label.id,
  );

/**
 * An issue's `labels` on a write: at most 20 labels of the project's catalogue, each by its id
 * (an integer) or its name (a string, any case); with `answered` (the REST bodies), also as the
 * issue answers it (`{id, name, color}`, by its id), so that an issue read can be sent back. The
 * MCP tools list names and ids only: every byte of their listing counts. The same label twice
 * counts once.
 */
export const IssueLabelsField = ({ answered = false } = {}) =>
  z
    .array(
      answered
        ? z.union(
            [
              z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
              z.string().trim().min(1).max(labelLimits.name),
              labelAsAnswered(),
            ],
            { error: 'must each be a label id, a label name or a label as an issue shows it ({"id": 12, ...})' },
          )
        : z.union([z.number().int().min(1).max(Number.MAX_SAFE_INTEGER), z.string().trim().min(1).max(labelLimits.name)], {
            error: 'must each be a label id or a label name',
          }),
      typed('an array of label names or ids'),
    )
    .max(labelLimits.perIssue, { error: `must hold at most ${labelLimits.perIssue} labels` })
    .meta({
      description: "Label names (any case) or ids of the project; replaces the issue's labels.",
      example: ['bug', 12],
    });

/**
 * The `labels` filter of the issue lists: comma-separated label names (any case); an issue must
 * carry all of them. A name no label of the project has matches nothing (an empty page).
 */
export const labelFilter = () =>
  z
    .string()
    .max(labelLimits.perFilter * (labelLimits.name + 1), {
      error: `is too long (at most ${labelLimits.perFilter} names of at most ${labelLimits.name} characters)`,
    })
    .refine((v) => v.split(',').length <= labelLimits.perFilter, {
      error: `must name at most ${labelLimits.perFilter} labels`,
      abort: true,
    })
    .refine((v) => labelFilterNames(v).every((name) => name.length > 0), {
      error: 'must be label names separated by commas, none of them empty: labels=bug,frontend',
      abort: true,
    })
    .refine((v) => labelFilterNames(v).every((name) => name.length <= labelLimits.name), {
      error: `must hold names of at most ${labelLimits.name} characters`,
    })
    .optional()
    .meta({
      description: `Only issues carrying every one of these labels (names, any case, comma-separated): \`bug,frontend\`; at most ${labelLimits.perFilter} names of at most ${labelLimits.name} characters.`,
      // Each name: not blank, at most 50 characters once trimmed (stated strictly: 50 from its first non-space).
      pattern: `^\\s*[^,\\s][^,]{0,${labelLimits.name - 1}}(?:,\\s*[^,\\s][^,]{0,${labelLimits.name - 1}}){0,${labelLimits.perFilter - 1}}$`,
    });

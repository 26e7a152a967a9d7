import * as z from 'zod/mini';
import { meta } from './zod.ts';
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
      .check(z.trim())
      .check(z.minLength(1, { error: "can't be blank" }))
      .check(z.maxLength(labelLimits.name, { error: `is too long (maximum is ${labelLimits.name} characters)` }))
      .check(
        z.refine((v) => !v.includes(','), { error: 'must not contain a comma (the labels filter separates names with commas)' }),
      ),
    'line',
    { nonBlank: true, without: ',' },
  );

/** `#rrggbb`, answered in lower case. */
export const labelColor = () =>
  meta(
    z.pipe(
      z
        .string(typed('a colour such as #d73a4a'))
        .check(z.regex(/^#[0-9a-fA-F]{6}$/, { error: 'must be a colour such as #d73a4a (#rrggbb)' })),
      z.transform((v) => v.toLowerCase()),
    ),
    { example: '#d73a4a' },
  );

/** A description of at most `max` characters (a label's, a custom field's), or null. */
export const labelDescription = (max: number = labelLimits.description) =>
  z.nullable(
    plainText(
      z.string(typed('a string or null')).check(z.maxLength(max, { error: `is too long (maximum is ${max} characters)` })),
      'multiline',
    ),
  );

export const LabelCreateFields = meta(
  z.object(
    {
      name: labelName(),
      color: meta(z.optional(labelColor()), { description: `Default ${DEFAULT_LABEL_COLOR}.` }),
      description: z.optional(labelDescription()),
    },
    objectError,
  ),
  { id: 'LabelCreate' },
);

export const LabelUpdateFields = meta(
  z.object(
    { name: z.optional(labelName()), color: z.optional(labelColor()), description: z.optional(labelDescription()) },
    objectError,
  ),
  { id: 'LabelUpdate' },
);

export type LabelCreate = z.output<typeof LabelCreateFields>;
export type LabelUpdate = z.output<typeof LabelUpdateFields>;

export const Label = meta(
  z.object({
    id: z.number().check(z.int()),
    project_id: z.number().check(z.int()),
    name: meta(z.string(), { example: 'bug' }),
    color: meta(z.string(), { example: '#d73a4a', description: '`#rrggbb`, lower case.' }),
    description: z.nullable(z.string()),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'Label' },
);
export type Label = z.infer<typeof Label>;

export const LabelCreateBody = wrapped('label', LabelCreateFields, Label);
export const LabelUpdateBody = wrapped('label', LabelUpdateFields, Label);

/** A label as an issue shows it: the catalogue's current name and colour. */
export const IssueLabel = meta(z.object({ id: z.number().check(z.int()), name: z.string(), color: z.string() }), {
  id: 'IssueLabel',
  description: "A label of the project's catalogue, in its current spelling.",
});
export type IssueLabel = z.infer<typeof IssueLabel>;

/**
 * A label as an issue answers it (`{id, name, color}`), sent back: taken by its id, the rest
 * ignored, so that an issue read and sent back keeps its labels. Closed like every object of a
 * body: an unknown key is refused (lib/schemas/common.ts).
 */
const labelAsAnswered = () =>
  z.pipe(
    closed(
      z.object({
        id: z.number(typed('a label id')).check(z.int()).check(z.minimum(1)).check(z.maximum(Number.MAX_SAFE_INTEGER)),
      }),
      IssueLabel,
    ),
    z.transform((label) => label.id),
  );

/**
 * An issue's `labels` on a write: at most 20 labels of the project's catalogue, each by its id
 * (an integer) or its name (a string, any case); with `answered` (the REST bodies), also as the
 * issue answers it (`{id, name, color}`, by its id), so that an issue read can be sent back. The
 * MCP tools list names and ids only: every byte of their listing counts. The same label twice
 * counts once.
 */
export const IssueLabelsField = ({ answered = false } = {}) =>
  meta(
    z
      .array(
        answered
          ? z.union(
              [
                z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(Number.MAX_SAFE_INTEGER)),
                z.string().check(z.trim()).check(z.minLength(1)).check(z.maxLength(labelLimits.name)),
                labelAsAnswered(),
              ],
              { error: 'must each be a label id, a label name or a label as an issue shows it ({"id": 12, ...})' },
            )
          : z.union(
              [
                z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(Number.MAX_SAFE_INTEGER)),
                z.string().check(z.trim()).check(z.minLength(1)).check(z.maxLength(labelLimits.name)),
              ],
              {
                error: 'must each be a label id or a label name',
              },
            ),
        typed('an array of label names or ids'),
      )
      .check(z.maxLength(labelLimits.perIssue, { error: `must hold at most ${labelLimits.perIssue} labels` })),
    {
      description: "Label names (any case) or ids of the project; replaces the issue's labels.",
      example: ['bug', 12],
    },
  );

/**
 * The `labels` filter of the issue lists: comma-separated label names (any case); an issue must
 * carry all of them. A name no label of the project has matches nothing (an empty page).
 */
export const labelFilter = () =>
  meta(
    z.optional(
      z
        .string()
        .check(
          z.maxLength(labelLimits.perFilter * (labelLimits.name + 1), {
            error: `is too long (at most ${labelLimits.perFilter} names of at most ${labelLimits.name} characters)`,
          }),
        )
        .check(
          z.refine((v) => v.split(',').length <= labelLimits.perFilter, {
            error: `must name at most ${labelLimits.perFilter} labels`,
            abort: true,
          }),
        )
        .check(
          z.refine((v) => labelFilterNames(v).every((name) => name.length > 0), {
            error: 'must be label names separated by commas, none of them empty: labels=bug,frontend',
            abort: true,
          }),
        )
        .check(
          z.refine((v) => labelFilterNames(v).every((name) => name.length <= labelLimits.name), {
            error: `must hold names of at most ${labelLimits.name} characters`,
          }),
        ),
    ),
    {
      description: `Only issues carrying every one of these labels (names, any case, comma-separated): \`bug,frontend\`; at most ${labelLimits.perFilter} names of at most ${labelLimits.name} characters.`,
      // Each name: not blank, at most 50 characters once trimmed (stated strictly: 50 from its first non-space).
      pattern: `^\\s*[^,\\s][^,]{0,${labelLimits.name - 1}}(?:,\\s*[^,\\s][^,]{0,${labelLimits.name - 1}}){0,${labelLimits.perFilter - 1}}$`,
    },
  );

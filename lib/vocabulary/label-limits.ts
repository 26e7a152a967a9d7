/**
 * Bounds of a project's label catalogue and of an issue's labels (docs/api.md: Labels), apart from
 * the zod schemas (lib/schemas/labels.ts): the data layer and the domain read them, and the
 * bundles that load no schema at start-up must not load zod for them.
 */
export const labelLimits = {
  name: 50,
  description: 1000,
  perProject: 200,
  perIssue: 20,
  /** Names a `labels` filter may list. */
  perFilter: 20,
} as const;

/** The colour a label gets when its create names none. */
export const DEFAULT_LABEL_COLOR = '#6b7280';

/** The names of a `labels` filter as given (validated by `labelFilter`, lib/schemas/labels.ts): trimmed, in order. */
export const labelFilterNames = (value: string): string[] => value.split(',').map((name) => name.trim());

/**
 * The relation types between issues, each with its inverse (what the other issue shows). Apart
 * from the schemas (lib/schemas/relations.ts) so that the domain and the handlers that need them
 * load no validation library.
 */
export const relationInverse = {
  blocks: 'blocked_by',
  blocked_by: 'blocks',
  relates_to: 'relates_to',
  duplicates: 'duplicated_by',
  duplicated_by: 'duplicates',
} as const;
export type RelationType = keyof typeof relationInverse;
export const relationTypes = [
  'blocks',
  'blocked_by',
  'relates_to',
  'duplicates',
  'duplicated_by',
] as const satisfies readonly RelationType[];

/** The most relations one issue may have. */
export const MAX_RELATIONS = 50;

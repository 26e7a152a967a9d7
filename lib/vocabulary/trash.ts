/** The kinds of item the trash holds (docs/trash.md). */
export const TRASH_KINDS = ['webhook', 'label', 'comment'] as const;
export type TrashKind = (typeof TRASH_KINDS)[number];

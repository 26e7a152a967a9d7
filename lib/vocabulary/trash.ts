/** The kinds of item the trash holds (docs/trash.md). */
export const TRASH_KINDS = ['webhook', 'label', 'comment', 'attachment', 'issue', 'sprint', 'project'] as const;
export type TrashKind = (typeof TRASH_KINDS)[number];

/**
 * Where a trashed sprint or project stands (docs/trash.md): its issues being taken out of what is
 * kept of them outside it (`withdrawing`), in the trash (`held`), or being put back (`restoring`).
 */
export const CONTAINER_STATES = ['withdrawing', 'held', 'restoring'] as const;
export type ContainerState = (typeof CONTAINER_STATES)[number];

/**
 * Days a deleted item stays in the trash: a stage's default (`TRASH_RETENTION_DAYS`, lib/config.ts)
 * and an organisation's own setting (`PATCH /organisation`) are within these bounds.
 */
export const TRASH_RETENTION = { minDays: 1, maxDays: 3650, defaultDays: 30 } as const;

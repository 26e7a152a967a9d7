import type { IssueLabel } from '../schemas/labels.ts';
import { ValidationError } from '../vocabulary/errors.ts';

/**
 * The rules of a project's label catalogue as an issue write reads it: which labels a write names,
 * and how an issue shows the labels it carries. The catalogue itself is kept on the project item
 * (lib/db/issues/labels.ts: `catalogueOf`).
 */

/** A label as the catalogue holds it. */
export interface CatalogueEntry {
  name: string;
  color: string;
}

/** A project's catalogue: label id -> current name and colour. */
export type Catalogue = ReadonlyMap<number, CatalogueEntry>;

/** The case-folded form of a name, under which names are unique in a project. */
export const foldName = (name: string): string => name.normalize('NFKC').toLowerCase();

/**
 * The ids of the labels an issue write names (ids or names, any case) in the catalogue; 422 naming
 * every one the catalogue does not hold. The same label twice counts once.
 */
export function labelIdsIn(catalogue: Catalogue, refs: readonly (number | string)[]): number[] {
  const byName = new Map([...catalogue].map(([id, entry]) => [foldName(entry.name), id]));
  const ids = new Set<number>();
  const unknown: string[] = [];
  for (const ref of refs) {
    const id = typeof ref === 'number' ? (catalogue.has(ref) ? ref : undefined) : byName.get(foldName(ref));
    if (id === undefined) unknown.push(typeof ref === 'number' ? String(ref) : `'${ref}'`);
    else ids.add(id);
  }
  if (unknown.length > 0) {
    throw new ValidationError([`labels: unknown label ${unknown.join(', ')} (not in this project's catalogue)`]);
  }
  return [...ids].sort((a, b) => a - b);
}

/** The labels an issue shows, by name: ids the catalogue no longer holds are left out. */
export function labelsShown(labelIds: Iterable<number>, catalogue: Catalogue): IssueLabel[] {
  const shown: IssueLabel[] = [];
  for (const id of labelIds) {
    const entry = catalogue.get(id);
    if (entry) shown.push({ id, name: entry.name, color: entry.color });
  }
  return shown.sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}

import { attribute, itemKind } from './item.ts';
import { keys } from './keys.ts';
import { getItem } from './transactions.ts';

/**
 * An organisation's id sequences, declared once (lib/db/core/item.ts): one counter per kind of thing it
 * numbers, each the last id handed out (absent: none yet).
 */
export const sequencesItem = itemKind({
  key: keys.sequences.placement,
  about: 'per-organisation id sequences',
  attributes: {
    account: attribute.counter('account'),
    project: attribute.counter('project'),
    sprint: attribute.counter('sprint'),
    issue: attribute.counter('issue'),
    comment: attribute.counter('comment'),
    webhook: attribute.counter('webhook'),
    label: attribute.counter('label'),
    attachment: attribute.counter('attachment'),
    follow: attribute.counter('follow'),
  },
});

export type SequenceName = keyof typeof sequencesItem.attributes;

/** The sequence of organisation ids (organisations are global, so their sequence is too), declared once. */
export const organisationSequenceItem = itemKind({
  key: keys.orgSequence.placement,
  about: 'organisation id sequence',
  attributes: {
    organisation: attribute.counter('organisation'),
  },
});

/**
 * Issue ids are handed to each project in blocks of this many, reserved from the organisation's
 * `issue` sequence: creating an issue then takes its id from the project item in the same UpdateItem
 * that takes its number (lib/db/issues/issues.ts, `allocateIssueSlot`), and only one create in a block
 * pays the reservation.
 */
export const ISSUE_ID_BLOCK = 32;

/** A block of ids `[next, end)` reserved for one project. */
export interface IdBlock {
  next: number;
  end: number;
}

/**
 * Advances several per-organisation sequences in one atomic ADD and returns their new values, the
 * last number each step reserved. A number is never handed out twice, even if the write that
 * wanted it then fails (a gap, never a reuse).
 */
export async function advance<N extends SequenceName>(orgId: number, steps: Record<N, number>): Promise<Record<N, number>> {
  const names = Object.keys(steps) as N[];
  const out = await sequencesItem.updateNow(keys.sequences(orgId), { add: steps }, undefined, 'UPDATED_NEW');
  const advanced = out.Attributes ?? {};
  return Object.fromEntries(names.map((name) => [name, sequencesItem.field(advanced, name)])) as Record<N, number>;
}

/** Next integer id of a per-organisation sequence: one atomic ADD. */
export async function nextId(orgId: number, name: SequenceName): Promise<number> {
  return (await advance(orgId, { [name]: 1 } as Record<SequenceName, number>))[name];
}

/** The block of issue ids that ends at `last`, the value a reservation of `ISSUE_ID_BLOCK` returned. */
export const issueIdBlock = (last: number): IdBlock => ({ next: last - ISSUE_ID_BLOCK + 1, end: last + 1 });

/** Next organisation id (organisations are global, so their sequence is too). */
export async function nextOrgId(): Promise<number> {
  const out = await organisationSequenceItem.updateNow(
    keys.orgSequence(),
    { add: { organisation: 1 } },
    undefined,
    'UPDATED_NEW',
  );
  return organisationSequenceItem.field(out.Attributes ?? {}, 'organisation');
}

/**
 * The highest organisation id handed out (0: the table never held an organisation): organisations
 * are numbered from 1 by one sequence, so these are every id there may be. One consistent GetItem.
 */
export async function lastOrganisationId(): Promise<number> {
  const item = await getItem(keys.orgSequence());
  return item ? organisationSequenceItem.field(item, 'organisation') : 0;
}

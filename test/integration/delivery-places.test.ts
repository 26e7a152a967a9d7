import { describe, expect, it } from 'vitest';
import { giveBackPlaces, takePlaces } from '../../lib/db/webhooks/delivery-lanes.ts';
import { newOrganisation } from '../support/api.ts';

/** The in-flight caps of fair delivery on DynamoDB Local: exact under concurrency, never stuck. */
describe('delivery places', () => {
  const caps = { org: 3, endpoint: 2 };
  const stale = 60_000;

  it('are taken up to the organisation’s cap, and up to the endpoint’s, and come back when given back', async () => {
    const { orgId } = await newOrganisation();
    const now = Date.now();
    const at = (webhookId: number) => ({ orgId, webhookId, lane: 'fast' as const });
    expect(await takePlaces(at(1), caps, now, stale)).toBe(true);
    expect(await takePlaces(at(1), caps, now, stale)).toBe(true);
    // The endpoint holds its two: a third attempt of it waits, another endpoint's goes.
    expect(await takePlaces(at(1), caps, now, stale)).toBe(false);
    expect(await takePlaces(at(2), caps, now, stale)).toBe(true);
    // The organisation holds its three.
    expect(await takePlaces(at(3), caps, now, stale)).toBe(false);
    // Another lane, and another organisation, have places of their own.
    expect(await takePlaces({ ...at(3), lane: 'slow' }, caps, now, stale)).toBe(true);
    expect(await takePlaces({ orgId: orgId + 1_000_000, webhookId: 3, lane: 'fast' }, caps, now, stale)).toBe(true);
    await giveBackPlaces(at(1), now);
    expect(await takePlaces(at(3), caps, now, stale)).toBe(true);
  });

  it('are exact under concurrency: of 10 parallel takes 3 succeed', async () => {
    const { orgId } = await newOrganisation();
    const now = Date.now();
    const taken = await Promise.all(
      Array.from({ length: 10 }, (_, i) => takePlaces({ orgId, webhookId: i, lane: 'fast' }, caps, now, stale)),
    );
    expect(taken.filter(Boolean)).toHaveLength(3);
  });

  it('held by attempts that never gave them back are free again once the counter is stale', async () => {
    const { orgId } = await newOrganisation();
    const then = Date.now();
    for (const w of [1, 2, 3]) expect(await takePlaces({ orgId, webhookId: w, lane: 'fast' }, caps, then, stale)).toBe(true);
    expect(await takePlaces({ orgId, webhookId: 4, lane: 'fast' }, caps, then + stale - 1, stale)).toBe(false);
    const later = then + stale + 1;
    expect(await takePlaces({ orgId, webhookId: 4, lane: 'fast' }, caps, later, stale)).toBe(true);
    // Started afresh with that attempt's place alone: two more fit, endpoint 1 has its two again.
    expect(await takePlaces({ orgId, webhookId: 1, lane: 'fast' }, caps, later, stale)).toBe(true);
    expect(await takePlaces({ orgId, webhookId: 1, lane: 'fast' }, caps, later, stale)).toBe(true);
    expect(await takePlaces({ orgId, webhookId: 5, lane: 'fast' }, caps, later, stale)).toBe(false);
    // A late give-back of a place from before the fresh start does not free one twice.
    await giveBackPlaces({ orgId, webhookId: 2, lane: 'fast' }, later);
    expect(await takePlaces({ orgId, webhookId: 5, lane: 'fast' }, caps, later, stale)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { asActor } from '../../lib/context/actor.ts';
import { stampItem, stampUpdate } from '../../lib/db/core/stamps.ts';

describe('the actor of a write', () => {
  it('is set on an update that has a SET clause, beside its own assignments', async () => {
    const update: Parameters<typeof stampUpdate>[0] = {
      UpdateExpression: 'SET #a = :a ADD rev :one',
      ExpressionAttributeValues: { ':a': 1, ':one': 1 },
    };
    const stamped = await asActor(7, async () => stampUpdate(update));
    expect(stamped.UpdateExpression).toBe(
      'SET #updated_by_actor = :updated_by_actor, #a = :a ADD #stamped_version :stamped_one, rev :one',
    );
    expect(stamped.ExpressionAttributeNames).toEqual({ '#updated_by_actor': 'updated_by', '#stamped_version': 'version' });
    expect(stamped.ExpressionAttributeValues).toMatchObject({ ':updated_by_actor': 7, ':a': 1, ':stamped_one': 1 });
  });

  it('adds a SET clause to an update that has none', async () => {
    const stamped = await asActor(7, async () => stampUpdate({ UpdateExpression: 'ADD comments_count :one' }));
    expect(stamped.UpdateExpression).toBe(
      'SET #updated_by_actor = :updated_by_actor ADD #stamped_version :stamped_one, comments_count :one',
    );
  });

  it("moves the item's version with every update, adding an ADD clause where there is none", async () => {
    const stamped = await asActor(7, async () => stampUpdate({ UpdateExpression: 'SET #a = :a REMOVE b' }));
    expect(stamped.UpdateExpression).toBe(
      'SET #updated_by_actor = :updated_by_actor, #a = :a REMOVE b ADD #stamped_version :stamped_one',
    );
  });

  it('is put on a new item, and never on a delete', async () => {
    const put = await asActor(3, async () => stampItem({ Put: { TableName: 't', Item: { PK: 'a', SK: 'b' } } }));
    expect(put.Put?.Item).toEqual({ PK: 'a', SK: 'b', updated_by: 3, version: 1 });
    const del = { Delete: { TableName: 't', Key: { PK: 'a', SK: 'b' } } };
    expect(await asActor(3, async () => stampItem(del))).toBe(del);
  });

  it('is not recorded outside a request (no actor in scope)', () => {
    const update = { UpdateExpression: 'SET #a = :a' };
    expect(stampUpdate(update)).toBe(update);
  });
});

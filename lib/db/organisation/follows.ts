import { tableName } from '../core/client.ts';
import { keys, orgPk, skPrefixes } from '../core/keys.ts';
import { attribute, itemKind, type Fields } from '../core/item.ts';
import { queryPages } from '../core/query.ts';
import { nextId } from '../core/sequences.ts';
import { isRefused, putNew, transact } from '../core/transactions.ts';
import type { Selection } from '../../schemas/selection.ts';
import { MAX_FOLLOWS } from '../../vocabulary/notifications.ts';
import { inboxItem } from './inbox.ts';

/**
 * The queries accounts follow (docs/notifications.md): each in the organisation's partition, which
 * the change feed reads whole once per batch, with its query as written and as the selection
 * evaluator reads it (`@me` already its account). An account's count of them is on its inbox item.
 */

export const followItem = itemKind({
  type: 'follow',
  key: keys.follow.placement,
  about: 'a followed query',
  attributes: {
    id: attribute.number('id'),
    accountId: attribute.number('account_id'),
    query: attribute.string('query'),
    selection: attribute.whole<Selection, 'selection'>('selection'),
    createdAt: attribute.string('created_at'),
  },
});
export type Follow = Fields<typeof followItem.attributes>;

/** Follows a query for an account: refused `limit` when it follows MAX_FOLLOWS already. */
export async function insertFollow(
  orgId: number,
  accountId: number,
  follow: { query: string; selection: Selection },
): Promise<Follow> {
  const id = await nextId(orgId, 'follow');
  const stored: Follow = { id, accountId, ...follow, createdAt: new Date().toISOString() };
  await transact([
    putNew({ ...keys.follow(orgId, accountId, id), type: followItem.type, org_id: orgId, ...followItem.encode(stored) }),
    inboxItem.updateAt(keys.inbox(orgId, accountId), { add: { follows: 1 } }, 'limit', {
      ConditionExpression: '(attribute_not_exists(#count) OR #count < :max)',
      ExpressionAttributeNames: { '#count': inboxItem.stored('follows') },
      ExpressionAttributeValues: { ':max': MAX_FOLLOWS },
    }),
  ]);
  return stored;
}

/** Stops following; false when the account follows no such query. */
export async function deleteFollow(orgId: number, accountId: number, id: number): Promise<boolean> {
  try {
    await transact([
      {
        item: {
          Delete: { TableName: tableName(), Key: keys.follow(orgId, accountId, id), ConditionExpression: 'attribute_exists(PK)' },
        },
        reason: 'gone',
      },
      inboxItem.updateAt(keys.inbox(orgId, accountId), { add: { follows: -1 } }),
    ]);
    return true;
  } catch (err) {
    if (isRefused(err, 'gone')) return false;
    throw err;
  }
}

/** The queries one account follows (`accountId`), or every account of the organisation, oldest first. */
export async function follows(orgId: number, accountId?: number): Promise<Follow[]> {
  const found: Follow[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':prefix': skPrefixes.follows(accountId) },
    },
    {},
    (page) => void found.push(...page.map(followItem.decode)),
  );
  return found;
}

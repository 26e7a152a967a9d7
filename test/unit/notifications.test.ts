import { describe, expect, it } from 'vitest';
import { initialWatchers, recipientsOf } from '../../lib/model/notifications.ts';

/** Who a change concerns (lib/model/notifications.ts): one notification per account, its first reason, never the actor's. */
describe('the recipients of a change', () => {
  it('tells each account once, with the first reason that holds', () => {
    expect(
      recipientsOf({
        actorId: 1,
        assigned: 2,
        mentioned: [2, 3],
        stateChanged: true,
        watchers: [1, 2, 3, 4],
        subscribers: [4, 5],
      }),
    ).toEqual([
      { accountId: 2, reason: 'assigned' },
      { accountId: 3, reason: 'mentioned' },
      { accountId: 4, reason: 'state_changed' },
      { accountId: 5, reason: 'subscribed_query' },
    ]);
  });

  it('never tells the account that made the change', () => {
    expect(recipientsOf({ actorId: 7, assigned: 7, mentioned: [7], commented: true, watchers: [7] })).toEqual([]);
    expect(recipientsOf({ actorId: null, commented: true, watchers: [7] })).toEqual([{ accountId: 7, reason: 'commented' }]);
  });

  it('tells watchers only of state changes and comments', () => {
    expect(recipientsOf({ actorId: 1, watchers: [2, 3] })).toEqual([]);
    expect(recipientsOf({ actorId: 1, commented: true, watchers: [2, 3] }).map((r) => r.reason)).toEqual([
      'commented',
      'commented',
    ]);
  });

  it('starts an issue watched by its reporter and assignee, once each', () => {
    expect(initialWatchers(4, 4)).toEqual([4]);
    expect(initialWatchers(4, null)).toEqual([4]);
    expect(initialWatchers(undefined, 9)).toEqual([9]);
  });
});

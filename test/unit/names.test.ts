import { describe, expect, it } from 'vitest';
import { isActive, isMe, pickByName } from '../../lib/model/names.ts';

const kind = { one: 'Account', many: 'accounts' };
const people = [
  { id: 1, name: 'Ada Admin', aliases: ['admin@example.com'] },
  { id: 2, name: 'Ada Lovelace', aliases: ['ada@example.com'] },
  { id: 3, name: 'Grace Hopper', aliases: ['grace@example.com'] },
  { id: 4, name: 'Adam', aliases: [] },
];

describe('names', () => {
  it('takes an exact name or alias in any case before a name it begins', () => {
    expect(pickByName(kind, 'assignee_id', 'adam', people).id).toBe(4);
    expect(pickByName(kind, 'assignee_id', ' ADA LOVELACE ', people).id).toBe(2);
    expect(pickByName(kind, 'assignee_id', 'GRACE@example.com', people).id).toBe(3);
    expect(pickByName(kind, 'assignee_id', 'hop', people).id).toBe(3);
    expect(pickByName(kind, 'assignee_id', 'love', people).id).toBe(2);
  });

  it('lists the candidates of an ambiguous name, and names an unknown one', () => {
    expect(() => pickByName(kind, 'assignee_id', 'Ada', people)).toThrow(
      'assignee_id "Ada" matches 3 accounts: Ada Admin (id 1), Ada Lovelace (id 2), Adam (id 4); pass the id',
    );
    expect(() => pickByName(kind, 'assignee_id', 'Zed', people)).toThrow('Account "Zed" not found');
    const many = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, name: `Sam ${i + 1}` }));
    expect(() => pickByName(kind, 'assignee_id', 'sam', many)).toThrow(/Sam 10 \(id 10\), and 2 more; pass the id$/);
  });

  it('knows "me" and "active" in any case', () => {
    expect([isMe('Me'), isMe(' me '), isMe('meg')]).toEqual([true, true, false]);
    expect([isActive('ACTIVE'), isActive('actives')]).toEqual([true, false]);
  });
});

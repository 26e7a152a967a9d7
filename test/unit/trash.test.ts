import { describe, expect, it } from 'vitest';
import { ConfigurationError, readConfig } from '../../lib/config.ts';
import { isExpired, parseTrashId, trashExpiry, trashId, trashTitle, TRASH_TITLE_LENGTH } from '../../lib/model/trash.ts';
import { organisationItem, trashRetentionOf } from '../../lib/db/organisation/organisation.ts';
import { config } from '../../lib/config.ts';

describe('the trash’s rules (lib/model/trash.ts)', () => {
  it('expires an item the retention period after its delete, to the second', () => {
    const deleted = Date.UTC(2026, 10, 1, 12, 0, 0, 500);
    const ttl = trashExpiry(deleted, 30);
    expect(ttl).toBe(Date.UTC(2026, 11, 1, 12, 0, 0) / 1000);
    expect(isExpired(ttl, ttl * 1000 - 1)).toBe(false);
    expect(isExpired(ttl, ttl * 1000)).toBe(true);
  });

  it('reads a trash id back, and nothing else', () => {
    expect(parseTrashId(trashId('webhook', 12))).toEqual({ kind: 'webhook', itemId: 12 });
    expect(parseTrashId(trashId('comment', 7))).toEqual({ kind: 'comment', itemId: 7 });
    expect(parseTrashId(trashId('sprint', 3))).toEqual({ kind: 'sprint', itemId: 3 });
    for (const bad of ['webhook-0', 'webhook-012', 'account-1', 'webhook-', '-1', 'webhook-1-2', 'WEBHOOK-1']) {
      expect(parseTrashId(bad), bad).toBeUndefined();
    }
  });

  it("titles a comment by its body's first line, cut at 80 characters with … when there is more", () => {
    expect(trashTitle('  Looks good\n')).toBe('Looks good');
    expect(trashTitle('Looks good\r\nBut one thing')).toBe('Looks good…');
    const long = 'é'.repeat(TRASH_TITLE_LENGTH);
    expect(trashTitle(long)).toBe(long);
    const cut = trashTitle(`${long}x`);
    expect([...cut]).toHaveLength(TRASH_TITLE_LENGTH);
    expect(cut).toBe(`${'é'.repeat(TRASH_TITLE_LENGTH - 1)}…`);
    // Characters, not UTF-16 units: an emoji is never cut in half.
    expect(trashTitle('😀'.repeat(TRASH_TITLE_LENGTH + 1))).toBe(`${'😀'.repeat(TRASH_TITLE_LENGTH - 1)}…`);
  });

  it('keeps 30 days unless TRASH_RETENTION_DAYS says otherwise (1 to 3650)', () => {
    expect(readConfig({}, false).trashRetentionDays).toBe(30);
    expect(readConfig({ TRASH_RETENTION_DAYS: '7' }, false).trashRetentionDays).toBe(7);
    for (const bad of ['0', '3651', '1.5', 'ten']) {
      expect(() => readConfig({ TRASH_RETENTION_DAYS: bad }, false), bad).toThrow(ConfigurationError);
    }
  });

  it("keeps an organisation's own retention when it has one, else the stage's; absent on its item, none", () => {
    const stored = { PK: 'ORG#1', SK: 'ORG', id: 1, name: 'O', created_at: '2026-01-01T00:00:00.000Z' };
    const none = organisationItem.decode(stored);
    expect(none.trashRetentionDays).toBeNull();
    expect(trashRetentionOf(none)).toBe(config().trashRetentionDays);
    expect(trashRetentionOf(undefined)).toBe(config().trashRetentionDays);
    expect(trashRetentionOf(organisationItem.decode({ ...stored, trash_retention_days: 7 }))).toBe(7);
    expect(organisationItem.encode({ trashRetentionDays: 7 })).toEqual({ trash_retention_days: 7 });
  });
});

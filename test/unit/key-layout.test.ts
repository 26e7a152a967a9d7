import { describe, expect, it } from 'vitest';
import { keys, listKeys } from '../../lib/db/core/keys.ts';
import { layout } from '../../tools/docs/layout.ts';

/**
 * Every key lib/db/core/keys.ts builds is spelled once, as the placement it builds (`ORG#o#P#p`,
 * `SPRINT#s`), and that placement is the key of a row of tools/docs/layout.ts (the layout table of
 * docs/data-model.md): a new kind of item cannot be stored without being declared there.
 */

const rowOf = (placement: { PK: string; SK: string }) => layout.find((row) => row.PK === placement.PK && row.SK === placement.SK);

/** The two keys built from another item's: what they build, and the layout's words for it. */
const derived = {
  trash: {
    built: [keys.trash(1, 'WEBHOOK#0000000002'), { PK: 'ORG#0000000001#TRASH', SK: 'WEBHOOK#0000000002' }],
    row: { PK: 'ORG#o#TRASH', SK: '<SK of x>' },
  },
  deletion: {
    built: [
      keys.deletion({ PK: 'ORG#0000000001#P#0000000002', SK: 'ISSUE#0000000003' }),
      { PK: 'ORG#0000000001#P#0000000002#DEL', SK: 'ISSUE#0000000003' },
    ],
    row: { PK: '<PK of x>#DEL', SK: '<SK of x>' },
  },
};

describe('the layout of the one table (tools/docs/layout.ts)', () => {
  const placed = Object.entries(keys).filter(([name]) => !(name in derived));

  it.each(placed)('declares the item %s keys, under the placement it builds', (_name, builder) => {
    expect('placement' in builder && rowOf(builder.placement)).toBeTruthy();
  });

  it('writes each value of a key as its placement says: ids padded, sequences to 40 digits, numbers folded', () => {
    expect(keys.comment(1, 2, 3, 4)).toEqual({ PK: 'ORG#0000000001#P#0000000002', SK: 'ISSUE#0000000003#C#0000000004' });
    expect(keys.issueActivity(1, 2, 3, '12345').SK).toBe(`ISSUE#0000000003#A#${'12345'.padStart(40, '0')}`);
    expect(keys.subIssue(1, 'apl-12', 3).SK).toBe('ISSUEKEY#APL-12#SUB#0000000003');
    expect(keys.email(1, 'Ada@Example.com').SK).toBe('EMAIL#ada@example.com');
    expect(keys.handle(1, 'Ana.B').SK).toBe('HANDLE#ana.b');
    expect(keys.importJobPart(1, 'job', 3)).toEqual({ PK: 'ORG#0000000001#IMPORT#job', SK: 'PART#0003' });
    expect(keys.importedIssue(1, 2, 'jira', 'ABC-1#x').SK).toBe('IMPORTED#jira#ABC-1#x');
  });

  it.each(Object.entries(derived))('declares the item %s keys, built from the key of another', (_name, { built, row }) => {
    expect(rowOf(row)).toBeTruthy();
    expect(built[0]).toEqual(built[1]);
  });

  it('has no row whose key no builder builds', () => {
    const builds = new Set([
      ...placed.map(([, b]) => ('placement' in b ? `${b.placement.PK} ${b.placement.SK}` : '')),
      ...Object.values(derived).map(({ row }) => `${row.PK} ${row.SK}`),
    ]);
    expect(layout.filter((row) => !builds.has(`${row.PK} ${row.SK}`)).map((row) => `${row.PK} ${row.SK}`)).toEqual([]);
  });

  it.each(Object.entries(listKeys).filter(([, b]) => 'placement' in b))(
    'lists the items of the list key %s under a row whose LSK is the placement it builds',
    (_name, builder) => {
      const placement = (builder as { placement: string }).placement;
      expect(layout.some((row) => row.LSK?.split(' or ').includes(placement))).toBe(true);
    },
  );
});

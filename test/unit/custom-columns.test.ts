import { describe, expect, it } from 'vitest';
import {
  CustomColumnStats,
  customValuesOf,
  dateOf,
  inferredFields,
  rankedOrder,
} from '../../lib/model/formats/custom-columns.ts';
import type { FieldDefinition } from '../../lib/model/custom-fields.ts';

const statsOf = (rows: Record<string, string[]>[]) => {
  const stats = new CustomColumnStats();
  for (const row of rows) stats.add(new Map(Object.entries(row)));
  return stats;
};

describe('Jira custom columns', () => {
  it('read dates as Jira and ISO write them, the day as written', () => {
    expect(dateOf('21/Nov/26 9:30 AM')).toBe('2026-11-21');
    expect(dateOf('21/Nov/26')).toBe('2026-11-21');
    expect(dateOf('2026-11-21')).toBe('2026-11-21');
    expect(dateOf('2026-11-21T23:30:00+0100')).toBe('2026-11-21');
    expect(dateOf('2026-02-30')).toBeUndefined();
    expect(dateOf('soon')).toBeUndefined();
  });

  it('infer a type from every value of a column', () => {
    const col = (name: string) => `Custom field (${name})`;
    const { fields, skipped } = inferredFields(
      statsOf([
        {
          [col('N')]: ['1'],
          [col('D')]: ['2026-01-01'],
          [col('U')]: ['https://a.example'],
          [col('S')]: ['a'],
          [col('T')]: ['x'],
        },
        {
          [col('N')]: ['2.5'],
          [col('D')]: ['1/Jan/26'],
          [col('U')]: ['http://b.example/x'],
          [col('S')]: ['b'],
          [col('T')]: ['y'],
        },
        { [col('S')]: ['A'], [col('M')]: ['p', 'q'], [col('Rank')]: ['0|i0000f:'], [col('J')]: ['{"a":1}'] },
      ]),
    );
    expect(fields.map((f) => [f.name, f.type, f.options])).toEqual([
      ['N', 'number', []],
      ['D', 'date', []],
      ['U', 'url', []],
      ['S', 'select', ['a', 'b']],
      ['T', 'text', []],
      ['M', 'multi_select', ['p', 'q']],
    ]);
    expect(skipped.map((s) => s.name)).toEqual([col('Rank'), col('J')]);
  });

  it('take what a field takes, and warn of the rest', () => {
    const field = (id: number, key: string, type: FieldDefinition['type'], options: string[] = []): FieldDefinition => ({
      version: 1,
      id,
      key,
      name: key,
      type,
      description: null,
      required: false,
      options: options.map((name, i) => ({ id: i + 1, name, color: '#000000' })),
      createdAt: '',
      updatedAt: '',
    });
    const fields = new Map([
      ['N', field(1, 'n', 'number')],
      ['S', field(2, 's', 'select', ['a'])],
      ['M', field(3, 'm', 'multi_select', ['p', 'q'])],
    ]);
    const warnings: string[] = [];
    const values = customValuesOf(
      new Map([
        ['N', ['1e20']],
        ['S', ['A']],
        ['M', ['q', 'p']],
      ]),
      fields,
      warnings,
    );
    expect(values).toEqual({ s: 'A', m: ['q', 'p'] });
    expect(warnings).toEqual([expect.stringMatching(/^N "1e20" left out: must be a number/)]);
  });

  it('order each list by rank in the places its rows had, stable, unranked last', () => {
    const rows = [
      { k: 1, list: 'a', rank: 'c' },
      { k: 2, list: 'b', rank: 'b' },
      { k: 3, list: 'a' },
      { k: 4, list: 'a', rank: 'a' },
      { k: 5, list: 'b', rank: 'a' },
      { k: 6, list: 'a', rank: 'a' },
    ];
    const order = rankedOrder(
      rows,
      (r) => r.list,
      (r) => r.rank,
    ).map((r) => r.k);
    expect(order).toEqual([4, 5, 6, 1, 2, 3]);
  });
});

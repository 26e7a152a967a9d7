import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvReader, formatCsv, parseCsv } from '../../lib/model/formats/csv.ts';

describe('CSV reader (RFC 4180)', () => {
  it('reads quotes, doubled quotes, commas and line breaks inside quoted fields', () => {
    expect(parseCsv('a,"b,c","say ""hi""","x\r\ny"\r\n1,,3,\n')).toEqual([
      ['a', 'b,c', 'say "hi"', 'x\r\ny'],
      ['1', '', '3', ''],
    ]);
  });

  it('drops a byte order mark and reads a last record without a line break', () => {
    expect(parseCsv('\uFEFFSummary,Issue key\r\nA,APL-1')).toEqual([
      ['Summary', 'Issue key'],
      ['A', 'APL-1'],
    ]);
  });

  it('refuses a quoted field that is never closed', () => {
    expect(() => parseCsv('a,"b\n')).toThrow(/not closed/);
  });

  it('gives each record the line it starts on', () => {
    const reader = new CsvReader();
    const records = [...reader.push('h\n"a\nb"\nc\n'), ...reader.end()];
    expect(records.map((r) => r.line)).toEqual([1, 2, 4]);
  });

  const field = fc.string({ unit: fc.constantFrom('a', 'é', '日', '🎉', ',', '"', '\n', '\r\n', ' ', 'x') });
  const records = fc.array(fc.array(field, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 6 });

  it('reads back what it prints, whatever the fields hold', () => {
    fc.assert(
      fc.property(records, (rs) => {
        expect(parseCsv(formatCsv(rs))).toEqual(rs);
      }),
      { numRuns: 200 },
    );
  });

  it('reads a text split into chunks anywhere as it reads it whole', () => {
    fc.assert(
      fc.property(records, fc.array(fc.nat(), { maxLength: 8 }), (rs, cuts) => {
        const text = formatCsv(rs);
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const reader = new CsvReader();
        const out: string[][] = [];
        let from = 0;
        for (const to of [...at, text.length]) {
          out.push(...reader.push(text.slice(from, to)).map((r) => r.fields));
          from = to;
        }
        out.push(...reader.end().map((r) => r.fields));
        expect(out).toEqual(rs);
      }),
      { numRuns: 200 },
    );
  });
});

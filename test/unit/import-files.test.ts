import { describe, expect, it } from 'vitest';
import { fileParts, joinReport, PART_BYTES, splitReport } from '../../lib/model/import-files.ts';

/** How an import job's file and its report's maps are cut into parts (lib/model/import-files.ts). */

describe("an import job's parts", () => {
  it('cuts a text into parts of at most PART_BYTES of UTF-8 that join back to it, never inside a character', () => {
    const text = `${'a'.repeat(PART_BYTES - 1)}😀${'é'.repeat(200_000)}`;
    const parts = fileParts(text);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe(text);
    for (const part of parts) {
      expect(Buffer.byteLength(part, 'utf8')).toBeLessThanOrEqual(PART_BYTES);
      expect(part).toBe(Buffer.from(part, 'utf8').toString('utf8'));
    }
    expect(fileParts('')).toEqual([]);
  });

  it("keeps a report's maps apart (an export file's projects' too) and puts them back", () => {
    const report = {
      created: 2,
      keys: { A: 1 },
      ids: { 1: 'A' },
      projects: { ABC: { created: 1, keys: { B: 2 }, issues: { 2: 'B' } } },
    };
    const { slim, maps } = splitReport(report);
    expect(slim).toEqual({ created: 2, projects: { ABC: { created: 1 } } });
    expect(maps).toEqual({ keys: { A: 1 }, ids: { 1: 'A' }, projects: { ABC: { keys: { B: 2 }, issues: { 2: 'B' } } } });
    expect(joinReport(slim, maps)).toEqual(report);
    expect(splitReport({ created: 0 })).toEqual({ slim: { created: 0 }, maps: {} });
  });
});

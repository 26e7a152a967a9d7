import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, CsvReader } from '../../lib/model/formats/csv.ts';
import { imgTags, jiraColumns, markdownLinks } from '../../lib/model/formats/sources.ts';
import { chainDigest, EXPORT_FORMAT, EXPORT_VERSION } from '../../lib/services/import-export/export.ts';
import { checkExportFile, linesOf } from '../../lib/services/import-export/import-export.ts';
import { sourceRecords } from '../../lib/services/import-export/import.ts';

/**
 * Every reading of an import file is linear in its size: a header of many columns of one name
 * (Jira repeats `Labels`, `Comment`, `Sprint`… once per value), an export file of many lines, a
 * Markdown text of many brackets. The bounds are generous (5 s of CPU for what takes under one);
 * the quadratic readings took minutes or never finished.
 */

const BOUND_MS = 5000;

/** A Jira CSV of about `bytes` whose header repeats the columns Jira repeats, with a few rows. */
function repeatedHeaderCsv(bytes: number) {
  const repeated = ['Labels', 'Comment', 'Sprint', 'Watchers', 'Attachment', 'Inward issue link (Blocks)', 'Custom field (Team)'];
  const header = ['Summary', 'Issue key', 'Status'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const name = repeated[i % repeated.length]!;
    header.push(name);
    size += name.length + 1;
  }
  const rows = [1, 2, 3].map((n) =>
    header.map((h, i) =>
      i === 0 ? `Row ${n}` : i === 1 ? `DI-${n}` : i === 2 ? 'To Do' : h === 'Labels' && i < 50 ? `l${i}` : '',
    ),
  );
  return { header, text: [header, ...rows].map((r) => r.join(',')).join('\n') + '\n' };
}

/**
 * A run's CPU time (the process's, user and system): the machine's other work does not count, so
 * the bound holds on a loaded machine; the wall time is printed beside it.
 */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number; wallMs: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const value = await run();
  const used = process.cpuUsage(cpu);
  return { value, ms: (used.user + used.system) / 1000, wallMs: performance.now() - started };
}

describe('reading an import file takes time linear in its size', () => {
  it('a 1 MB Jira CSV whose header repeats the same columns is read in a few seconds, every column found', async () => {
    const { header, text } = repeatedHeaderCsv(1024 * 1024);
    expect(text.length).toBeGreaterThan(1024 * 1024);
    const stats = { unknown: new Map<string, number>() };
    const {
      value: records,
      ms,
      wallMs,
    } = await timed(async () => {
      const all = [];
      for await (const r of sourceRecords('jira-csv', [text], stats)) all.push(r);
      return all;
    });
    console.log(`1 MB CSV of ${header.length} columns read in ${Math.round(ms)} ms of CPU (${Math.round(wallMs)} ms)`);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({
      key: 'DI-1',
      labels: header.flatMap((h, i) => (h === 'Labels' && i < 50 ? [`l${i}`] : [])),
    });
    // Columns it does not read: each named once, with its count of values.
    expect([...stats.unknown.keys()].sort()).toEqual(['Custom field (Team)', 'Watchers']);
  });

  it('a 50,000-line export file is checked whole (counts, digest, numbers) in a few seconds', async () => {
    const lines = [
      JSON.stringify({ format: EXPORT_FORMAT, version: EXPORT_VERSION, organisation: { id: 1, name: 'A' }, exported_at: 'x' }),
      JSON.stringify({ kind: 'project', id: 1, prefix: 'APL', name: 'Apollo' }),
    ];
    for (let i = 1; lines.length < 49_999; i++)
      lines.push(JSON.stringify({ kind: 'issue', id: i, project_id: 1, issue_number: `APL-${i}`, title: `Issue ${i}` }));
    let digest = '';
    for (const l of lines) digest = chainDigest(digest, l);
    lines.push(JSON.stringify({ kind: 'end', counts: { project: 1, issue: 49_997 }, digest }));
    const file = `${lines.join('\n')}\n`;
    // In chunks as the CLI's stream reads it, cut inside lines.
    const chunks = Array.from({ length: Math.ceil(file.length / 65_536) }, (_, i) => file.slice(i * 65_536, (i + 1) * 65_536));
    const { value: numbers, ms, wallMs } = await timed(() => checkExportFile(chunks));
    console.log(`50,000-line export file checked in ${Math.round(ms)} ms of CPU (${Math.round(wallMs)} ms)`);
    expect(ms).toBeLessThan(BOUND_MS);
    expect(numbers.get('APL')).toHaveLength(49_997);
    expect(numbers.get('APL')?.at(-1)).toEqual(['APL-49997', 49_997]);
  });

  it('a Markdown text of many brackets or unclosed tags is searched for uploads in linear time', () => {
    for (const text of ['['.repeat(200_000), '<img '.repeat(40_000), '[a](b '.repeat(40_000)]) {
      const started = performance.now();
      expect([...markdownLinks(text)].length + [...imgTags(text)].length).toBe(0);
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
    }
  });
});

describe('the linear readings find what the earlier ones found', () => {
  it("a header's unknown columns, each with its indexes in order", () => {
    const names = fc.constantFrom('Labels', 'Watchers', 'watchers', 'Summary', 'Custom field (X)', 'Comment', 'Issue key');
    fc.assert(
      fc.property(fc.array(names, { maxLength: 40 }), (header) => {
        const unknown = jiraColumns(header).unknown;
        // The reading before: a list per name, copied per repeat.
        const before = new Map<string, number[]>();
        const read = new Set(['labels', 'summary', 'comment', 'issue key']);
        header.forEach((h, i) => {
          if (!read.has(h.toLowerCase())) before.set(h, [...(before.get(h) ?? []), i]);
        });
        expect(unknown).toEqual([...before].map(([name, indexes]) => ({ name, indexes })));
      }),
      { numRuns: 200 },
    );
  });

  it('Markdown links and img tags, as the regular expressions found them', () => {
    const piece = fc.constantFrom('[', ']', '(', ')', '<', '>', ' ', '!', 'a', 'u', '"', "'", '\n', '<img ', '<IMG', 'src="x"');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        const links = [...text.matchAll(/!?\[([^\]]*)\]\(\s*<?([^\s)>]+)>?[^)]*\)/g)].map((m) => [m[1], m[2]]);
        expect([...markdownLinks(text)]).toEqual(links);
        expect([...imgTags(text)]).toEqual([...text.matchAll(/<img\b[^>]*>/gi)].map((m) => m[0]));
      }),
      { numRuns: 2000 },
    );
  });

  it('the lines of an export file, however it is cut into chunks', async () => {
    const text = fc.array(fc.constantFrom('a', '{}', '\n', '\r\n', ' ', 'é'), { maxLength: 30 }).map((p) => p.join(''));
    await fc.assert(
      fc.asyncProperty(text, fc.array(fc.nat(40), { maxLength: 5 }), async (file, cuts) => {
        const at = [...new Set(cuts.map((c) => Math.min(c, file.length)))].sort((a, b) => a - b);
        const chunks = [0, ...at].map((from, i) => file.slice(from, at[i] ?? file.length));
        const got = [];
        for await (const l of linesOf(chunks)) got.push(l);
        // The reading before: the whole text split at each line feed, a CR before it dropped.
        const parts = file.split('\n');
        const last = parts.pop() as string;
        const want = parts.map((p, i) => ({ n: i + 1, text: p.replace(/\r$/, '') }));
        if (last.trim()) want.push({ n: want.length + 1, text: last });
        expect(got).toEqual(want);
      }),
      { numRuns: 300 },
    );
  });
});

describe('files that cannot be read in bounded memory are refused, naming the bound', () => {
  it('a CSV record past its bound (a quote never closed) stops the reading there', () => {
    const reader = new CsvReader(1000);
    expect(reader.push('Summary,Issue key\n"never closed,')).toHaveLength(1);
    expect(() => reader.push('x'.repeat(2000))).toThrow(CsvError);
    expect(() => new CsvReader(1000).push(`${'a,'.repeat(600)}\n`)).toThrow(/a record is longer than 1,000 characters/);
  });

  it('an export line past its bound is refused before it is held whole', async () => {
    const long = 'x'.repeat(4 * 1024 * 1024);
    const read = async (chunks: string[]) => {
      for await (const _ of linesOf(chunks));
    };
    await expect(read(['{"a":1}\n', long, long, long])).rejects.toThrow(/line 2 is longer than 8,388,608 characters/);
    await expect(read([`${long}${long}x\n`])).rejects.toThrow(/line 1 is longer than/);
  });
});

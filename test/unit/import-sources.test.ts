import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCsv, parseCsv, CsvReader, CsvError } from '../../lib/model/formats/csv.ts';
import {
  attachmentNote,
  githubRecord,
  githubUploads,
  instantOf,
  jiraColumns,
  jiraRecord,
  keptNumbers,
  mappingWith,
  planRecord,
  type SourceRecord,
} from '../../lib/model/formats/sources.ts';

/** The pure reading of source files: columns of a Jira export, GitHub objects, dates, numbers kept. */

const jira = (header: string[], row: Record<string, string | string[]>) => {
  const columns = jiraColumns(header);
  const fields = header.map(() => '');
  const seen = new Map<string, number>();
  header.forEach((h, i) => {
    const v = row[h];
    if (v === undefined) return;
    const n = seen.get(h) ?? 0;
    seen.set(h, n + 1);
    fields[i] = Array.isArray(v) ? (v[n] ?? '') : n === 0 ? v : '';
  });
  return { columns, record: jiraRecord(parseCsv(formatCsv([fields]))[0] as string[], columns, 2) };
};
const base = ['Summary', 'Issue key', 'Status'];

describe('a Jira Cloud CSV row', () => {
  it('takes the first non-empty value of alternative columns, and warns about a different one left out', () => {
    const header = [...base, 'Custom field (Story Points)', 'Custom field (Story point estimate)', 'Story Points'];
    const { record } = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-1',
      Status: 'To Do',
      'Custom field (Story point estimate)': '5',
      'Story Points': '8',
    });
    expect(record.story_points).toBe('5');
    expect(record.columns?.story_points).toBe('Custom field (Story point estimate)');
    expect(record.warnings).toEqual(['Story Points "8" left out: Custom field (Story point estimate) "5" is taken']);
    // The same value under two names is no warning.
    const same = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-1',
      Status: 'To Do',
      'Custom field (Story Points)': '3',
      'Story Points': '3',
    });
    expect(same.record.warnings).toEqual([]);
  });

  it('reads every Labels and Comment column; of Sprint and Custom field (Sprint), the last is its sprint, the earlier ones its history', () => {
    const header = [...base, 'Labels', 'Labels', 'Sprint', 'Sprint', 'Custom field (Sprint)', 'Comment', 'Comment'];
    const { record } = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-7',
      Status: 'Done',
      Labels: ['a', 'b'],
      Sprint: ['One', ''],
      'Custom field (Sprint)': 'Two',
      Comment: ['25/Feb/26 10:17 PM;557058:abcd-1;Body; with a semicolon', 'no date here'],
    });
    expect(record.labels).toEqual(['a', 'b']);
    expect(record.sprint).toEqual({ name: 'Two' });
    expect(record.sprintHistory).toEqual(['One']);
    expect(record.comments).toEqual([
      {
        key: 'DI-7#1',
        at: '25/Feb/26 10:17 PM',
        author: { id: '557058:abcd-1', name: '557058:abcd-1' },
        body: 'Body; with a semicolon',
      },
      { key: 'DI-7#2', body: 'no date here' },
    ]);
    expect(record.warnings).toEqual([
      'Comment "no date here" is not "date;author;body": imported as the body, by the importer, now',
    ]);
  });

  it('reads issue links as relations seen from the row (Cloners as relates_to), and names columns it does not read once', () => {
    const header = [
      ...base,
      'Outward issue link (Blocks)',
      'Inward issue link (Blocks)',
      'Inward issue link (Duplicate)',
      'Outward issue link (Cloners)',
      'Outward issue link (Relates)',
      'Outward issue link (Problem/Incident)',
      'Watchers',
      'Watchers',
    ];
    const { record, columns } = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-1',
      Status: 'To Do',
      'Outward issue link (Blocks)': 'DI-2',
      'Inward issue link (Blocks)': 'DI-3',
      'Inward issue link (Duplicate)': 'DI-4',
      'Outward issue link (Cloners)': 'DI-5',
      'Outward issue link (Relates)': 'DI-6',
      'Outward issue link (Problem/Incident)': 'DI-7',
    });
    expect(record.links?.map((l) => [l.type, l.key])).toEqual([
      ['blocks', 'DI-2'],
      ['blocked_by', 'DI-3'],
      ['duplicated_by', 'DI-4'],
      ['relates_to', 'DI-5'],
      ['relates_to', 'DI-6'],
    ]);
    expect(record.warnings).toEqual([
      'Outward issue link (Problem/Incident) "DI-7" left out: no relation here is that link type',
    ]);
    expect(columns.unknown).toEqual([{ name: 'Watchers', indexes: [9, 10] }]);
    expect(record.number).toBe(1);
  });

  it('takes a parent from Parent key, Parent or Parent id, whichever holds it, without a warning', () => {
    const header = [...base, 'Parent', 'Parent id', 'Parent summary'];
    const { record, columns } = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-1',
      Status: 'To Do',
      Parent: '10140',
      'Parent id': '10140',
    });
    expect(record.parent_key).toBe('10140');
    expect(record.warnings).toEqual([]);
    expect(columns.unknown.map((u) => u.name)).toEqual(['Parent summary']);
  });
});

describe("a source's date-times", () => {
  it("read Jira's format in the time zone given (UTC by default), and ISO 8601 as it says", () => {
    expect(instantOf('25/Feb/26 10:17 PM')).toBe('2026-02-25T22:17:00.000Z');
    expect(instantOf('25/Feb/26 10:17 PM', 'Europe/Paris')).toBe('2026-02-25T21:17:00.000Z');
    expect(instantOf('25/Jul/26 10:17 AM', 'Europe/Paris')).toBe('2026-07-25T08:17:00.000Z');
    expect(instantOf('1/Jan/26 12:05 AM', 'America/New_York')).toBe('2026-01-01T05:05:00.000Z');
    expect(instantOf('2026-11-01T10:00:00+02:00', 'Europe/Paris')).toBe('2026-11-01T08:00:00.000Z');
    for (const bad of ['31/Feb/26 10:00 AM', '25/Foo/26 10:00 AM', 'tomorrow', '13:00', '25/Feb/26 13:00 PM'])
      expect(instantOf(bad), bad).toBeUndefined();
  });

  it('a Resolved date is the completion of a done or cancelled issue only; an open one warns', () => {
    const mapping = mappingWith();
    const record: SourceRecord = {
      row: 2,
      key: 'DI-1',
      title: 'T',
      description: null,
      status: 'Done',
      labels: [],
      resolved_at: '01/Mar/26 4:00 PM',
    };
    const done = planRecord(record, mapping);
    expect(done.ok && done.times.completed_at).toBe('2026-03-01T16:00:00.000Z');
    const open = planRecord({ ...record, status: 'To Do' }, mapping);
    expect(open.ok && open.times.completed_at).toBeUndefined();
    expect(open.ok && open.warnings).toEqual(['Resolved "01/Mar/26 4:00 PM" left out: the issue is todo, not done or cancelled']);
  });
});

describe('a GitHub issue object', () => {
  it('is keyed owner/repo#n (its URL the key of earlier imports), closed as completed is done, as not planned cancelled', () => {
    const issue = {
      number: 12,
      title: 'T',
      state: 'CLOSED',
      stateReason: 'NOT_PLANNED',
      closedAt: '2026-11-05T11:00:00Z',
      url: 'https://github.com/acme/app/issues/12',
      author: { login: 'grace' },
      assignees: [{ login: 'ada' }, { login: 'bob' }],
      comments: [
        {
          author: { login: 'ada' },
          body: 'Hi',
          createdAt: '2026-11-02T09:30:00Z',
          url: 'https://github.com/acme/app/issues/12#c1',
        },
      ],
    };
    expect(githubRecord(issue, 1)).toMatchObject({
      key: 'acme/app#12',
      legacyKey: 'https://github.com/acme/app/issues/12',
      number: 12,
      status: 'not_planned',
      resolved_at: '2026-11-05T11:00:00Z',
      reporter: { name: 'grace', id: 'grace' },
      assignee: { name: 'ada', id: 'ada' },
      comments: [{ body: 'Hi', at: '2026-11-02T09:30:00Z', author: { name: 'ada' } }],
      warnings: ['assignees "bob" left out: one assignee here, the first is taken'],
    });
    expect(githubRecord({ ...issue, stateReason: 'COMPLETED' }, 1)).toMatchObject({ status: 'CLOSED' });
    expect(githubRecord({ ...issue, state: 'OPEN', stateReason: 'REOPENED' }, 1)).toMatchObject({
      status: 'OPEN',
      resolved_at: undefined,
    });
    expect(githubRecord({ number: 3, title: 'No URL', state: 'OPEN' }, 1)).toMatchObject({ key: '#3' });
  });
});

describe('numbers kept for source keys', () => {
  const wanted = fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 60 })), {
    selector: ([key]) => key,
    maxLength: 30,
  });
  const ranges = fc.array(
    fc
      .tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 20 }))
      .map(([from, n]) => [from, from + n] as [number, number]),
    {
      maxLength: 3,
    },
  );

  it('a number is kept only when reserved for the source or above the sequence, never twice; the reservation covers the rest', () => {
    fc.assert(
      fc.property(wanted, fc.integer({ min: 0, max: 50 }), ranges, (keys, sequence, reserved) => {
        const { kept, reserveTo } = keptNumbers(keys, sequence, reserved);
        const inRanges = (n: number) => reserved.some(([from, to]) => n >= from && n <= to);
        expect(new Set(kept.values()).size).toBe(kept.size);
        for (const [key, n] of kept) {
          expect(keys).toContainEqual([key, n]);
          expect(inRanges(n) || n > sequence).toBe(true);
          if (!inRanges(n)) expect(reserveTo).toBeGreaterThanOrEqual(n);
        }
        // A free number is kept by the first key that carries it.
        for (const [key, n] of keys) {
          const first = keys.find(([, m]) => m === n)?.[0];
          if ((inRanges(n) || n > sequence) && first === key) expect(kept.get(key)).toBe(n);
        }
      }),
    );
  });
});

describe('CSV errors', () => {
  it('name the line of the record whose quote is never closed', () => {
    const reader = new CsvReader();
    reader.push('a,b\n1,2\n"open,3\n4,5\n');
    let error: unknown;
    try {
      reader.end();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CsvError);
    expect((error as CsvError).line).toBe(3);
  });
});

describe("a source's attachments, kept as links", () => {
  const cell = (name: string, url: string) => `01/Feb/24 10:15 AM;557058:f58131cb-b67d-43c7-b30d-6b58d40bd077;${name};${url}`;
  const atlassian = 'https://acme.atlassian.net/secure/attachment';

  it("reads every Jira Attachment column (date;author id;file name;URL), names with ';' included; a cell of another shape is warned about", () => {
    const header = [...base, 'Description', 'Attachment', 'Attachment', 'Attachment', 'Attachment'];
    const { record, columns } = jira(header, {
      Summary: 'S',
      'Issue key': 'DI-1',
      Status: 'To Do',
      Description: 'Crashes on save.',
      Attachment: [
        cell('screenshot.png', `${atlassian}/10001/screenshot.png`),
        cell('notes; draft.txt', `${atlassian}/10002/notes%3B%20draft.txt`),
        `${atlassian}/10003/trace%20log.txt`,
        'a file without its link',
      ],
    });
    expect(columns.unknown.map((u) => u.name)).not.toContain('Attachment');
    expect(record.attachments).toEqual([
      { name: 'screenshot.png', url: `${atlassian}/10001/screenshot.png` },
      { name: 'notes; draft.txt', url: `${atlassian}/10002/notes%3B%20draft.txt` },
      { name: 'trace log.txt', url: `${atlassian}/10003/trace%20log.txt` },
    ]);
    expect(record.warnings).toEqual(['Attachment "a file without its link" is not "date;author;file name;URL": left out']);

    // Noted at the end of the description, as Markdown links.
    const planned = planRecord(record, mappingWith());
    expect(planned.ok && planned.input.description).toBe(
      'Crashes on save.\n\n---\nAttachments in the source (not copied here; the links lead to the files there):\n' +
        `- [screenshot.png](<${atlassian}/10001/screenshot.png>)\n` +
        `- [notes; draft.txt](<${atlassian}/10002/notes%3B%20draft.txt>)\n` +
        `- [trace log.txt](<${atlassian}/10003/trace%20log.txt>)`,
    );
    expect(planned.ok && planned.attachments).toHaveLength(3);
  });

  it('notes them on an issue without a description; one whose description has no room left keeps it as it is, with a warning', () => {
    const attachments = [{ name: 'a [1].png', url: `${atlassian}/1/a.png` }];
    const record: SourceRecord = { row: 2, key: 'DI-2', title: 'T', description: null, status: 'todo', labels: [], attachments };
    const planned = planRecord(record, mappingWith());
    expect(planned.ok && planned.input.description).toBe(attachmentNote(attachments));
    expect(attachmentNote(attachments)).toContain(`- [a \\[1\\].png](<${atlassian}/1/a.png>)`);

    const full = planRecord({ ...record, description: 'x'.repeat(99_990) }, mappingWith());
    expect(full.ok && full.input.description).toBe('x'.repeat(99_990));
    expect(full.ok && full.warnings).toEqual([
      'Attachment: 1 link(s) left out of the description (too long): the report lists them',
    ]);
    expect(full.ok && full.attachments).toEqual(attachments);
  });

  it("finds GitHub's uploads linked from a body or comment (new and old hosts), named by their link text or alt, each once", () => {
    const body = [
      'Steps to reproduce.',
      '![screenshot of the crash](https://github.com/user-attachments/assets/0f8a3c1e-5b7d-4e2f-9a61-3c2d1e0b9f77)',
      '[trace.log](https://github.com/user-attachments/files/17001234/trace.log)',
      '<img width="812" alt="Old screenshot" src="https://user-images.githubusercontent.com/1234567/210000000-aa11bb22.png">',
      'https://private-user-images.githubusercontent.com/1234567/310000000-cc33.png?jwt=abc',
      'Not an upload: https://github.com/acme/app/issues/12 and https://example.com/x.png',
      'Again: [trace.log](https://github.com/user-attachments/files/17001234/trace.log)',
    ].join('\n');
    expect(githubUploads(body)).toEqual([
      { name: 'screenshot of the crash', url: 'https://github.com/user-attachments/assets/0f8a3c1e-5b7d-4e2f-9a61-3c2d1e0b9f77' },
      { name: 'trace.log', url: 'https://github.com/user-attachments/files/17001234/trace.log' },
      { name: 'Old screenshot', url: 'https://user-images.githubusercontent.com/1234567/210000000-aa11bb22.png' },
      { name: '310000000-cc33.png', url: 'https://private-user-images.githubusercontent.com/1234567/310000000-cc33.png?jwt=abc' },
    ]);
    const record = githubRecord(
      {
        number: 7,
        title: 'Crash',
        body,
        state: 'OPEN',
        url: 'https://github.com/acme/app/issues/7',
        comments: [{ body: 'Logs: [app.log](https://github.com/acme/app/files/9876543/app.log)', author: { login: 'grace' } }],
      },
      1,
    ) as SourceRecord;
    expect(record.attachments?.map((a) => a.name)).toEqual([
      'screenshot of the crash',
      'trace.log',
      'Old screenshot',
      '310000000-cc33.png',
      'app.log',
    ]);
    // They stay where they were written: the description is the body as it is.
    const planned = planRecord(record, mappingWith());
    expect(planned.ok && planned.input.description).toBe(body);
  });
});

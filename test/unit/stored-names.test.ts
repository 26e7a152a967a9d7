import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layout } from '../../tools/docs/layout.ts';
import { listCounterStored, storedCounter } from '../../lib/db/issues/counters.ts';
import { issueCounters, OPEN_BLOCKERS } from '../../lib/model/derivations.ts';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';
import * as z from 'zod';
import { tools } from '../../lib/mcp/tools/index.ts';

/**
 * Only `lib/db` knows how items are stored (docs/architecture.md): the names the table stores that
 * no answer, body or payload uses (keys, `issue_type`, counters kept beside an issue, `rev`) appear
 * nowhere else in the service's code. The names come from the declarations (tools/docs/layout.ts), so a
 * new stored attribute is covered as soon as it is declared.
 */
const root = resolve(import.meta.dirname, '../..');

/**
 * Property names of every schema of the published document, and its parameters' names (`webhook_id`),
 * and those of every MCP tool's result (`get_workspace`'s `projects_count`): the API's own words.
 */
function apiNames(): Set<string> {
  const names = new Set<string>();
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(walk);
    if (!x || typeof x !== 'object') return;
    for (const [k, v] of Object.entries(x)) {
      if (k === 'properties' && v && typeof v === 'object') Object.keys(v).forEach((p) => names.add(p));
      if (k === 'parameters' && Array.isArray(v))
        for (const p of v as { name?: unknown }[]) if (typeof p?.name === 'string') names.add(p.name);
      walk(v);
    }
  };
  walk(buildOpenApiDocument());
  for (const tool of tools) walk(z.toJSONSchema(z.object(tool.output), { unrepresentable: 'any', io: 'output' }));
  return names;
}

/**
 * Payload fields the change feed and webhooks show under a stored name (docs/change-feed.md), and
 * the files that build or read those payloads: there the name is the payload's.
 */
const payloadNames: Record<string, string[]> = {
  label_ids: ['lib/feed/events.ts', 'lib/webhooks/subject.ts', 'lib/webhooks/filter.ts'],
  // The account a `notification.created` payload is for.
  account_id: ['lib/feed/events.ts'],
};

/**
 * The keys, and each attribute stored under a name other than its field's (`type` as `issue_type`,
 * `openBlockers` as `open_blockers`): a field stored under its own name is read by that name from
 * the decoded item too, so only these tell a stored item read by hand.
 */
function storedOnlyNames(): string[] {
  const stored = new Set(['PK', 'SK', 'LSK']);
  for (const row of layout)
    for (const [field, a] of Object.entries(row.attributes ?? {})) if (a.stored !== field) stored.add(a.stored);
  const api = apiNames();
  return [...stored].filter((name) => !api.has(name)).sort();
}

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)));
}

/** The code of a file without its comments (a comment may explain how a field is stored). */
const code = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** `file:line: name` for each stored-only name written outside `lib/db`. */
function uses(files: string[], names: string[]): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`(?<![\\w$])(${names.join('|')})(?![\\w$])`, 'g');
  for (const file of files) {
    code(readFileSync(join(root, file), 'utf8'))
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(pattern)) found.push(`${file}:${i + 1}: ${m[1]}`);
      });
  }
  return found;
}

/**
 * Where code above lib/db still writes a stored name, to be moved into lib/db: none. The check fails
 * on any file or name that comes back; a file listed here would have to be gone from it next.
 */
const notYetMoved: Record<string, string[]> = {};

/**
 * The stored names of derived counters (lib/db/issues/counters.ts), some of which an answer shows too
 * (a sprint's `issues_count`): above lib/db they are at most the key of what is answered, never
 * read off an item nor named as a counter (the model and the services name counters as the model
 * does: `issuesCount`), and the model, which answers nothing, never writes them at all.
 */
const counterNames = () =>
  [
    ...Object.values(listCounterStored),
    ...issueCounters.map((c) => storedCounter('issue', c)),
    storedCounter('search', OPEN_BLOCKERS),
  ].sort();

/**
 * A counter's stored name that is also another item's field and its answer's word: a velocity entry's
 * `completed_story_points` (lib/model/completion.ts: `VelocityEntry`), read where velocity is answered.
 */
const otherFields: Record<string, string[]> = {
  completed_story_points: ['lib/model/completion.ts', 'lib/services/sprints.ts'],
};

/** `file:line: name` for each counter's stored name in `text` (of `file`) other than as an answer's key (in lib/model: at all). */
function counterUsesIn(file: string, text: string, names: string[]): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`(?<![\\w$])(${names.join('|')})(?![\\w$])`, 'g');
  code(text)
    .split('\n')
    .forEach((line, i) => {
      for (const m of line.matchAll(pattern)) {
        // An object's key (`issues_count: c.issuesCount`, a schema's `issues_count: z.number()`), not a read (`a.issues_count`) nor a name (`'issues_count'`).
        const key = /(^|[\s{(,])$/.test(line.slice(0, m.index)) && /^\??:(?!:)/.test(line.slice(m.index + m[1]!.length));
        if (!key || file.startsWith('lib/model/')) found.push(`${file}:${i + 1}: ${m[1]}`);
      }
    });
  return found;
}

describe('stored names stay in lib/db', () => {
  const names = storedOnlyNames();
  // lib/aws stores too: a sealed secret's KMS encryption context (`org_id`) is bound into what it stores.
  const outside = [...sources('lib').filter((f) => !/^lib\/(db|aws)\//.test(f)), ...sources('functions')];

  it('knows the stored-only names from the declarations', () => {
    expect(names).toEqual(expect.arrayContaining(['PK', 'SK', 'LSK', 'issue_type', 'label_ids', 'open_blockers']));
    // A path parameter is a word of the API (a delivery's `webhook_id`), a stored name like `failing_since` is not.
    expect(names).not.toContain('webhook_id');
    expect(names).toEqual(expect.arrayContaining(['failing_since', 'filter_selection', 'previous_secret', 'slow_attempts']));
    // A comment's (and its pointer's) attachments mark.
    expect(names).toEqual(expect.arrayContaining(['has_attachments']));
    // An import's records (lib/db/imports/imports.ts, lib/db/imports/import-jobs.ts).
    expect(names).toEqual(expect.arrayContaining(['imported_at', 'report_parts']));
    // A delete's marker (its stamped actor), an idempotency record, a lane's places in flight.
    expect(names).toEqual(
      expect.arrayContaining(['updated_by', 'in_progress_expires_at', 'request_hash', 'in_flight', 'changed_at']),
    );
    // The migrations' lease.
    expect(names).toEqual(expect.arrayContaining(['lease_until', 'taken_at']));
    // A payload field the document has no schema for is still documented where payloads are.
    for (const name of Object.keys(payloadNames)) expect(readFileSync(join(root, 'docs/change-feed.md'), 'utf8')).toContain(name);
  });

  it('finds none of them outside lib/db but where the list of those not yet moved says', () => {
    const found: Record<string, string[]> = {};
    for (const use of uses(outside, names)) {
      const [, file, name] = /^(.+?):\d+: (.+)$/.exec(use)!;
      if (payloadNames[name!]?.includes(file!)) continue;
      found[file!] = [...new Set([...(found[file!] ?? []), name!])].sort();
    }
    expect(found).toEqual(notYetMoved);
  });

  it("finds counters' stored names outside lib/db only as keys of what is answered, and none in lib/model", () => {
    const counters = counterNames();
    expect(counters).toEqual(
      expect.arrayContaining(['issues_count', 'open_issues_count', 'done_issues_count', 'backlog_count', 'added_issues']),
    );
    const found: Record<string, string[]> = {};
    for (const file of outside)
      for (const use of counterUsesIn(file, readFileSync(join(root, file), 'utf8'), counters)) {
        const name = /: (\w+)$/.exec(use)![1]!;
        if (otherFields[name]?.includes(file) || notYetMoved[file]?.includes(name)) continue;
        found[file] = [...(found[file] ?? []), use];
      }
    expect(found).toEqual({});
  });

  it("would find a counter's stored name read outside lib/db, or named in lib/model", () => {
    const counters = counterNames();
    const found = (file: string, text: string) => counterUsesIn(file, text, counters);
    expect(found('lib/services/issues.ts', 'const n = Number(project.backlog_count ?? 0);')).toEqual([
      'lib/services/issues.ts:1: backlog_count',
    ]);
    expect(found('lib/services/bulk.ts', 'x;\nconst n = owner?.issues_count;')).toEqual(['lib/services/bulk.ts:2: issues_count']);
    expect(found('lib/services/sprints.ts', "names['#c'] = 'done_issues_count';")).toHaveLength(1);
    expect(found('lib/services/sprints.ts', 'const { open_issues_count } = item;')).toHaveLength(1);
    expect(found('lib/model/derivations.ts', 'return { backlog_count: delta.issuesCount };')).toHaveLength(1);
    // What an answer shows, under its own word, is no stored name read by hand.
    expect(found('lib/services/sprints.ts', 'return { issues_count: c.issuesCount, open: 1 };')).toEqual([]);
    expect(found('lib/mcp/tools/sprints.ts', '  issues_count: z.number().int(),')).toEqual([]);
    expect(found('lib/services/sprints.ts', '// reads item.issues_count')).toEqual([]);
  });

  /**
   * A sprint's burndown days are stored under an attribute per day (`burndown_20260102`, lib/db/projects/sprints.ts);
   * above lib/db a day's change is the model's counter (`burndown@2026-01-02`) or the answer's date.
   */
  const storedDays = (file: string, text: string) =>
    code(text)
      .split('\n')
      .flatMap((line, i) => (/burndown_(?!base\b)/.test(line) ? [`${file}:${i + 1}`] : []));

  it("finds no sprint's stored burndown day outside lib/db", () => {
    expect(outside.flatMap((file) => storedDays(file, readFileSync(join(root, file), 'utf8')))).toEqual([]);
    expect(storedDays('lib/model/derivations.ts', 'x;\nout[`burndown_${day}`] = 1;')).toEqual(['lib/model/derivations.ts:2']);
    expect(storedDays('lib/services/sprints.ts', 'const base = s.burndown_base;')).toEqual([]);
  });

  it('would find one planted outside lib/db, and not one in a comment', () => {
    const planted = uses(['lib/services/issues.ts'], ['title']);
    expect(planted.length).toBeGreaterThan(0);
    // Line numbers survive a comment of several lines.
    expect(code('/*\n*/ x').split('\n')).toHaveLength(2);
    expect(code("const a = item.issue_type; // stored as 'rev'")).toContain('issue_type');
    expect(code("const a = 1; // stored as 'rev'")).not.toContain('rev');
    expect(code('/** `rev` */ const url = "https://x";')).toContain('https://x');
  });
});

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/**
 * The docs are self-contained: every repository path that the README, `docs/`, the bench's README
 * or a code comment names exists, every relative Markdown link (and its `#anchor`) resolves, and
 * nothing cites a document that lives outside the repository.
 */

/** Folders never read: dependencies, build output, local data, VCS. */
const skipped = new Set(['node_modules', '.git', 'cdk.out', '.data', '.node', 'coverage', 'dist']);

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

const rel = (path: string) => relative(repoRoot, path);

/** The Markdown documents: the README, everything under `docs/`, and any README in the tree. */
const markdownFiles = filesUnder(repoRoot).filter((f) => f.endsWith('.md'));

/** Source folders whose comments are checked. */
const codeFolders = ['lib', 'functions', 'infra', 'tools', 'test'];
const codeFiles = codeFolders.flatMap((d) => filesUnder(join(repoRoot, d))).filter((f) => /\.(ts|js|mjs|cjs)$/.test(f));

/** Top-level folders a named path may start with, and the root files that may be named alone. */
const topLevel = ['lib', 'functions', 'infra', 'tools', 'test', 'docs', 'events', '.ci'];
const rootFiles = ['package.json', 'tsconfig.json', 'cdk.json'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** `lib/db/core/keys.ts`, `tools/local/`, `.ci/run`, `package.json`; not part of `../lib/x` or `a.lib/x`. */
const pathPattern = new RegExp(
  `(?<![\\w./@-])(?:(?:${topLevel.map(escape).join('|')})/[\\w./-]*|(?:${rootFiles.map(escape).join('|')})(?![\\w-]))`,
  'g',
);

/** MCP's JSON-RPC methods look like paths under `tools/`. */
const mcpMethods = new Set(['tools/list', 'tools/call']);

/**
 * The repository paths a text names, as written. A path followed by a placeholder or a glob
 * (`functions/<resource>/<verb>.ts`, `events/*.json`, `lib/{a,b}`) names a pattern, not a file.
 */
export function namedPaths(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(pathPattern)) {
    const next = text[m.index + m[0].length];
    if (next !== undefined && '<{*'.includes(next)) continue;
    // Sentence punctuation after a path is not part of it.
    const path = m[0].replace(/[.,:;]+$/, '');
    if (!mcpMethods.has(path)) found.push(path);
  }
  return found;
}

/** The named paths of `text` that do not exist in the repository. */
export function missingPaths(text: string): string[] {
  return namedPaths(text).filter((p) => !existsSync(join(repoRoot, p)));
}

/** The comments of a TypeScript/JavaScript source, found by the compiler's scanner (strings and regexes excluded). */
function commentsOf(file: string): string {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const seen = new Set<number>();
  const comments: string[] = [];
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      comments.push(text.slice(r.pos, r.end));
    }
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(source);
  return comments.join('\n');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const withoutCode = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Relative Markdown links of `file` (`[text](target)`) whose file or `#anchor` does not exist. */
export function brokenLinks(file: string, markdown: string): string[] {
  const broken: string[] = [];
  for (const m of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1]!;
    if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const resolved = path ? resolve(dirname(file), path) : file;
    if (!existsSync(resolved)) {
      broken.push(target);
      continue;
    }
    if (anchor && (!statSync(resolved).isFile() || !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor))) broken.push(target);
  }
  return broken;
}

describe('self-contained docs', () => {
  it('keeps the README a first page: under 8 KB, the rest linked from it', () => {
    expect(statSync(join(repoRoot, 'README.md')).size).toBeLessThanOrEqual(8 * 1024);
  });

  it('finds the Markdown documents it checks', () => {
    const names = markdownFiles.map(rel);
    expect(names).toEqual(expect.arrayContaining(['README.md', 'docs/api.md', 'docs/data-model.md', 'tools/bench/README.md']));
  });

  it('reports a named path that does not exist, and only that one', () => {
    const text =
      'See `lib/db/core/keys.ts`, lib/local/server.ts and tools/cli/admin.ts. Patterns: functions/<resource>/<verb>.ts, events/*.json.';
    expect(namedPaths(text)).toEqual(['lib/db/core/keys.ts', 'lib/local/server.ts', 'tools/cli/admin.ts']);
    expect(missingPaths(text)).toEqual(['lib/local/server.ts']);
    expect(missingPaths('../../lib/routes.ts, node_modules/x/lib/y.js, @aws-sdk/lib-dynamodb, MCP tools/list')).toEqual([]);
    expect(missingPaths('The runtime lives in lib/local (and lib/local/), the CLI in tools/cli.')).toEqual([
      'lib/local',
      'lib/local/',
    ]);
  });

  it('reports a relative link whose file or anchor does not exist', () => {
    const readme = join(repoRoot, 'README.md');
    expect(brokenLinks(readme, '[a](docs/api.md) [b](docs/api.md#pagination) [c](https://example.com/x)')).toEqual([]);
    expect(brokenLinks(readme, '[a](docs/nowhere.md) [b](docs/api.md#no-such-heading)')).toEqual([
      'docs/nowhere.md',
      'docs/api.md#no-such-heading',
    ]);
    expect(anchorOf('API keys: one per organisation')).toBe('api-keys-one-per-organisation');
    expect(anchorOf('Run one handler (`npm run invoke`)')).toBe('run-one-handler-npm-run-invoke');
  });

  it.each(markdownFiles.map((f) => [rel(f), f]))('%s names only paths that exist', (_name, file) => {
    expect(missingPaths(readFileSync(file, 'utf8'))).toEqual([]);
  });

  it.each(markdownFiles.map((f) => [rel(f), f]))('%s links only to files and headings that exist', (_name, file) => {
    expect(brokenLinks(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it('code comments name only paths that exist', () => {
    const missing = codeFiles.flatMap((file) => missingPaths(commentsOf(file)).map((p) => `${rel(file)}: ${p}`));
    expect(missing).toEqual([]);
  });

  it('no file cites the contract or design documents kept outside the repository', () => {
    // Spelled in pieces so that this file does not cite them itself.
    const outside = ['SP' + 'EC', 'DES' + 'IGN'];
    const citation = new RegExp(`\\b(?:${outside.join('|')})(?:\\.md\\b|'s\\b|:)`);
    const citing = filesUnder(repoRoot)
      .filter((f) => statSync(f).size < 2_000_000)
      .filter((f) => citation.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(citing).toEqual([]);
  });
});

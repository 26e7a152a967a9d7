import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/**
 * The docs read in an hour: docs/ stays small in all, each page's own prose (its generated tables
 * aside) stays near 20 KB and opens with a summary of at most five points, the README leads through
 * every page with docs/architecture.md first, and docs/mcp.md names every tool the server offers.
 */
const docs = join(repoRoot, 'docs');
const pages = readdirSync(docs)
  .filter((name) => name.endsWith('.md'))
  .sort();
const read = (name: string) => readFileSync(join(docs, name), 'utf8');

/** A page without what a generator writes (kept between Prettier's ignore markers). */
export function ownProse(markdown: string): string {
  return markdown.replace(/<!-- prettier-ignore-start -->[\s\S]*?<!-- prettier-ignore-end -->/g, '');
}

/** The points of the block right after a page's title: a list's items, or a paragraph's lines. */
export function summaryPoints(markdown: string): number | undefined {
  const afterTitle = /^# [^\n]+\n\n([\s\S]*?)(?:\n\n|$)/.exec(markdown)?.[1];
  if (afterTitle === undefined) return undefined;
  const lines = afterTitle.split('\n');
  const items = lines.filter((line) => /^(?:[-*]|\d+\.) /.test(line));
  return items.length > 0 ? items.length : lines.length;
}

describe('the docs read in an hour', () => {
  it('finds the pages and measures them as they are written', () => {
    expect(pages).toEqual(expect.arrayContaining(['api.md', 'architecture.md', 'data-model.md', 'trash.md']));
    expect(ownProse('a\n<!-- prettier-ignore-start -->\n| x |\n<!-- prettier-ignore-end -->\nb')).toBe('a\n\nb');
    expect(summaryPoints('# T\n\n- one\n- two\n  wrapped\n\n## Next')).toBe(2);
    expect(summaryPoints('# T\n\nOne line,\nanother.\n\nMore.')).toBe(2);
    expect(summaryPoints('No title')).toBeUndefined();
  });

  it('keeps docs/ under 350 KB in all', () => {
    const total = pages.reduce((sum, name) => sum + statSync(join(docs, name)).size, 0);
    expect(total).toBeLessThanOrEqual(350 * 1024);
  });

  it.each(pages)('%s: its own prose, generated tables aside, is at most 20 KB', (name) => {
    expect(Buffer.byteLength(ownProse(read(name)))).toBeLessThanOrEqual(20 * 1024);
  });

  it.each(pages)('%s opens with a summary of at most five points', (name) => {
    const points = summaryPoints(read(name));
    expect(points, `${name} has a title, then a summary`).toBeDefined();
    expect(points).toBeLessThanOrEqual(5);
  });

  it('the README leads through every page of docs/, docs/architecture.md first', () => {
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const path = readme.slice(readme.indexOf('## Reading path'));
    const linked = [...path.matchAll(/\]\(docs\/([\w-]+\.md)[#)]/g)].map((m) => m[1]!);
    expect(linked[0]).toBe('architecture.md');
    expect([...new Set(linked)].sort()).toEqual(pages);
  });

  it('docs/mcp.md names every tool the MCP server offers', () => {
    const list = JSON.parse(readFileSync(join(repoRoot, 'lib/mcp/tool-list.json'), 'utf8')) as { tool: { name: string } }[];
    const names = list.map((entry) => entry.tool.name);
    expect(names.length).toBeGreaterThan(30);
    const page = read('mcp.md');
    expect(names.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/**
 * Every environment variable the code reads is in docs/configuration.md: those of lib/config.ts
 * (`env.NAME`, `required('NAME')`) and every `process.env.NAME` of lib/, functions/ and tools/.
 */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|js)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const read = ['lib', 'functions', 'tools'].flatMap((d) => sources(join(repoRoot, d)));
const variables = new Map<string, string>();
for (const file of read) {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(
    /\b(?:process\.)?env\.([A-Z][A-Z0-9_]+)|\brequired\('([A-Z][A-Z0-9_]+)'|env\[['"]([A-Z][A-Z0-9_]+)['"]\]/g,
  )) {
    const name = m[1] ?? m[2] ?? m[3];
    if (name && !variables.has(name)) variables.set(name, relative(repoRoot, file));
  }
}

const docs = readFileSync(join(repoRoot, 'docs/configuration.md'), 'utf8');
const documented = new Set([...docs.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!));

describe('docs/configuration.md', () => {
  it('finds the variables the code reads (those of lib/config.ts, the webhooks and the local tools among them)', () => {
    for (const name of [
      'TABLE_NAME',
      'DYNAMODB_ENDPOINT',
      'PUBLIC_URL',
      'CORS_ORIGINS',
      'WEBHOOK_TIMEOUT_MS',
      'WEBHOOK_DEFER_MS',
      'PORT',
      'STAGE',
    ]) {
      expect(variables.has(name), name).toBe(true);
    }
  });

  it('documents every environment variable the code reads', () => {
    const missing = [...variables].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/**
 * docs/api.md's resource tables (`### Sprint (\`lib/schemas/sprints.ts\`)` and a table of fields)
 * name exactly the fields of the schema they cite, and a type made of values names the enum's.
 */
interface Table {
  resource: string;
  file: string;
  rows: { fields: string[]; type: string }[];
}

function resourceTables(markdown: string): Table[] {
  const tables: Table[] = [];
  for (const section of markdown.split(/^### /m).slice(1)) {
    const heading = /^(\w+)[^\n]*\(`(lib\/schemas\/[\w-]+\.ts)`\)\n/.exec(section);
    const lines = section.split('\n').filter((l) => l.startsWith('|'));
    if (!heading || !/^\|\s*Field\s*\|/.test(lines[0] ?? '')) continue;
    const rows = lines.slice(2).map((line) => {
      const [first = '', type = ''] = line.split('|').slice(1);
      return { fields: [...first.matchAll(/`(\w+)`/g)].map((m) => m[1]!), type: type.trim() };
    });
    tables.push({ resource: heading[1]!, file: heading[2]!, rows });
  }
  return tables;
}

interface Schema {
  shape?: Record<string, Schema>;
  def: { type: string; innerType?: Schema; entries?: Record<string, string> };
}
/** A field's enum values, through `nullable` and `optional`; undefined when it is no enum. */
function enumValues(schema: Schema): string[] | undefined {
  if (schema.def.innerType) return enumValues(schema.def.innerType);
  return schema.def.type === 'enum' ? Object.values(schema.def.entries ?? {}) : undefined;
}

const tables = resourceTables(readFileSync(join(repoRoot, 'docs/api.md'), 'utf8'));

describe("docs/api.md's resource tables", () => {
  it('cover the resources with a field table', () => {
    expect(tables.map((t) => t.resource)).toEqual(['Project', 'Sprint', 'Issue', 'Label', 'Comment']);
  });

  it.each(tables.map((t) => [t.resource, t] as const))('%s: names every field of its schema, and no other', async (_, table) => {
    const schema = ((await import(join(repoRoot, table.file))) as Record<string, Schema>)[table.resource]!;
    expect(schema.shape, `${table.file} exports ${table.resource}`).toBeDefined();
    const documented = table.rows.flatMap((r) => r.fields);
    expect([...documented].sort()).toEqual(Object.keys(schema.shape!).sort());
  });

  it.each(tables.map((t) => [t.resource, t] as const))('%s: lists every value of each enum field', async (_, table) => {
    const schema = ((await import(join(repoRoot, table.file))) as Record<string, Schema>)[table.resource]!;
    for (const row of table.rows) {
      // A type written as values only (`planning`, `active`, …) is an enum's list.
      if (!/^`[^`]+`(, `[^`]+`)*$/.test(row.type)) continue;
      const listed = [...row.type.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
      for (const field of row.fields) expect(listed, `${table.resource}.${field}`).toEqual(enumValues(schema.shape![field]!));
    }
  });
});

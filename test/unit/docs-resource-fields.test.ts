import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';
import { begin, end, page, renderedPage, resources } from '../../tools/docs/api-fields.ts';

/**
 * docs/api-fields.md's field tables are the ones `npm run docs:fields` writes from the OpenAPI
 * document, and, read back on their own, name exactly the fields of the zod schema of their
 * resource, and a type made of values names the enum's values.
 */
interface Table {
  resource: string;
  rows: { fields: string[]; type: string }[];
}

function resourceTables(markdown: string): Table[] {
  const generated = markdown.slice(markdown.indexOf(begin), markdown.indexOf(end));
  return generated
    .split(/^## /m)
    .slice(1)
    .map((section) => {
      const lines = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Field ') && !l.startsWith('| ---'));
      const rows = lines.map((line) => {
        const [first = '', type = ''] = line.split(' | ');
        return { fields: [...first.matchAll(/`(\w+)`/g)].map((m) => m[1]!), type: type.trim() };
      });
      return { resource: section.split('\n')[0]!.trim(), rows };
    });
}

/** The zod schema each table documents, by the module that exports it under the table's name. */
const modules: Record<string, string> = {
  Project: 'lib/schemas/projects.ts',
  Sprint: 'lib/schemas/sprints.ts',
  SprintReport: 'lib/schemas/sprints.ts',
  Issue: 'lib/schemas/issues.ts',
  SubIssuesSummary: 'lib/schemas/issues.ts',
  Label: 'lib/schemas/labels.ts',
  Comment: 'lib/schemas/comments.ts',
  State: 'lib/schemas/states.ts',
  Relation: 'lib/schemas/relations.ts',
  Attachment: 'lib/schemas/attachments.ts',
  Webhook: 'lib/schemas/webhooks.ts',
  Account: 'lib/schemas/accounts.ts',
  OrganisationSettings: 'lib/schemas/organisation.ts',
};

interface Schema {
  shape?: Record<string, Schema>;
  def: { type: string; innerType?: Schema; entries?: Record<string, string> };
}
/** An object schema's fields, through `nullable`. */
function shapeOf(schema: Schema): Record<string, Schema> | undefined {
  return schema.shape ?? (schema.def.innerType ? shapeOf(schema.def.innerType) : undefined);
}
/** A field's enum values, through `nullable` and `optional`; undefined when it is no enum. */
function enumValues(schema: Schema): string[] | undefined {
  if (schema.def.innerType) return enumValues(schema.def.innerType);
  return schema.def.type === 'enum' ? Object.values(schema.def.entries ?? {}) : undefined;
}

const markdown = readFileSync(page, 'utf8');
const tables = resourceTables(markdown);
const zodSchema = async (resource: string) => {
  const exported = ((await import(join(repoRoot, modules[resource]!))) as Record<string, Schema>)[resource];
  expect(exported, `${modules[resource]} exports ${resource}`).toBeDefined();
  return shapeOf(exported!)!;
};

describe("docs/api-fields.md's field tables", () => {
  it('are the ones generated from the schemas (npm run docs:fields)', () => {
    expect(markdown, 'docs/api-fields.md: run npm run docs:fields').toBe(renderedPage(markdown, buildOpenApiDocument()));
  });

  it('cover the main resources, each with its schema', () => {
    expect(tables.map((t) => t.resource)).toEqual(resources.map((r) => r.name));
    expect(Object.keys(modules).sort()).toEqual(resources.map((r) => r.name).sort());
    for (const name of ['Project', 'Sprint', 'SprintReport', 'Issue', 'Label', 'Comment'])
      expect(tables.map((t) => t.resource)).toContain(name);
  });

  it.each(tables.map((t) => [t.resource, t] as const))('%s: names every field of its schema, and no other', async (_, table) => {
    const shape = await zodSchema(table.resource);
    const documented = table.rows.flatMap((r) => r.fields.slice(0, 1));
    expect([...documented].sort()).toEqual(Object.keys(shape).sort());
  });

  it.each(tables.map((t) => [t.resource, t] as const))('%s: lists every value of each enum field', async (_, table) => {
    const shape = await zodSchema(table.resource);
    let enums = 0;
    for (const row of table.rows) {
      const field = row.fields[0]!;
      const values = enumValues(shape[field]!);
      // A type written as values only (`planning`, `active`, …) is an enum's list, and an enum is written so.
      if (!/^`[^`]+`(, `[^`]+`)*$/.test(row.type)) {
        expect(values, `${table.resource}.${field} is an enum`).toBeUndefined();
        continue;
      }
      enums++;
      expect(
        [...row.type.matchAll(/`([^`]+)`/g)].map((m) => m[1]!),
        `${table.resource}.${field}`,
      ).toEqual(values);
    }
    if (table.resource === 'Sprint' || table.resource === 'Issue') expect(enums).toBeGreaterThan(0);
  });
});

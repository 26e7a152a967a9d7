import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { compactSchema, renderToolList, sentAnnotations } from '../../lib/mcp/listing.ts';
import { listInput } from '../../lib/mcp/list.ts';
import { projectRef, sprintRef } from '../../lib/mcp/resolve.ts';
import { annotations } from '../../lib/mcp/tool.ts';

describe('the tools/list rendering', () => {
  it('drops the $schema line, safe-integer bounds, the minimum of ids and versions, non-empty bounds, date patterns, endless lengths and examples, and keeps real limits', () => {
    const input = z.object({
      project_id: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
      version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
      limit: z.number().int().min(1).max(100).default(50),
      points: z.number().int().min(0).max(1000),
      name: z.string().min(1).max(255).meta({ example: 'Checkout' }),
      code: z.string().max(20),
      body: z.string().max(100_000),
      kinds: z
        .array(z.enum(['a', 'b']))
        .min(1)
        .max(2)
        .optional(),
      due: z.iso.date().optional(),
    });
    expect(compactSchema(z.toJSONSchema(input, { target: 'draft-7', io: 'input' }) as never)).toEqual({
      type: 'object',
      properties: {
        project_id: { type: 'integer' },
        version: { type: 'integer' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
        points: { type: 'integer', minimum: 0, maximum: 1000 },
        name: { type: 'string' },
        code: { type: 'string', maxLength: 20 },
        body: { type: 'string' },
        kinds: { type: 'array', maxItems: 2, items: { type: 'string', enum: ['a', 'b'] } },
        // A date's format is the instructions' ("Dates are YYYY-MM-DD").
        due: { type: 'string' },
      },
      required: ['project_id', 'points', 'name', 'code', 'body'],
    });
  });

  it('inlines the definitions a schema refers to and folds a nullable into a type pair', () => {
    const Status = z.enum(['todo', 'done']).meta({ id: 'TestStatus' });
    const input = z.object({ status: Status.optional(), note: z.string().nullable().describe('A note.') });
    expect(compactSchema(z.toJSONSchema(input, { target: 'draft-7', io: 'input' }) as never)).toEqual({
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['todo', 'done'] },
        note: { type: ['string', 'null'], description: 'A note.' },
      },
      required: ['note'],
    });
  });

  it('folds alternatives that are bare types (an id or a name, or null) into one type list', () => {
    const input = z.object({
      project_id: projectRef(),
      sprint_id: sprintRef().nullable().optional(),
      labels: z.array(z.union([z.number().int(), z.string().max(50)])),
    });
    expect(compactSchema(z.toJSONSchema(input, { target: 'draft-7', io: 'input' }) as never)).toEqual({
      type: 'object',
      properties: {
        project_id: { type: ['integer', 'string'] },
        sprint_id: { type: ['integer', 'string', 'null'] },
        labels: { type: 'array', items: { type: ['integer', 'string'] } },
      },
      required: ['project_id', 'labels'],
    });
  });

  it('leaves out the arguments the instructions describe, and the range of a list limit, which still apply', () => {
    const input = z.object({ issue_number: z.string(), project_id: z.number().int(), ...listInput });
    const [tool] = renderToolList([
      { name: 'list_things', description: 'Things.', input, annotations: annotations.read, unlisted: ['project_id', 'cursor'] },
    ]);
    expect(tool?.inputSchema).toEqual({
      type: 'object',
      properties: { issue_number: { type: 'string' }, limit: { type: 'integer' } },
      required: ['issue_number'],
    });
    expect(input.parse({ issue_number: 'A-1', project_id: 1 }).limit).toBe(50);
    expect(input.safeParse({ issue_number: 'A-1', project_id: 1, limit: 101 }).error?.issues[0]?.message).toBe(
      'must be between 1 and 100',
    );
  });

  it('sends only the hints that differ from the protocol defaults, and a client reading the defaults sees the same hints', () => {
    const defaults = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
    expect(sentAnnotations(annotations.read)).toEqual({ readOnlyHint: true, openWorldHint: false });
    for (const preset of [annotations.create, annotations.update, annotations.delete]) {
      expect({ ...defaults, ...sentAnnotations(preset) }).toEqual(preset);
    }
  });

  it('renders a tool as its name, description, compact input schema and hints, without an output schema', () => {
    const [tool] = renderToolList([
      { name: 'get_thing', description: 'One thing.', input: z.object({ id: z.number().int() }), annotations: annotations.read },
    ]);
    expect(tool).toEqual({
      name: 'get_thing',
      description: 'One thing.',
      inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
  });
});

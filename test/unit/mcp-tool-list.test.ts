import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderToolEntries, type ToolListEntry } from '../../lib/mcp/listing.ts';
import shippedTools from '../../lib/mcp/tool-list.json' with { type: 'json' };
import { tools } from '../../lib/mcp/tools/index.ts';
import { renderToolList, toolListFile } from '../../tools/mcp/write-tool-list.ts';

/**
 * `/mcp` serves `tools/list` from lib/mcp/tool-list.json, rendered at build time (`npm run mcp:tools`):
 * it must be what the tools' zod schemas give now.
 */
const toolList = shippedTools as ToolListEntry[];

describe('the MCP tool list shipped as data', () => {
  it('is what the zod schemas render today (run `npm run mcp:tools` after changing a tool)', () => {
    expect(toolList).toEqual(renderToolEntries(tools));
    expect(readFileSync(toolListFile, 'utf8')).toBe(renderToolList());
  });

  it('names every tool once, in the order of lib/mcp/tools/index.ts, with its scope and who may use it', () => {
    expect(toolList.map((t) => t.tool.name)).toEqual(tools.map((t) => t.name));
    expect(new Set(toolList.map((t) => t.tool.name)).size).toBe(tools.length);
    for (const [i, t] of tools.entries()) expect([toolList[i]!.scope, toolList[i]!.adminOnly]).toEqual([t.scope, t.adminOnly]);
  });
});

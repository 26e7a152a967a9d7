/**
 * `npm run mcp:tools`: renders the MCP tool list (`tools/list`) from the tools' zod schemas
 * (lib/mcp/tools/index.ts, lib/mcp/listing.ts) into lib/mcp/tool-list.json, the data the `/mcp`
 * function serves, so that it converts no schema at run time. `test/unit/mcp-tool-list.test.ts`
 * fails when the file differs from what the schemas give now: run this after changing a tool.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { renderToolEntries } from '../../lib/mcp/listing.ts';
import { tools } from '../../lib/mcp/tools/index.ts';

export const toolListFile = new URL('../../lib/mcp/tool-list.json', import.meta.url);

/** The file's text: the entries as JSON. */
export function renderToolList(): string {
  return `${JSON.stringify(renderToolEntries(tools), null, 2)}\n`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(toolListFile, renderToolList());
  process.stdout.write(`wrote ${toolListFile.pathname} (${tools.length} tools)\n`);
}

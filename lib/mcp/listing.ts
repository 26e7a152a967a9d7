import type { Tool as ListedTool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Scope } from '../model/oauth.ts';

/** What `tools/list` shows of a tool. */
export interface ToolListing {
  name: string;
  description: string;
  input: z.core.$ZodObject;
  annotations: ToolAnnotations;
  /**
   * Arguments taken but left out of the listed schema, because the server's instructions say them
   * once for every tool that takes them (lib/mcp/server.ts): an issue's `project_id`/`issue_id`/
   * `sprint_id` beside its `issue_number`, and `expected_version`.
   */
  unlisted?: readonly string[];
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * From this length on, a limit is one an agent's text hardly reaches (a title, a name, a URL, a
 * markdown description, a cursor it passes back); the server still enforces it, with a message
 * naming the field and its limit.
 */
const LONG = 50;

/** The bound every integer has anyway (zod's `int()` is a safe integer): saying it costs bytes, tells nothing. */
const SAFE = Number.MAX_SAFE_INTEGER;

type JsonObject = { [key: string]: Json };
const isObject = (node: Json | undefined): node is JsonObject =>
  typeof node === 'object' && node !== null && !Array.isArray(node);
const isEmpty = (node: Json | undefined) => isObject(node) && Object.keys(node).length === 0;
/** `{type: object, properties: {}, additionalProperties: {}}`: any object. */
const isOpenObject = (node: JsonObject) => isEmpty(node.properties) && isEmpty(node.additionalProperties);

/**
 * Drops from a JSON Schema what tells an agent nothing: the `$schema` line, safe-integer bounds,
 * the `minimum: 1` of ids and positions (the server's instructions say they are positive) and the
 * `minimum: 0` of versions, the `minItems: 1` / `minLength: 1` of what must not be empty, lengths
 * no agent's text reaches (`LONG`; the server still enforces them), the pattern of a `format: date`,
 * `date-time`, `uri` or `email` and that of plain text (the server still enforces them) and examples; inlines the `#/definitions/` a tool's schema refers to (an enum said once per tool is
 * shorter inline); `allOf: [X]` becomes X, `anyOf: [X, null]` becomes X with `type: [t, "null"]`
 * when X is a plain typed schema, and alternatives that are bare types one `type` list.
 */
export function compactSchema(
  node: Json,
  definitions: JsonObject = isObject(node) && isObject(node.definitions) ? node.definitions : {},
): Json {
  if (Array.isArray(node)) return node.map((n) => compactSchema(n, definitions));
  if (!isObject(node)) return node;
  const ref = typeof node.$ref === 'string' ? /^#\/definitions\/(.+)$/.exec(node.$ref)?.[1] : undefined;
  if (ref !== undefined && isObject(definitions[ref])) {
    const { $ref: _ref, ...rest } = node;
    return compactSchema({ ...definitions[ref], ...rest }, definitions);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'definitions' || key === 'example' || key === 'examples') continue;
    if ((key === 'maximum' && value === SAFE) || (key === 'minimum' && value === -SAFE)) continue;
    if (key === 'minimum' && (value === 1 || value === 0) && node.maximum === SAFE) continue;
    // A list or a text that must not be empty: no agent sends an empty one to mean something (the server still refuses it).
    if ((key === 'minItems' || key === 'minLength') && value === 1) continue;
    if (key === 'maxLength' && typeof value === 'number' && value >= LONG) continue;
    // A date's or date-time's pattern says what its `format` says, in some 300 bytes; a date's
    // format is said once, in the server's instructions ("Dates are YYYY-MM-DD").
    if (key === 'pattern' && (node.format === 'date' || node.format === 'date-time')) continue;
    if (key === 'format' && value === 'date') continue;
    // So does a URL's or an e-mail's (`format`), and the characters every plain text takes
    // (lib/schemas/common.ts `textPattern`: no control characters), which the instructions need not repeat.
    if (key === 'pattern' && (node.format === 'uri' || node.format === 'email')) continue;
    if (key === 'pattern' && typeof value === 'string' && value.includes('\\u0000-\\u0008')) continue;
    // An object open to anything (a batch item, validated as its single tool's arguments): its
    // empty `properties` and `additionalProperties` say what `type: object` says.
    if ((key === 'properties' || key === 'additionalProperties') && isOpenObject(node)) continue;
    // The keys of a JSON object are strings: `propertyNames: {type: string}` says nothing (a record's values, any JSON: neither does `additionalProperties: {}`).
    if (key === 'additionalProperties' && isEmpty(value) && node.properties === undefined) continue;
    const compact = compactSchema(value, definitions);
    if (key === 'propertyNames' && isObject(compact) && compact.type === 'string' && Object.keys(compact).length === 1) continue;
    out[key] = compact;
  }
  const allOf = out.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0])) {
    delete out.allOf;
    return { ...allOf[0], ...out };
  }
  const anyOf = out.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2) {
    const [first, second] = anyOf as [Json, Json];
    const isNull = (s: Json) => isObject(s) && s.type === 'null';
    const plain = isNull(second) ? first : isNull(first) ? second : undefined;
    if (isObject(plain) && typeof plain.type === 'string') {
      delete out.anyOf;
      return { ...plain, ...out, type: [plain.type, 'null'] };
    }
  }
  // Alternatives that are bare types (an id or a name, or null): one `type` list.
  if (Array.isArray(anyOf) && anyOf.every((s) => isObject(s) && Object.keys(s).length === 1 && s.type !== undefined)) {
    delete out.anyOf;
    return { ...out, type: anyOf.flatMap((s) => (s as JsonObject).type as Json) };
  }
  return out;
}

/**
 * The MCP annotations as sent: the hints that differ from the protocol's defaults (readOnly false,
 * destructive true, idempotent false, openWorld true); destructive and idempotent mean nothing for
 * a read-only tool. A client reads the same hints either way.
 */
export function sentAnnotations(a: ToolAnnotations): ToolAnnotations {
  const sent: ToolAnnotations = {};
  if (a.readOnlyHint) sent.readOnlyHint = true;
  else {
    if (a.destructiveHint === false) sent.destructiveHint = false;
    if (a.idempotentHint) sent.idempotentHint = true;
  }
  if (a.openWorldHint === false) sent.openWorldHint = false;
  return sent;
}

/**
 * The `tools/list` answer: names, one- or two-sentence descriptions, compact input schemas and the
 * hints. No output schemas: the result comes back as JSON text too, and they were most of a 93 KB
 * list. No display titles: the snake_case name says the same to an agent, and clients show the name
 * when there is no title. Built once per container: the SDK would convert every schema per request.
 */
export function renderToolList(tools: ToolListing[]): ListedTool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: withoutUnlisted(
      compactSchema(z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input' }) as Json) as JsonObject,
      tool.unlisted ?? [],
    ) as ListedTool['inputSchema'],
    annotations: sentAnnotations(tool.annotations),
  }));
}

/**
 * One tool of the list rendered at build time (lib/mcp/tool-list.json): what `tools/list` shows of
 * it, and what decides whom it is shown to (lib/mcp/server.ts).
 */
export interface ToolListEntry {
  scope: Scope;
  adminOnly: boolean;
  tool: ListedTool;
}

/** The tool list as lib/mcp/tool-list.json ships it, rendered from the tools' zod schemas. */
export function renderToolEntries(tools: { listing: ToolListing; scope: Scope; adminOnly: boolean }[]): ToolListEntry[] {
  const listed = renderToolList(tools.map((t) => t.listing));
  return tools.map((t, i) => ({ scope: t.scope, adminOnly: t.adminOnly, tool: listed[i]! }));
}

function withoutUnlisted(schema: JsonObject, unlisted: readonly string[]): JsonObject {
  if (unlisted.length === 0 || !isObject(schema.properties)) return schema;
  const properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !unlisted.includes(k)));
  const out: JsonObject = { ...schema, properties };
  if (Array.isArray(schema.required)) out.required = schema.required.filter((k) => !unlisted.includes(String(k)));
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  return out;
}

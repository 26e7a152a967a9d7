import type { CallToolResult, ContentBlock, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { ForbiddenError } from '../vocabulary/errors.ts';
import type { Scope } from '../model/oauth.ts';
import type { Principal } from '../model/principal.ts';
import { errorResponse } from '../http/errors.ts';
import { expectingVersion } from '../context/versions.ts';
import { answeredVersion } from '../model/versions.ts';
import type { Connection } from './connection.ts';
import type { ToolListing } from './listing.ts';
import { listInput } from './list.ts';
import { closed } from '../schemas/common.ts';
import { nameResolver, type Resolved } from './resolve.ts';

/**
 * Annotation presets. Every tool touches only this service's own data (`openWorldHint: false`).
 * "Idempotent" follows the MCP meaning: repeating the call with the same arguments has no further
 * effect (a repeated activation fails, but changes nothing).
 */
export const annotations = {
  read: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  update: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
} as const satisfies Record<string, ToolAnnotations>;

/**
 * The OAuth scope a tool needs (lib/model/oauth.ts), from its annotations: `read` for a read-only
 * tool, `delete` for a destructive one, `write` for any other.
 */
export function scopeNeeded(hints: ToolAnnotations): Scope {
  if (hints.readOnlyHint) return 'read';
  return hints.destructiveHint ? 'delete' : 'write';
}

/**
 * Refuses a call the connection does not allow (lib/mcp/connection.ts), as a tool error with the
 * REST API's 403 shape.
 */
function outOfScope(connection: Connection, scope: Scope): CallToolResult | undefined {
  if (connection.allowed.includes(scope)) return undefined;
  return toolError(new ForbiddenError(connection.refusal(scope)));
}

export interface ToolSpec<I extends z.core.$ZodObject, O extends z.ZodRawShape> {
  /** When to use the tool, in one or two sentences: an agent reads it in every conversation. */
  description: string;
  /** Arguments; an object schema, so that cross-field rules (`refine`) of the REST schemas apply too. */
  input: I;
  /**
   * The shape of the structured result (its root an object): it types the tool's result. It is not
   * advertised as an output schema: `tools/list` goes to an agent on every conversation, and the
   * output schemas were most of it, for what the result's JSON text shows anyway (lib/mcp/listing.ts).
   */
  output: O;
  annotations: ToolAnnotations;
  /** Only admins may ever use it: not listed to anyone else (their calls get the domain's 403). */
  adminOnly?: boolean;
  /** Arguments the instructions describe instead of the listed schema (lib/mcp/listing.ts). */
  unlisted?: readonly string[];
  /**
   * The result's resource whose version the result carries (`version`, what `expected_version`
   * takes next): by default its one key, when it has one.
   */
  versioned?: keyof O & string;
}

/**
 * A result that also shows itself as content an agent sees rather than reads as JSON (an image, a
 * file's text, a link), before its JSON text: `defineTool` sends `blocks`, then the JSON, with
 * `result` as the structured content.
 */
export class WithContent<T> {
  readonly result: T;
  readonly blocks: ContentBlock[];
  constructor(result: T, blocks: ContentBlock[]) {
    this.result = result;
    this.blocks = blocks;
  }
}

/** A tool ready to be registered on the server of a request, on behalf of its caller. */
export interface Tool {
  name: string;
  /** What `tools/list` shows of it. */
  listing: ToolListing;
  /** Its arguments as a call is validated: `listing.input`, closed (an unknown argument is refused, named). */
  takes: z.core.$ZodType;
  /** The scope it needs (lib/model/oauth.ts). */
  scope: Scope;
  adminOnly: boolean;
  /** What its result holds (never listed: `ToolSpec.output`); its words are the API's own (test/unit/stored-names.test.ts). */
  output: z.ZodRawShape;
  /** Runs it on behalf of the caller, with arguments already validated against `takes`. */
  call(caller: Principal, connection: Connection, args: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * Defines a tool whose body is a domain call on behalf of the caller. Schemas are built once per
 * container (module load), so a request only binds the caller: building them per request would
 * cost more than the request's DynamoDB calls.
 *
 * The result goes back twice, as MCP asks: as `structuredContent` and as JSON text for clients
 * that only read `content`. Domain errors become tool errors
 * (`isError: true`) carrying the very message the REST API would answer, because they go through
 * the same error mapper.
 *
 * Names (lib/mcp/resolve.ts): the names and "me" among the arguments become ids before `run`.
 *
 * Versions, as `If-Match` and the ETag carry them over HTTP (lib/db/core/versions.ts): a tool whose
 * result is one resource also answers its `version`, and every tool that changes or deletes one
 * takes an optional `expected_version`: the write then applies only at that version.
 */
export function defineTool<I extends z.core.$ZodObject, O extends z.ZodRawShape>(
  name: string,
  spec: ToolSpec<I, O>,
  run: (
    caller: Principal,
    args: Resolved<z.output<I>>,
  ) => Promise<z.output<z.ZodObject<O>> | WithContent<z.output<z.ZodObject<O>>>>,
): Tool {
  const conditional = spec.annotations === annotations.update || spec.annotations === annotations.delete;
  const keys = Object.keys(spec.output);
  const versioned = spec.versioned ?? (keys.length === 1 ? keys[0] : undefined);
  const input = conditional ? z.core.util.extend(spec.input, { expected_version: expectedVersion }) : spec.input;
  // Calls are validated closed, as REST bodies are (lib/schemas/common.ts): an unknown argument is a
  // tool error naming it and the argument it most likely meant, never ignored. The listing stays as
  // it was: `additionalProperties: false` on every tool would cost bytes in every conversation.
  const takes = closed(input, undefined, { root: name, noun: 'argument' });
  const scope = scopeNeeded(spec.annotations);
  return {
    name,
    listing: {
      name,
      description: spec.description,
      input,
      annotations: spec.annotations,
      unlisted: [
        ...(spec.unlisted ?? []),
        ...(conditional ? ['expected_version'] : []),
        ...(spec.input._zod.def.shape.limit === listInput.limit ? ['limit', 'cursor'] : []),
      ],
    },
    takes,
    scope,
    adminOnly: spec.adminOnly === true,
    output: spec.output,
    call: async (caller, connection, { expected_version, ...args }) => {
      const refused = outOfScope(connection, scope);
      if (refused) return refused;
      try {
        const expected = typeof expected_version === 'number' ? [expected_version] : undefined;
        const resolved = await nameResolver(caller)(args as z.output<I>);
        const answer = await expectingVersion(expected, () => run(caller, resolved));
        const [result, blocks] = answer instanceof WithContent ? [answer.result, answer.blocks] : [answer, []];
        const structured = result as Record<string, unknown>;
        const version = versioned === undefined ? undefined : answeredVersion(structured[versioned]);
        if (version !== undefined) structured.version = version;
        return { content: [...blocks, { type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
      } catch (err) {
        return toolError(err);
      }
    },
  };
}

/**
 * A tool that deletes one resource: `remove` deletes what the arguments name and answers its id,
 * and the tool answers `{ deleted: true, <idName>: that id }`.
 */
export function deleteTool<I extends z.core.$ZodObject>(
  name: string,
  idName: string,
  spec: { description: string; input: I; adminOnly?: boolean; unlisted?: readonly string[] },
  remove: (caller: Principal, args: Resolved<z.output<I>>) => Promise<number>,
): Tool {
  const output: z.ZodRawShape = { deleted: z.literal(true), [idName]: z.number().int() };
  return defineTool(name, { ...spec, output, annotations: annotations.delete }, async (caller, args) => ({
    deleted: true as const,
    [idName]: await remove(caller, args),
  }));
}

/** What it means is said once, in the server's instructions (lib/mcp/server.ts). */
const expectedVersion = z.number().int().min(0).optional();

/** A tool error with the REST API's message: `{error}` as is, a 422 `{errors}` list joined. */
export function toolError(err: unknown): CallToolResult {
  return { content: [{ type: 'text', text: errorText(err).text }], isError: true };
}

/** An error's REST status and the text a tool error carries (`toolError`; the batch tools' items). */
export function errorText(err: unknown): { status: number; text: string } {
  const response = errorResponse(err);
  const body = JSON.parse(response.body) as { error?: string; errors?: string[]; changed?: { field: string; value: unknown }[] };
  const text = body.errors ? `Validation failed: ${body.errors.join('; ')}` : (body.error ?? 'Internal server error');
  // A revert's 409 (docs/activity.md) names the fields changed since with their values now: the
  // agent needs those values to decide, as a REST client reads them from `changed`.
  const now = body.changed?.map((c) => `${c.field} is ${JSON.stringify(c.value)}`).join(', ');
  return { status: response.statusCode, text: now ? `${text}. Now: ${now}` : text };
}

/** A positive integer id argument; a description only where the name does not say it all. */
export const id = (description?: string) => {
  const schema = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
  return description === undefined ? schema : schema.describe(description);
};

/**
 * What the schemas are written in: zod's functional build, `zod/mini`, whose code a bundle carries
 * only where a schema uses it (zod's classic build puts every method of every schema, and its JSON
 * Schema conversion, into every bundle that validates anything: 92 KB of the issue create's bundle,
 * against 35 KB of this; tools/bench/README.md).
 * The rules, their messages and the JSON Schemas the OpenAPI document and the MCP tool list show are
 * zod's own either way; this module adds what the classic build gave for free.
 */
import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod's English messages for the rules that name none (the classic build configures them on load).
z.config(en());

/** A copy of `schema` carrying `metadata` (`id`, `description`, examples): classic zod's `.meta()`. */
export function meta<T extends z.ZodMiniType>(schema: T, metadata: z.core.GlobalMeta): T {
  const copy = schema.clone();
  z.globalRegistry.add(copy, metadata);
  return copy;
}

/** A copy of `schema` with `description`: classic zod's `.describe()`. */
export function describe<T extends z.ZodMiniType>(schema: T, description: string): T {
  return meta(schema, { description });
}

/**
 * What the `/mcp` bundle holds in place of the MCP SDK's dependencies this server never runs: esbuild
 * aliases scoped to that one function (infra/bundling.ts) put this module in place of `ajv`,
 * `ajv-formats`, `zod/v3` and `zod-to-json-schema`, about 200 KB of the bundle.
 *
 * - `ajv`, `ajv-formats`: the SDK builds its default JSON Schema validator only when the server is
 *   given none; `createMcpServer` (server.ts) always gives its own, and the server validates JSON
 *   Schemas only for elicitation answers, which it never asks for.
 * - `zod/v3`, `zod-to-json-schema`: the SDK takes zod 3 schemas too, and reaches these only for a
 *   schema without zod 4's `_zod` member; every schema here is zod 4 (lib/schemas, lib/mcp/tools),
 *   as are the SDK's own protocol schemas.
 *
 * Should a later SDK version reach one of them after all, the call fails loudly here instead of
 * doing something else; test/infra/mcp-bundle.test.ts runs the built bundle with the official MCP
 * client to see that it does not. Code run locally (tsx, tests) is not bundled and keeps the real
 * packages.
 */
function unused(): never {
  throw new Error('A dependency of the MCP SDK left out of the /mcp bundle was called (infra/shims/unused-sdk-dependencies.ts)');
}

/** `ajv`'s `Ajv` class and `ajv-formats`' `addFormats` (default exports). */
export default unused;
/** `zod/v3`: the SDK's `objectFromShape` calls it for a shape of zod 3 schemas only. */
export const object = unused;
/** `zod-to-json-schema`: the SDK converts zod 3 schemas with it. */
export const zodToJsonSchema = unused;

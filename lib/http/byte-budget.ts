/**
 * The response byte budget. A Lambda behind API Gateway may answer at most 6 MB (6,291,556 bytes)
 * and what counts is the whole proxy result Lambda serialises: `statusCode`, the headers and the
 * body, the body being a JSON string inside that JSON, so every `"` and `\` of it is escaped once
 * more (a control character JSON-escaped to `\u0001` in the body takes 7 bytes there). Past the
 * limit the invocation fails and API Gateway answers 502 for everyone reading that page.
 *
 * Lists therefore stop a page before the items would pass this budget, counted as the items take
 * in Lambda's result (not as the client receives them, which is smaller). The margin of 1 MiB
 * below 6 MiB covers the envelope and the headers (a `Link` carries up to three cursors of at
 * most 2 KB each) many times over. No response is ever base64-encoded (no binary media types, and
 * no function compresses), so no 4/3 inflation applies; API Gateway compresses on the wire after
 * Lambda has counted the text (lib/http/gateway-compression.ts), which changes nothing here.
 */
export const RESPONSE_BYTE_BUDGET = 5 * 1024 * 1024;

/** Lambda's limit on a synchronous invocation's response (6 MiB + 100 bytes, as Lambda counts it). */
export const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024 + 100;
/** Lambda's limit on a synchronous invocation's request: the whole proxy event, as JSON. */
export const LAMBDA_REQUEST_LIMIT = 6 * 1024 * 1024;

/** Bytes `json` takes once embedded as a JSON string in another JSON document (quotes left out). */
export function embeddedBytes(json: string): number {
  return Buffer.byteLength(JSON.stringify(json), 'utf8') - 2;
}

/** What one REST list item costs: its JSON in the body array, as Lambda's result carries it. */
export const restItemBytes = (item: unknown): number => embeddedBytes(JSON.stringify(item));

/**
 * What one MCP list item costs: a tool result carries it twice (MCP asks for both), as
 * `structuredContent` and inside the `text` content, a JSON string of the same object; the
 * JSON-RPC message is then itself the body string of Lambda's result, escaped once more.
 */
export function mcpItemBytes(item: unknown): number {
  const json = JSON.stringify(item);
  return embeddedBytes(json) + embeddedBytes(JSON.stringify(json));
}

/**
 * How many of `items`, taken in order, fit the budget when each costs `cost` (plus a separator).
 * At least one whenever there is one: no single resource comes near the budget (its fields are
 * bounded; see docs/limits.md), so a page always makes progress.
 */
export function itemsWithinBudget<T>(items: T[], cost: (item: T) => number, budget = RESPONSE_BYTE_BUDGET): number {
  let used = 2;
  for (let i = 0; i < items.length; i++) {
    used += cost(items[i] as T) + (i > 0 ? 1 : 0);
    if (used > budget && i > 0) return i;
  }
  return items.length;
}

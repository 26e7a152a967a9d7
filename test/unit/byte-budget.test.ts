import { describe, expect, it } from 'vitest';
import {
  LAMBDA_RESPONSE_LIMIT,
  RESPONSE_BYTE_BUDGET,
  embeddedBytes,
  itemsWithinBudget,
  mcpItemBytes,
  restItemBytes,
} from '../../lib/http/byte-budget.ts';
import { withinLambdaResponseLimit } from '../../tools/local/gateway.ts';
import { limits } from '../../lib/schemas/common.ts';

/** DynamoDB's item size limit (400 KB). */
const ITEM_LIMIT = 400 * 1024;

/** An issue with every text field at its limit, of a given character. */
function maximalIssue(char: string) {
  const fill = (n: number) => char.repeat(Math.floor(n / char.length));
  return {
    id: Number.MAX_SAFE_INTEGER,
    project_id: Number.MAX_SAFE_INTEGER,
    sprint_id: Number.MAX_SAFE_INTEGER,
    issue_number: 'ABCD-9007199254740991',
    title: fill(limits.name),
    description: fill(limits.description),
    status: 'in_progress',
    story_points: 1000,
    position: Number.MAX_SAFE_INTEGER,
    assignee_id: Number.MAX_SAFE_INTEGER,
    started_at: '2026-11-21T09:30:00.000Z',
    completed_at: '2026-11-21T09:30:00.000Z',
    created_at: '2026-11-21T09:30:00.000Z',
    updated_at: '2026-11-21T09:30:00.000Z',
  };
}

// The widest characters per unit of a limit counted in UTF-16 code units (zod's `max`):
// a control character (6 bytes JSON-escaped, 7 once embedded), a quote (2, then 4),
// a 3-byte BMP character, a 4-byte character (2 code units).
const widest = ['\u0001', '"', '\\', '€', '😀'];

describe('the response byte budget', () => {
  it('sits under Lambda’s 6 MB response limit with a margin for the envelope and headers', () => {
    expect(RESPONSE_BYTE_BUDGET).toBeLessThanOrEqual(LAMBDA_RESPONSE_LIMIT - 1024 * 1024);
  });

  it('counts what the body takes inside Lambda’s result: escaped once more', () => {
    // "\u0001" -> \"\\u0001\": 2 + 7 + 2 bytes
    expect(embeddedBytes(JSON.stringify('\u0001'))).toBe(11);
    expect(embeddedBytes(JSON.stringify('"'))).toBe(8);
    expect(embeddedBytes(JSON.stringify('€'))).toBe(7);
    expect(mcpItemBytes({ a: '"' })).toBe(embeddedBytes('{"a":"\\""}') + embeddedBytes(JSON.stringify('{"a":"\\""}')));
  });

  it('lets no single resource come near the budget, even sent twice by an MCP tool', () => {
    for (const char of widest) {
      const issue = maximalIssue(char);
      expect(restItemBytes(issue), JSON.stringify(char)).toBeLessThan(RESPONSE_BYTE_BUDGET / 4);
      expect(mcpItemBytes(issue), JSON.stringify(char)).toBeLessThan(RESPONSE_BYTE_BUDGET / 2);
    }
  });

  it('keeps the longest texts within DynamoDB’s 400 KB, counted for the item and its LSI1 entry (projection ALL)', () => {
    // Worst case: the text at its byte bound, the title of 4-byte characters, 4 KB for everything else.
    const item = limits.textBytes + limits.name * 4 + 4096;
    expect(2 * item).toBeLessThan(ITEM_LIMIT);
    // Characters alone would not do: 100,000 three-byte characters are 300 KB.
    expect(2 * Buffer.byteLength('€'.repeat(limits.description))).toBeGreaterThan(ITEM_LIMIT);
  });

  it('fits items in order up to the budget, and always at least one', () => {
    expect(itemsWithinBudget([4, 4, 4], (n) => n, 2 + 4 + 1 + 4)).toBe(2);
    expect(itemsWithinBudget([4, 4, 4], (n) => n, 100)).toBe(3);
    expect(itemsWithinBudget([50, 1], (n) => n, 10)).toBe(1);
    expect(itemsWithinBudget([], (n: number) => n, 10)).toBe(0);
  });
});

describe('the local gateway', () => {
  it('fails a response over Lambda’s 6 MB limit as Lambda does (502 {error}), and passes one under it', () => {
    const body = (n: number) => JSON.stringify({ data: 'x'.repeat(n) });
    const under = { statusCode: 200, headers: {}, body: body(LAMBDA_RESPONSE_LIMIT - 1000) };
    const over = { statusCode: 200, headers: {}, body: body(LAMBDA_RESPONSE_LIMIT) };

    expect(withinLambdaResponseLimit(under)).toBe(under);
    const failed = withinLambdaResponseLimit(over);
    expect(failed.statusCode).toBe(502);
    expect(JSON.parse(failed.body)).toEqual({ error: expect.any(String) });
  });
});

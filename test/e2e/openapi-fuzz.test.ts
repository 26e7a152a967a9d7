import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeReport, runFuzz, startReceiver } from '../../tools/bench/fuzz.ts';
import { newOrganisation, useGateway } from '../support/api.ts';

/**
 * A property-based run over the OpenAPI document against the local gateway: requests generated
 * from the document's own schemas for every operation (tools/bench/fuzz.ts, fast-check), each
 * answer held against the document. A fixed seed and a count that stays well under 30 s on a
 * loaded two-core machine; `npm run bench:fuzz` runs thousands (tools/bench/README.md).
 */
const SEED = 20261126;
const RUNS = 200;

const gateway = useGateway();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describe('the OpenAPI document, fuzzed', () => {
  it(`answers ${RUNS} requests generated from its schemas with no 5xx and nothing it does not declare`, async () => {
    const org = await newOrganisation();
    const report = await runFuzz({
      baseUrl: gateway.baseUrl,
      token: org.admin.token,
      runs: RUNS,
      seed: SEED,
      receiverUrl: receiver.url,
    });
    console.log(describeReport(report, SEED));
    expect(report.cases).toBe(RUNS);
    expect(report.failures.map((f) => `${f.what} (×${f.count}): ${f.example.method} ${f.example.path}`)).toEqual([]);
    // The run reached past the token check and the validation of most operations.
    const passed = Object.entries(report.statuses)
      .filter(([s]) => Number(s) < 300)
      .reduce((n, [, c]) => n + c, 0);
    expect(passed).toBeGreaterThan(RUNS / 10);
  }, 120_000);
});

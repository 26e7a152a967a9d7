/**
 * `npm run bench:fuzz`: a property-based run over the OpenAPI document. Every operation of the
 * document served at `/api-docs/v1/swagger.json` gets requests generated from its own schemas
 * (path and query parameters, headers, bodies, with fast-check); each answer must be one the
 * document declares for it (its status, headers and body: test/support/contract.ts) and never a
 * 5xx. Prints the case count, the time, the statuses seen and every departure found.
 *
 * `npm run bench:fuzz -- [--runs 5000] [--seed 42] [--url http://localhost:3000 --token stk_...]`:
 * against a running `npm start` (an admin's token), or, without `--url`, against a gateway of its
 * own on an in-memory DynamoDB Local. The suite runs it too, smaller and on a fixed seed
 * (test/e2e/openapi-fuzz.test.ts). Requests go to the service only; webhooks are pointed at a
 * receiver of this process on 127.0.0.1.
 */
import fc from 'fast-check';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { contractFor } from '../../test/support/contract.ts';
import type { OpenApiDocument } from '../openapi/document.ts';

type Schema = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}

interface Operation {
  id: string;
  method: string;
  template: string;
  parameters: Parameter[];
  bodies: { mediaType: string; schema: Schema; required: boolean }[];
  secured: boolean;
}

/** One generated request. */
export interface FuzzRequest {
  operation: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface FuzzReport {
  cases: number;
  ms: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  /** Each distinct departure (an operation, a status, what was wrong), with how often and one request that met it. */
  failures: { what: string; count: number; example: FuzzRequest }[];
  /** The 400 and 422 answers' messages, by operation (what a request its schemas allow was refused for). */
  refusals: Record<string, number>;
}

export interface FuzzOptions {
  baseUrl: string;
  /** An admin's API token of an organisation the run may change as it likes. */
  token: string;
  runs: number;
  seed: number;
  /** Where webhooks the run creates send their deliveries (a receiver on 127.0.0.1). */
  receiverUrl: string;
}

/** The operations of the document, each with its parameters and request bodies. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries(item as Record<string, Schema>)) {
      const op = raw as {
        operationId: string;
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
        security?: unknown[];
      };
      ops.push({
        id: op.operationId,
        method: method.toUpperCase(),
        template,
        parameters: op.parameters ?? [],
        bodies: Object.entries(op.requestBody?.content ?? {}).map(([mediaType, m]) => ({
          mediaType,
          schema: m.schema,
          required: op.requestBody?.required === true,
        })),
        secured: (op.security ?? []).length > 0,
      });
    }
  }
  return ops;
}

/** Strings as a JSON Schema's `pattern` states them: generated from it, or drawn and kept when they match. */
function patterned(pattern: string, min: number, max: number, example: unknown): fc.Arbitrary<string> {
  const regex = new RegExp(pattern, 'u');
  const fits = (s: string) => s.length >= min && s.length <= max && regex.test(s);
  try {
    return fc.stringMatching(new RegExp(pattern)).filter(fits);
  } catch {
    // Lookaheads fast-check cannot generate from: draw strings and keep those that match.
    if (typeof example === 'string') return fc.constant(example);
    return fc.string({ minLength: Math.max(min, 1), maxLength: Math.min(max, 40) }).filter(fits);
  }
}

/** How deep in a schema values are drawn. */
const MAX_DEPTH = 12;

/** Values a schema takes (a subset: what requests of this document need). */
export function arbitraryOf(schema: Schema | undefined, doc: OpenApiDocument, depth = 0, longest = 2000): fc.Arbitrary<unknown> {
  if (!schema) return fc.constant(undefined);
  // A schema that contains itself (a selection's groups of conditions) ends here: the arbitrary is
  // built eagerly, and a request this deep is refused by the service's own bounds anyway.
  if (depth > MAX_DEPTH) return fc.constant(null);
  if (typeof schema.$ref === 'string') {
    const target = (doc.components?.schemas as Record<string, Schema>)[schema.$ref.replace('#/components/schemas/', '')];
    return arbitraryOf(target, doc, depth + 1, longest);
  }
  const nullable = (arb: fc.Arbitrary<unknown>) => (schema.nullable === true ? fc.option(arb, { nil: null, freq: 6 }) : arb);
  if (Array.isArray(schema.enum)) return nullable(fc.constantFrom(...(schema.enum as unknown[])));
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]))
      return nullable(fc.oneof(...(schema[key] as Schema[]).map((s) => arbitraryOf(s, doc, depth + 1))));
  }
  if (Array.isArray(schema.allOf)) return arbitraryOf(Object.assign({}, ...(schema.allOf as Schema[])), doc, depth + 1);
  const min = (key: string, fallback: number) => (typeof schema[key] === 'number' ? (schema[key] as number) : fallback);
  switch (schema.type) {
    case 'string': {
      const [lo, hi] = [min('minLength', 0), min('maxLength', 10_000)];
      if (schema.format === 'date')
        return nullable(
          fc
            .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
            .map((d) => d.toISOString().slice(0, 10)),
        );
      if (schema.format === 'date-time')
        return nullable(
          fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }).map((d) => d.toISOString()),
        );
      if (typeof schema.pattern === 'string') return nullable(patterned(schema.pattern, lo, hi, schema.example));
      if (schema.format === 'uuid') return nullable(fc.uuid());
      return nullable(
        fc.oneof(
          { weight: 9, arbitrary: fc.string({ minLength: lo, maxLength: Math.max(lo, Math.min(hi, 30)) }) },
          // Now and then as long as the schema allows, to meet the limits.
          { weight: 1, arbitrary: fc.string({ minLength: Math.min(hi, longest), maxLength: Math.min(hi, longest) }) },
        ),
      );
    }
    case 'integer': {
      const [lo, hi] = [min('minimum', -1000), min('maximum', 1_000_000)];
      // Small ids name what the run created; the rest, anything the schema allows.
      return nullable(
        fc.oneof(
          fc.integer({ min: Math.max(lo, Math.min(hi, 1)), max: Math.min(hi, Math.max(lo, 4)) }),
          fc.integer({ min: lo, max: hi }),
        ),
      );
    }
    case 'number':
      return nullable(fc.double({ min: min('minimum', -1e6), max: min('maximum', 1e6), noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return nullable(fc.boolean());
    case 'array': {
      const items = arbitraryOf(schema.items as Schema, doc, depth + 1);
      const lo = min('minItems', 0);
      return nullable(
        fc.array(items, { minLength: lo, maxLength: Math.max(lo, Math.min(min('maxItems', 3), depth > 2 ? 1 : 3)) }),
      );
    }
    case 'object':
    default: {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0) {
        return nullable(
          depth > 3 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
        );
      }
      const required = new Set((schema.required as string[] | undefined) ?? []);
      const record = Object.fromEntries(
        Object.entries(properties).map(([name, s]) => [name, arbitraryOf(s, doc, depth + 1)]),
      ) as Record<string, fc.Arbitrary<unknown>>;
      return nullable(fc.record(record, { requiredKeys: [...required].filter((k) => k in properties) as never[] }));
    }
  }
}

/** A header value a client can send: visible ASCII and spaces only. */
const headerSafe = (value: unknown) =>
  String(value)
    .replace(/[^\x20-\x7e]/g, '')
    .trim();

/** Requests for `op`, from its schemas. */
/** Where a request carries the run's token: filled in when it is sent (the run changes tokens as their buckets empty). */
const TOKEN = 'Bearer <token>';

function requestOf(op: Operation, doc: OpenApiDocument, context: { receiverUrl: string }): fc.Arbitrary<FuzzRequest> {
  const params = Object.fromEntries(
    op.parameters.map((p) => {
      // Parameters stay short enough that the request line and headers fit API Gateway's 10 KB.
      const value = arbitraryOf(p.schema, doc, 0, 400);
      return [`${p.in}:${p.name}`, p.required || p.in === 'path' ? value : fc.option(value, { nil: undefined, freq: 2 })];
    }),
  );
  const body = op.bodies.length
    ? fc.constantFrom(...op.bodies).chain((b) => arbitraryOf(b.schema, doc).map((value) => ({ mediaType: b.mediaType, value })))
    : fc.constant(undefined);
  return fc.record({ params: fc.record(params), body }).map(({ params: values, body: sent }) => {
    let path = op.template;
    const query = new URLSearchParams();
    const headers: Record<string, string> = { Accept: 'application/json' };
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined || value === null) continue;
      const [where, name] = key.split(':') as [string, string];
      if (where === 'path') path = path.replace(`{${name}}`, encodeURIComponent(String(value)));
      else if (where === 'query') query.set(name, String(value));
      else if (headerSafe(value) !== '') headers[name] = headerSafe(value);
    }
    if (op.secured) headers.Authorization = TOKEN;
    let text: string | undefined;
    if (sent) {
      let value = sent.value;
      // Webhooks deliver to what they name: only ever to this run's receiver.
      const webhook = (value as { webhook?: { url?: unknown } } | undefined)?.webhook;
      if (webhook && typeof webhook === 'object' && 'url' in webhook)
        value = { webhook: { ...webhook, url: context.receiverUrl } };
      headers['Content-Type'] = sent.mediaType;
      if (sent.mediaType === 'application/x-www-form-urlencoded') {
        const form = new URLSearchParams();
        for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>))
          if (v !== undefined && v !== null) form.append(k, String(v));
        text = form.toString();
      } else if (sent.mediaType.endsWith('json')) text = JSON.stringify(value ?? null);
      else text = typeof value === 'string' ? value : JSON.stringify(value);
    }
    const search = query.toString();
    return {
      operation: op.id,
      method: op.method,
      path: search ? `${path}?${search}` : path,
      headers,
      ...(text === undefined ? {} : { body: text }),
    };
  });
}

/** Every generated request of a run, in order: the same for the same seed and document. */
export function generateRequests(
  doc: OpenApiDocument,
  options: Pick<FuzzOptions, 'runs' | 'seed' | 'receiverUrl'>,
): FuzzRequest[] {
  const ops = operationsOf(doc);
  const arb = fc.constantFrom(...ops).chain((op) => requestOf(op, doc, options));
  return fc.sample(arb, { seed: options.seed, numRuns: options.runs });
}

/** What the run works on: a project with a sprint, issues, a comment, a label and a webhook, as ids 1, 2... of a fresh organisation. */
async function seedFixtures(baseUrl: string, token: string, receiverUrl: string) {
  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetchOnce(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number };
  };
  const prefix = `F${Math.random().toString(36).slice(2, 5).toUpperCase()}`.replace(/[^A-Z0-9]/g, 'X');
  const project = await send('POST', '/api/v1/projects', { project: { name: 'Fuzzed', prefix } });
  const p = `/api/v1/projects/${project.id}`;
  const sprint = await send('POST', `${p}/sprints`, { sprint: { name: 'Fuzzed sprint' } });
  const issue = await send('POST', `${p}/sprints/${sprint.id}/issues`, { issue: { title: 'In a sprint' } });
  await send('POST', `${p}/issues`, { issue: { title: 'In the backlog' } });
  await send('POST', `${p}/sprints/${sprint.id}/issues/${issue.id}/comments`, { comment: { body: 'Hello' } });
  await send('POST', `${p}/labels`, { label: { name: 'bug', color: '#d73a4a' } });
  await send('POST', '/api/v1/webhooks', { webhook: { url: receiverUrl, events: ['*'] } });
}

/** The token of a new admin of the run's organisation (undefined if the run's own admin is gone). */
async function newAdmin(baseUrl: string, token: string, n: number): Promise<string | undefined> {
  const res = await fetchOnce(`${baseUrl}/api/v1/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ account: { name: `Fuzzer ${n}`, email: `fuzzer-${n}-${Date.now()}@fuzz.test`, role: 'admin' } }),
  });
  return res.status === 201 ? ((await res.json()) as { token: string }).token : undefined;
}

/**
 * `fetch`, sent again once when the connection was reset before any answer came (a pooled
 * keep-alive socket the server closed as the request went out): nothing reached a handler then.
 */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

/** Sends one request and says how its answer departs from the document, if it does. */
async function check(baseUrl: string, contract: ReturnType<typeof contractFor>, request: FuzzRequest, token: string) {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([name, value]) => [name, value === TOKEN ? `Bearer ${token}` : value]),
  );
  const res = await fetchOnce(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    redirect: 'manual',
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const text = await res.text();
  const problems = contract.problems(request.method, request.path, { status: res.status, headers: res.headers, text });
  if (res.status >= 500) problems.unshift(`${request.operation} answered ${res.status}: ${text.slice(0, 200)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, problems, body };
}

/** The run: fixtures, then every generated request in turn. */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const doc = (await (await fetchOnce(`${options.baseUrl}/api-docs/v1/swagger.json`, {})).json()) as OpenApiDocument;
  // Loaded here, not with this module: it loads the gateway's modules, which read the log level as they load.
  const { contractFor } = await import('../../test/support/contract.ts');
  const contract = contractFor(doc);
  await seedFixtures(options.baseUrl, options.token, options.receiverUrl);
  const requests = generateRequests(doc, options);
  const statuses: Record<string, number> = {};
  const refusals: Record<string, number> = {};
  const failures = new Map<string, { what: string; count: number; example: FuzzRequest }>();
  // Admins to switch to: the run regenerates and revokes tokens as it goes, and one token's bucket
  // holds 600 requests (lib/model/ratelimit.ts).
  const spare: string[] = [];
  for (let n = 0; n < 3; n++) spare.push((await newAdmin(options.baseUrl, options.token, n)) ?? options.token);
  let token = options.token;
  const started = performance.now();
  for (const [i, request] of requests.entries()) {
    if (i > 0 && i % 400 === 0) token = (await newAdmin(options.baseUrl, token, i)) ?? token;
    const answer = await check(options.baseUrl, contract, request, token).catch((err: Error) => ({
      status: 0,
      problems: [`${request.operation}: no answer (${(err as { cause?: Error }).cause?.message ?? err.message})`],
      body: undefined,
    }));
    const { status, problems, body } = answer;
    if (status === 400 || status === 422) {
      const said = body as { error?: string; errors?: string[]; error_description?: string } | undefined;
      for (const message of said?.errors ?? [said?.error_description ?? said?.error ?? '']) {
        const key = `${request.operation} ${status}: ${message.replace(/\d+/g, 'N').slice(0, 160)}`;
        refusals[key] = (refusals[key] ?? 0) + 1;
      }
    }
    if (request.operation === 'regenerateToken' && status === 200) token = (body as { token?: string }).token ?? token;
    else if (status === 401 && request.headers.Authorization === TOKEN && spare.length > 0) {
      token = spare.shift()!;
      spare.push((await newAdmin(options.baseUrl, token, i)) ?? token);
    }
    statuses[status] = (statuses[status] ?? 0) + 1;
    for (const what of problems) {
      const seen = failures.get(what) ?? { what, count: 0, example: request };
      seen.count++;
      failures.set(what, seen);
    }
  }
  return { cases: requests.length, ms: performance.now() - started, statuses, failures: [...failures.values()], refusals };
}

/** A receiver on 127.0.0.1 that takes every delivery (204). */
export async function startReceiver(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The report as lines: the count and time, the statuses, each departure with one request that met it. */
export function describeReport(report: FuzzReport, seed: number): string {
  const lines = [
    `${report.cases} cases in ${(report.ms / 1000).toFixed(1)} s (seed ${seed}); statuses: ${Object.entries(report.statuses)
      .map(([status, n]) => `${status} ×${n}`)
      .join(', ')}`,
  ];
  if (report.failures.length === 0) lines.push('no 5xx, no answer outside the document');
  for (const f of report.failures) {
    lines.push(
      `✗ ${f.what} (×${f.count})`,
      `    ${f.example.method} ${f.example.path}${f.example.body ? ` ${f.example.body.slice(0, 300)}` : ''}`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string' },
      seed: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
      refusals: { type: 'boolean' },
    },
  });
  const runs = Number(values.runs ?? 5000);
  const seed = Number(values.seed ?? Date.now() % 100_000);
  const receiver = await startReceiver();
  let baseUrl = values.url;
  let token = values.token ?? process.env.API_TOKEN;
  let stop = async () => {};
  if (!baseUrl) {
    const { startDynamoDbLocal } = await import('../local/dynamodb.ts');
    const { ensureTable } = await import('../local/table.ts');
    const dynamo = await startDynamoDbLocal();
    const tableName = 'sprint-ticketing-fuzz';
    await ensureTable(dynamo.endpoint, tableName);
    // The service's configuration, read on its first use: set before anything runs.
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME: tableName,
      AWS_REGION: process.env.AWS_REGION ?? 'local',
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
      WEBHOOK_ALLOW_LOOPBACK: '1',
      WEBHOOK_SECRET_LOCAL_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    const { createGateway } = await import('../local/gateway.ts');
    const { routes } = await import('../../lib/routes.ts');
    const { startLocalServices } = await import('../local/services.ts');
    const services = await startLocalServices(dynamo.endpoint);
    const server = createGateway({ routes });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    process.env.PUBLIC_URL = baseUrl;
    const { createOrganisation } = await import('../../lib/services/accounts.ts');
    token = (await createOrganisation('Fuzzed', { name: 'Ada', email: 'ada@fuzz.test' })).token;
    stop = async () => {
      server.closeAllConnections();
      server.close();
      await services.stop();
      await dynamo.stop();
    };
  }
  if (!token) throw new Error('--token (an admin API token) is needed with --url');
  try {
    const report = await runFuzz({ baseUrl, token, runs, seed, receiverUrl: receiver.url });
    console.log(describeReport(report, seed));
    if (values.refusals) {
      console.log('\nRefusals (400, 422) of generated requests, by operation and message:');
      for (const [what, n] of Object.entries(report.refusals).sort()) console.log(`  ${what} (×${n})`);
    }
    process.exitCode = report.failures.length ? 1 : 0;
  } finally {
    await receiver.close();
    await stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

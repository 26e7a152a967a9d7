/**
 * `npm run bench:cold`: the cold request. Module init is not the whole cost of a cold start: what a
 * bundle defers to its first request (schemas built on first use, the MCP server loaded with
 * `import()`) moves cost rather than removing it. So this times, against DynamoDB Local, what a
 * request costs when both of its functions are cold: the authorizer's bundle loaded in a fresh
 * process and invoked once, then the route's bundle loaded in another fresh process and invoked
 * once with the authorizer's context, as API Gateway would. A second invocation in the same
 * process gives the warm request beside it. Bundles are built as `npm run bench` builds them
 * (tools/bench/bundles.ts) and run alone, each in an empty folder; the figures are CPU time (the
 * least over the rounds, as `npm run bench` budgets init) and wall time (the median).
 *
 *   npm run bench:cold [-- --rounds 7]
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { runtimeEnvironment } from '../../infra/bundling.ts';
import { repoRoot } from '../../infra/paths.ts';
import { type Bundle, buildBundle, lambdaRuntimePreloads, median, run } from './bundles.ts';

// Runs in the fresh process: init, the first invocation, a second one; CPU and wall time of each.
const PROBE = `
for (const name of JSON.parse(process.argv[2])) await import(name);
// A fresh copy per invocation: middy's body parser replaces the event's body with the parsed one.
const event = () => JSON.parse(process.argv[3]);
const context = {
  callbackWaitsForEmptyEventLoop: false, functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:bench', memoryLimitInMB: '1024',
  awsRequestId: 'bench', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => 29000,
};
const timed = async (f) => {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const c = process.cpuUsage(c0);
  return { value, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 };
};
const init = await timed(() => import(process.argv[1]));
const first = await timed(() => init.value.handler(event(), { ...context, awsRequestId: 'first' }));
const second = await timed(() => init.value.handler(event(), { ...context, awsRequestId: 'second' }));
const phase = ({ ms, cpuMs }) => ({ ms, cpuMs });
process.stdout.write(JSON.stringify({ init: phase(init), first: phase(first), second: phase(second), result: first.value, again: second.value }));
process.exit(0);
`;

interface Phase {
  ms: number;
  cpuMs: number;
}
interface ProbeResult {
  init: Phase;
  first: Phase;
  second: Phase;
  result: unknown;
  again: unknown;
}

/** Loads a bundle alone in a fresh process against the table at `endpoint` and invokes it twice. */
async function invokeCold(bundle: Bundle, event: unknown, table: { endpoint: string; name: string }): Promise<ProbeResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bundle-cold-'));
  try {
    const file = join(dir, 'index.mjs');
    // The bundle's folder: `index.mjs`, its map, and a split bundle's chunks (/mcp's).
    await cp(dirname(bundle.file), dir, { recursive: true });
    const env = {
      ...runtimeEnvironment,
      PATH: process.env.PATH ?? '',
      AWS_REGION: 'local',
      TABLE_NAME: table.name,
      DYNAMODB_ENDPOINT: table.endpoint,
      // Logs and metrics lines would only add output to parse; their setup still runs at init.
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      POWERTOOLS_METRICS_DISABLED: 'true',
    };
    const args = [
      '--input-type=module',
      '-e',
      PROBE,
      pathToFileURL(file).href,
      JSON.stringify(lambdaRuntimePreloads),
      JSON.stringify(event),
    ];
    const { code, stdout, stderr } = await run(process.execPath, args, { cwd: dir, env });
    if (code !== 0) throw new Error(`${bundle.name} failed (exit ${code}): ${stderr.split('\n').slice(-8).join('\n')}`);
    return JSON.parse(stdout) as ProbeResult;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** What this bench changes in a sample event. */
interface SampleEvent {
  path: string;
  headers: Record<string, string>;
  multiValueHeaders: Record<string, string[]>;
  pathParameters: Record<string, string> | null;
  requestContext: { authorizer: unknown };
}

/** A sample event of `events/` (npm run events) with this run's token. */
async function sampleEvent(operationId: string, token: string, changes: (e: SampleEvent) => void): Promise<SampleEvent> {
  const event = JSON.parse(await readFile(join(repoRoot, 'events', `${operationId}.json`), 'utf8')) as SampleEvent;
  event.headers.Authorization = `Bearer ${token}`;
  event.multiValueHeaders.Authorization = [`Bearer ${token}`];
  changes(event);
  return event;
}

async function main() {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' } } });
  const rounds = Math.max(1, Number(values.rounds));
  const { startDynamoDbLocal } = await import('../local/dynamodb.ts');
  const { ensureTable } = await import('../local/table.ts');
  const dynamo = await startDynamoDbLocal();
  const table = { endpoint: dynamo.endpoint, name: 'sprint-ticketing-cold' };
  await ensureTable(table.endpoint, table.name);
  process.env.DYNAMODB_ENDPOINT = table.endpoint;
  process.env.TABLE_NAME = table.name;
  process.env.AWS_REGION ??= 'local';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  try {
    const { createOrganisation } = await import('../../lib/services/accounts.ts');
    const { createProject } = await import('../../lib/services/projects.ts');
    const org = await createOrganisation('Cold', { name: 'Ada Admin', email: 'cold@example.com' });
    const caller = { orgId: org.organisation.id, accountId: org.account.id, role: 'admin' as const, tokenHash: '' };
    const project = await createProject(caller as never, { name: 'Cold', prefix: 'COLD' } as never);
    const out = join(repoRoot, '.tmp', 'cold');
    await rm(out, { recursive: true, force: true });
    const authorizer = await buildBundle('functions/authorizer.ts', out);
    const targets = [
      { entry: 'functions/projects/read.ts', op: 'getProject', label: 'GET a project' },
      { entry: 'functions/backlog/create.ts', op: 'createBacklogIssue', label: 'POST a backlog issue' },
      { entry: 'functions/mcp.ts', op: 'mcp', label: 'MCP tools/list' },
    ];
    const bundles = await Promise.all(targets.map((t) => buildBundle(t.entry, out)));
    const samples = new Map<string, { auth: ProbeResult[]; handler: ProbeResult[] }>(
      targets.map((t) => [t.op, { auth: [], handler: [] }]),
    );
    for (let round = 0; round < rounds; round++) {
      for (const [i, t] of targets.entries()) {
        const event = await sampleEvent(t.op, org.token, (e) => {
          if (e.pathParameters?.project_id) {
            e.pathParameters.project_id = String(project.id);
            e.path = e.path.replace(/projects\/\d+/, `projects/${project.id}`);
          }
        });
        const auth = await invokeCold(
          authorizer,
          { ...event, type: 'REQUEST', methodArn: 'arn:aws:execute-api:local:000000000000:local/local/GET/x' },
          table,
        );
        const policy = auth.result as { principalId: string; context: Record<string, unknown> };
        if (!policy.context) throw new Error(`the authorizer refused: ${JSON.stringify(auth.result)}`);
        event.requestContext.authorizer = { ...policy.context, principalId: policy.principalId };
        const handler = await invokeCold(bundles[i]!, event, table);
        for (const answer of [handler.result, handler.again]) {
          const status = (answer as { statusCode: number }).statusCode;
          if (status >= 300) throw new Error(`${t.label} answered ${status}: ${JSON.stringify(answer).slice(0, 300)}`);
        }
        samples.get(t.op)!.auth.push(auth);
        samples.get(t.op)!.handler.push(handler);
      }
    }
    const least = (xs: Phase[]) => Math.min(...xs.map((x) => x.cpuMs));
    const wall = (xs: Phase[]) => median(xs.map((x) => x.ms));
    const f = (v: number) => v.toFixed(1);
    const lines = [
      `Node ${process.version}, DynamoDB Local, ${rounds} rounds: CPU ms (least) / wall ms (median).`,
      '',
      '| Request | Authorizer init | Authorizer 1st call | Handler init | Handler 1st call | Cold request | Handler 2nd call (warm) | Cold / warm handler call |',
      '| --- | --: | --: | --: | --: | --: | --: | --: |',
    ];
    for (const t of targets) {
      const s = samples.get(t.op)!;
      const ai = s.auth.map((x) => x.init);
      const af = s.auth.map((x) => x.first);
      const hi = s.handler.map((x) => x.init);
      const hf = s.handler.map((x) => x.first);
      const hs = s.handler.map((x) => x.second);
      const coldCpu = Math.min(
        ...s.auth.map((a, k) => a.init.cpuMs + a.first.cpuMs + s.handler[k]!.init.cpuMs + s.handler[k]!.first.cpuMs),
      );
      const coldWall = median(s.auth.map((a, k) => a.init.ms + a.first.ms + s.handler[k]!.init.ms + s.handler[k]!.first.ms));
      lines.push(
        `| ${t.label} | ${f(least(ai))} / ${f(wall(ai))} | ${f(least(af))} / ${f(wall(af))} | ${f(least(hi))} / ${f(wall(hi))} | ${f(least(hf))} / ${f(wall(hf))} | ${f(coldCpu)} / ${f(coldWall)} | ${f(least(hs))} / ${f(wall(hs))} | ${(least(hf) / least(hs)).toFixed(1)}× |`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await dynamo.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

/**
 * `npm run bench:scale`: does a request cost more on a big project than on a small one? Starts its
 * own in-memory DynamoDB Local, the local gateway (authorizer and handlers, as `npm start` runs them)
 * and the cascade consumer on the table's stream, seeds big collections directly in the table
 * (test/support/seed.ts: the data layer's item shapes, BatchWriteItem; seeding is not measured),
 * then times HTTP requests, interleaving the two sides of each comparison round after round so
 * that a busy machine slows both alike, and prints the medians and their ratio, measured in one
 * run, as the Markdown table of tools/bench/README.md.
 *
 *   npm run bench:scale [-- --reps 15 --issues 10000 --sprint 1000]
 *
 * The comparisons: a read on a project of 10,000 issues vs the same read on a project of 10;
 * creating an issue in a sprint of 1,000 vs in an empty one; a move to the top vs to the bottom of
 * a 10,000-issue backlog; completing a sprint of 1,000 open issues vs one of 10; a project of
 * 10,000 issues and 10,000 comments vs 10 and 10 deleted into the trash (until its issues are out of
 * every index), restored (until it is back whole) and purged (until its partition is empty).
 */
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

export interface ScaleSizes {
  /** Issues (each with one comment) of the big project, all in its backlog. */
  bigIssues: number;
  /** Issues (each with one comment) of the small project. */
  smallIssues: number;
  /** Open issues of the big sprint (issue creation, completion). */
  sprintIssues: number;
  /** Open issues of the small sprint a completion is compared with. */
  smallSprintIssues: number;
  /** Timed requests per side of a comparison (completions: `completions`). */
  reps: number;
  /** Completions timed per side (each needs a freshly seeded sprint). */
  completions: number;
}

export const fullSizes: ScaleSizes = {
  bigIssues: 10_000,
  smallIssues: 10,
  sprintIssues: 1_000,
  smallSprintIssues: 10,
  reps: 25,
  completions: 3,
};

/** One side of a comparison: its label, median ms, and median and most DynamoDB calls. */
interface Side {
  label: string;
  ms: number;
  calls: number;
  maxCalls: number;
}

export interface Comparison {
  what: string;
  /** The reference side. */
  a: Side;
  /** The side compared with it. */
  b: Side;
}

const median = (values: number[]) => {
  const s = [...values].sort((x, y) => x - y);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

interface Timed {
  ms: number;
  calls: number;
}

/** A small HTTP client for the gateway: each call is timed and checked, its DynamoDB calls read. */
function client(baseUrl: string, token: string) {
  return async function send(method: string, path: string, body?: unknown): Promise<Timed & { body: { id: number } }> {
    const started = performance.now();
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return { ms, calls: Number(res.headers.get('x-db-calls') ?? -1), body: text ? JSON.parse(text) : undefined };
  };
}
type Send = ReturnType<typeof client>;

/** Runs the two sides of a comparison `reps` times each, alternating; medians of each side. */
async function compare(
  what: string,
  reps: number,
  a: { label: string; run: () => Promise<Timed> },
  b: { label: string; run: () => Promise<Timed> },
): Promise<Comparison> {
  await a.run();
  await b.run(); // one warm-up each: the first request of a route loads its handler module
  const as: Timed[] = [];
  const bs: Timed[] = [];
  for (let i = 0; i < reps; i++) {
    as.push(await a.run());
    bs.push(await b.run());
  }
  const side = (label: string, t: Timed[]): Side => ({
    label,
    ms: median(t.map((x) => x.ms)),
    calls: median(t.map((x) => x.calls)),
    maxCalls: Math.max(...t.map((x) => x.calls)),
  });
  return { what, a: side(a.label, as), b: side(b.label, bs) };
}

/**
 * Seeds `n` open issues (todo, 3 points) into an existing sprint and moves its counters to match,
 * as `n` creates would have.
 */
async function seedSprintIssues(orgId: number, projectId: number, sprintId: number, n: number): Promise<void> {
  if (n === 0) return;
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db, tableName } = await import('../../lib/db/core/client.ts');
  const { keys } = await import('../../lib/db/core/keys.ts');
  const { issueItem, putAll, takeIds } = await import('../../test/support/seed.ts');
  const { rankDelta } = await import('../../lib/model/positions.ts');
  const ids = await takeIds(orgId, 'issue', n);
  const positions = ids.map((_, i) => (i + 1) * 1024);
  await putAll(ids.map((id, i) => issueItem(orgId, projectId, sprintId, id, positions[i]!)));
  // The counters, then the list's rank index (lib/model/positions.ts), 100 a time (4 KB expressions).
  const counters: [string, number][] = [
    ['issues_count', n],
    ['open_issues_count', n],
    ['total_story_points', 3 * n],
    ['open_story_points', 3 * n],
    ...Object.entries(rankDelta(positions.map((to) => ({ to })))),
  ];
  for (let i = 0; i < counters.length; i += 100) {
    const chunk = counters.slice(i, i + 100);
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.sprint(orgId, projectId, sprintId),
        UpdateExpression: `ADD ${chunk.map(([name]) => `${name} :${name}`).join(', ')}`,
        ExpressionAttributeValues: Object.fromEntries(chunk.map(([name, by]) => [`:${name}`, by])),
      }),
    );
  }
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.project(orgId, projectId),
      UpdateExpression: 'ADD issue_seq :n',
      ExpressionAttributeValues: { ':n': n },
    }),
  );
}

/** Milliseconds until the project's partition holds nothing but activity (the change feed's). */
async function untilEmpty(orgId: number, projectId: number, timeoutMs: number): Promise<number> {
  const { itemsIn } = await import('../../test/support/cascade.ts');
  const { projectPk } = await import('../../lib/db/core/keys.ts');
  const started = performance.now();
  while ((await itemsIn({ pk: projectPk(orgId, projectId) }, 5)).length > 0) {
    if (performance.now() - started > timeoutMs) throw new Error(`project ${projectId} not emptied within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return performance.now() - started;
}

let tag = 0;
const unique = () => `${Date.now().toString(36)}${(tag++).toString(36)}`;
const prefix = () => Array.from({ length: 4 }, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'[Math.floor(Math.random() * 26)]).join('');

/**
 * Runs every comparison against the gateway at `baseUrl`, whose table the data layer of this
 * process also reaches (seeding), with the cascade consumer running on the table's stream.
 */
export async function runScaleBench(
  baseUrl: string,
  sizes: ScaleSizes,
  log: (line: string) => void = () => {},
): Promise<Comparison[]> {
  const { createOrganisation, createAccountInOrg } = await import('../../lib/services/accounts.ts');
  const { seedProject } = await import('../../test/support/seed.ts');
  const org = await createOrganisation(`Scale ${unique()}`, { name: 'Ada Admin', email: `scale-${unique()}@example.com` });
  const orgId = org.organisation.id;
  // A token per comparison: each stays well inside the per-token rate limit.
  const admin = async (): Promise<Send> => {
    const { token } = await createAccountInOrg(orgId, { name: 'Bench', email: `bench-${unique()}@example.com`, role: 'admin' });
    return client(baseUrl, token);
  };
  const setup = await admin();
  const project = async (issues: number) => {
    const p = (await setup('POST', '/api/v1/projects', { project: { name: `${issues} issues`, prefix: prefix() } })).body;
    const started = performance.now();
    const seeded = await seedProject(orgId, p.id, org.account.id, {
      sprints: 0,
      issuesPerSprint: 0,
      backlog: issues,
      commentsPerIssue: 1,
    });
    log(`seeded ${seeded.items} items in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { id: p.id as number, path: `/api/v1/projects/${p.id}`, issues: seeded.issues.get(null) ?? [] };
  };
  const small = await project(sizes.smallIssues);
  const big = await project(sizes.bigIssues);
  const results: Comparison[] = [];
  const done = (c: Comparison) => {
    results.push(c);
    log(`${c.what}: ${c.a.ms.toFixed(1)} ms vs ${c.b.ms.toFixed(1)} ms`);
  };

  // Reads: the same request on both projects.
  const reader = await admin();
  const read = (what: string, path: (p: typeof small) => string) =>
    compare(
      what,
      sizes.reps,
      { label: `${sizes.smallIssues} issues`, run: () => reader('GET', path(small)) },
      { label: `${sizes.bigIssues} issues`, run: () => reader('GET', path(big)) },
    );
  done(await read('Read a project', (p) => p.path));
  done(await read('Read the first page of the backlog (10 issues)', (p) => `${p.path}/issues?per_page=10`));
  done(await read('Read a backlog issue', (p) => `${p.path}/issues/${p.issues[p.issues.length - 1]}`));
  done(await read("Read an issue's comments", (p) => `${p.path}/issues/${p.issues[0]}/comments`));

  // Creating an issue: at the end of an empty sprint vs of a sprint of 1,000.
  const writer = await admin();
  const sprint = async (p: { id: number; path: string }, issues: number) => {
    const s = (await setup('POST', `${p.path}/sprints`, { sprint: { name: `${issues} open` } })).body;
    await seedSprintIssues(orgId, p.id, s.id, issues);
    return `${p.path}/sprints/${s.id}`;
  };
  // Sprints live in a project of their own: the two projects above keep their sizes for the cascade.
  const work = await project(0);
  const emptySprint = await sprint(work, 0);
  const fullSprint = await sprint(work, sizes.sprintIssues);
  done(
    await compare(
      'Create an issue in a sprint',
      sizes.reps,
      { label: 'empty sprint', run: () => writer('POST', `${emptySprint}/issues`, { issue: { title: 'New', story_points: 1 } }) },
      {
        label: `sprint of ${sizes.sprintIssues}`,
        run: () => writer('POST', `${fullSprint}/issues`, { issue: { title: 'New', story_points: 1 } }),
      },
    ),
  );

  // Moves in the big backlog: the bottom issue to the top, the top issue to the bottom (the list
  // rotates, so each move takes the issue at that end now).
  const mover = await admin();
  const order = [...big.issues];
  done(
    await compare(
      `Move an issue in a backlog of ${sizes.bigIssues}`,
      sizes.reps,
      {
        label: 'to the top',
        run: () => {
          const id = order.pop()!;
          order.unshift(id);
          return mover('PATCH', `${big.path}/issues/${id}`, { issue: { position: 1 } });
        },
      },
      {
        label: 'to the bottom',
        run: () => {
          const id = order.shift()!;
          order.push(id);
          return mover('PATCH', `${big.path}/issues/${id}`, { issue: { position: order.length } });
        },
      },
    ),
  );

  // Completing a sprint: its open issues go to the end of the backlog. Each run needs a new sprint.
  const completer = await admin();
  const complete = async (issues: number) => {
    const path = await sprint(work, issues);
    await setup('POST', `${path}/activate`, {});
    return completer('POST', `${path}/complete`, {});
  };
  done(
    await compare(
      'Complete a sprint (open issues to the backlog)',
      sizes.completions,
      { label: `${sizes.smallSprintIssues} open issues`, run: () => complete(sizes.smallSprintIssues) },
      { label: `${sizes.sprintIssues} open issues`, run: () => complete(sizes.sprintIssues) },
    ),
  );

  // The trash and the cascade (the consumer's work, docs/trash.md): a project's DELETE until its
  // issues are out of every index (its trash item `held`), its restore until it is back whole, and
  // its purge until its partition is empty.
  const trashed = async (p: { id: number }, done: (status: number, body: { state?: string }) => boolean) => {
    const { token } = await createAccountInOrg(orgId, { name: 'Poll', email: `poll-${unique()}@example.com`, role: 'admin' });
    for (const started = performance.now(); ; await new Promise((r) => setTimeout(r, 50))) {
      const res = await fetch(`${baseUrl}/api/v1/trash/project-${p.id}`, { headers: { Authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { state?: string };
      if (done(res.status, body)) return;
      if (performance.now() - started > 10 * 60_000)
        throw new Error(`project ${p.id}'s trash item: still ${res.status} ${JSON.stringify(body)}`);
    }
  };
  const held = (status: number, body: { state?: string }) => status === 200 && body.state === 'held';
  const timed = async (request: () => Promise<Timed>, until: () => Promise<unknown>): Promise<Timed> => {
    const started = performance.now();
    const res = await request();
    await until();
    return { ms: performance.now() - started, calls: res.calls };
  };
  const lifecycle = async (p: { id: number; path: string }) => {
    const deleted = await timed(
      () => setup('DELETE', p.path),
      () => trashed(p, held),
    );
    const restored = await timed(
      () => setup('POST', `/api/v1/trash/project-${p.id}/restore`, {}),
      () => trashed(p, (status) => status === 404),
    );
    await setup('DELETE', p.path);
    await trashed(p, held);
    const purged = await timed(
      () => setup('DELETE', `/api/v1/trash/project-${p.id}`),
      () => untilEmpty(orgId, p.id, 10 * 60_000),
    );
    return { deleted, restored, purged };
  };
  const smallLife = await lifecycle(small);
  const bigLife = await lifecycle(big);
  const sides = (what: string, step: keyof typeof smallLife) =>
    done({
      what,
      a: {
        label: `${sizes.smallIssues} issues + ${sizes.smallIssues} comments`,
        ...smallLife[step],
        maxCalls: smallLife[step].calls,
      },
      b: { label: `${sizes.bigIssues} issues + ${sizes.bigIssues} comments`, ...bigLife[step], maxCalls: bigLife[step].calls },
    });
  sides('Delete a project into the trash, until its issues are out of every index', 'deleted');
  sides('Restore it, until it is back whole', 'restored');
  sides('Purge it, until its partition is empty', 'purged');
  return results;
}

/** The comparisons as a Markdown table (tools/bench/README.md). */
export function table(results: Comparison[]): string {
  const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(1)} ms`);
  // The median request's calls, and the most any request took when some took more.
  const calls = (s: Side) => (s.maxCalls > s.calls ? `${s.calls} (≤ ${s.maxCalls})` : `${s.calls}`);
  const lines = [
    '| Request | A | B | A, median | B, median | B / A | DynamoDB calls (A / B) |',
    '| --- | --- | --- | --: | --: | --: | --: |',
    ...results.map(
      (c) =>
        `| ${c.what} | ${c.a.label} | ${c.b.label} | ${ms(c.a.ms)} | ${ms(c.b.ms)} | ${(c.b.ms / c.a.ms).toFixed(2)} | ${calls(c.a)} / ${calls(c.b)} |`,
    ),
  ];
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({
    options: { reps: { type: 'string' }, issues: { type: 'string' }, sprint: { type: 'string' } },
  });
  const sizes: ScaleSizes = {
    ...fullSizes,
    ...(values.reps ? { reps: Number(values.reps) } : {}),
    ...(values.issues ? { bigIssues: Number(values.issues) } : {}),
    ...(values.sprint ? { sprintIssues: Number(values.sprint) } : {}),
  };
  const { startDynamoDbLocal } = await import('../local/dynamodb.ts');
  const { ensureTable } = await import('../local/table.ts');
  const dynamo = await startDynamoDbLocal();
  const tableName = 'sprint-ticketing-scale';
  await ensureTable(dynamo.endpoint, tableName);
  // The data layer reads these on first use: set before anything runs.
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.TABLE_NAME = tableName;
  process.env.AWS_REGION ??= 'local';
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const { createGateway } = await import('../local/gateway.ts');
  const { routes } = await import('../../lib/routes.ts');
  const { startStreamPoller } = await import('../local/stream-poller.ts');
  // Only the cascade consumer: the change feed and webhook deliveries are not what this measures.
  const poller = await startStreamPoller({ endpoint: dynamo.endpoint, tableName });
  const server = createGateway({ routes, exposeDbCalls: true });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const started = performance.now();
  try {
    const results = await runScaleBench(baseUrl, sizes, (line) => process.stderr.write(`${line}\n`));
    process.stdout.write(
      `Node ${process.version}, DynamoDB Local, medians of ${sizes.reps} interleaved requests per side (completions: ${sizes.completions}; cascades: 1).\n\n${table(results)}\n`,
    );
    process.stderr.write(`done in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  } finally {
    server.closeAllConnections();
    server.close();
    await poller.stop();
    await dynamo.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

/**
 * `npm run invoke -- <target> [event.json] [--token TOKEN]`: runs one Lambda handler on one event
 * against the local table and prints what it returned, as `sam local invoke` would. The result goes
 * to standard output; the handler's logs and a summary (status, time, DynamoDB calls) to standard
 * error.
 *
 * Target: an operation id (`createProject`), a route (`"POST /api/v1/projects"`), a handler module
 * (`functions/projects/create.ts`), `authorizer` or `cascade`. The event defaults to
 * `events/<operationId>.json` (`events/authorizer.json`, `events/cascade.json`).
 *
 * For a route behind the token authorizer, the authorizer runs first on the event's headers, and
 * its context goes to the handler, as API Gateway does. `--token` (or `API_TOKEN`) replaces the
 * event's token.
 *
 * Table: DYNAMODB_ENDPOINT when set, else the DynamoDB Local of `npm start`
 * (127.0.0.1:DYNAMODB_PORT); TABLE_NAME picks the table.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { repoRoot } from '../../infra/paths.ts';
import { lambdaContext, loadHandler, runAuthorizer } from './gateway.ts';
import { runAsFunction } from './permissions.ts';

export type Target = { kind: 'route'; route: Route } | { kind: 'authorizer' } | { kind: 'cascade' };

export const authorizerModule = 'functions/authorizer.ts';
export const cascadeModule = 'functions/cascade.ts';

/** The target a name designates, or undefined. A handler module shared by rows gives its first row. */
export function resolveTarget(name: string): Target | undefined {
  const lower = name.toLowerCase();
  if (lower === 'authorizer' || name === authorizerModule) return { kind: 'authorizer' };
  if (lower === 'cascade' || name === cascadeModule) return { kind: 'cascade' };
  const [method, path] = name.trim().split(/\s+/);
  const route =
    routes.find((r) => r.operation.id === name) ??
    routes.find((r) => r.method === method?.toUpperCase() && r.path === path) ??
    routes.find((r) => r.handler === name.replace(/^\.\//, ''));
  return route ? { kind: 'route', route } : undefined;
}

/** What an event is for: a stream batch, an authorizer event, or the route of its method and resource. */
export function targetOfEvent(event: unknown): Target | undefined {
  const e = event as Partial<APIGatewayProxyEvent> & { Records?: { eventSource?: string }[]; type?: string };
  if (Array.isArray(e.Records)) return { kind: 'cascade' };
  if (e.type === 'REQUEST' || e.type === 'TOKEN') return { kind: 'authorizer' };
  const route = routes.find((r) => r.method === e.httpMethod && r.path === e.resource);
  return route ? { kind: 'route', route } : undefined;
}

/** The default event file of a target. */
export function defaultEventFile(target: Target): string {
  if (target.kind === 'authorizer') return 'events/authorizer.json';
  if (target.kind === 'cascade') return 'events/cascade.json';
  return `events/${target.route.operation.id}.json`;
}

/** The event with `token` as its only token (`Authorization: Bearer`), in both header maps. */
export function withToken<E extends { headers?: unknown; multiValueHeaders?: unknown }>(event: E, token: string): E {
  const drop = (name: string) => /^(authorization|x-api-token)$/i.test(name);
  const headers = Object.fromEntries(Object.entries((event.headers ?? {}) as Record<string, string>).filter(([k]) => !drop(k)));
  const multi = Object.fromEntries(
    Object.entries((event.multiValueHeaders ?? {}) as Record<string, string[]>).filter(([k]) => !drop(k)),
  );
  return {
    ...event,
    headers: { ...headers, Authorization: `Bearer ${token}` },
    multiValueHeaders: { ...multi, Authorization: [`Bearer ${token}`] },
  };
}

export interface Invocation {
  /** What the handler returned (or API Gateway's own answer when the authorizer refused). */
  result: unknown;
  /** The HTTP status, for routes. */
  status?: number;
  /** Thrown by the handler (authorizer and stream consumer only: API handlers answer errors). */
  error?: Error;
  /** DynamoDB commands sent by the authorizer and by the handler. */
  authorizerCalls: string[];
  handlerCalls: string[];
  ms: number;
}

type Handler = (event: unknown, context: Context) => Promise<unknown>;

/** Runs the target's handler on `event` (the authorizer first for an authenticated route). */
export async function invoke(target: Target, event: unknown, options: { token?: string } = {}): Promise<Invocation> {
  const started = performance.now();
  const done = (rest: Omit<Invocation, 'ms'>): Invocation => ({ ...rest, ms: performance.now() - started });
  if (target.kind !== 'route') {
    const module = target.kind === 'authorizer' ? authorizerModule : cascadeModule;
    const input = options.token && target.kind === 'authorizer' ? withToken(event as APIGatewayProxyEvent, options.token) : event;
    const handler = await loadHandler<unknown, unknown>(module);
    const { result, log } = await withDbCallLog(() =>
      runAsFunction(module, routes, () => (handler as Handler)(input, lambdaContext(target.kind))).then(
        (value) => ({ value }),
        (error: Error) => ({ error }),
      ),
    );
    return done({
      result: 'value' in result ? result.value : undefined,
      ...('error' in result ? { error: result.error } : {}),
      authorizerCalls: [],
      handlerCalls: log.calls,
    });
  }

  const { route } = target;
  let proxy = structuredClone(event) as APIGatewayProxyEvent;
  if (options.token) proxy = withToken(proxy, options.token);
  proxy.requestContext = { ...proxy.requestContext, authorizer: null };
  let authorizerCalls: string[] = [];
  if (route.auth) {
    const { result: outcome, log } = await withDbCallLog(() => runAuthorizer(proxy, route));
    authorizerCalls = log.calls;
    if ('response' in outcome)
      return done({ result: outcome.response, status: outcome.response.statusCode, authorizerCalls, handlerCalls: [] });
    proxy.requestContext.authorizer = outcome.authorizer;
  }
  const handler = await loadHandler<APIGatewayProxyEvent, APIGatewayProxyResult>(route.handler);
  const { result, log } = await withDbCallLog(() =>
    runAsFunction(route.handler, routes, () => handler(proxy, lambdaContext(route.handler))),
  );
  return done({ result, status: result.statusCode, authorizerCalls, handlerCalls: log.calls });
}

const USAGE = `Usage: npm run invoke -- <target> [event.json] [--token TOKEN]

  <target>   an operation id (createProject), a route ("POST /api/v1/projects"),
             a handler module (functions/projects/create.ts), authorizer or cascade
  event      defaults to events/<operationId>.json (events/authorizer.json, events/cascade.json)
  --token    a real API token in place of the event's (or API_TOKEN)

Table: DYNAMODB_ENDPOINT, else the DynamoDB Local of \`npm start\` (127.0.0.1:DYNAMODB_PORT); TABLE_NAME.`;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { token: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [name, file] = positionals;
  if (values.help || !name) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  let target = resolveTarget(name);
  if (!target) {
    process.stderr.write(`invoke: no route, handler or function named "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  const eventFile = resolve(process.cwd(), file ?? resolve(repoRoot, defaultEventFile(target)));
  const event = JSON.parse(readFileSync(eventFile, 'utf8')) as unknown;
  const forEvent = targetOfEvent(event);
  if (target.kind === 'route') {
    // A module shared by rows (PUT/PATCH...): the event says which row.
    const route = target.route;
    if (forEvent?.kind !== 'route' || forEvent.route.handler !== route.handler) {
      const what = forEvent?.kind === 'route' ? `${forEvent.route.method} ${forEvent.route.path}` : (forEvent?.kind ?? 'unknown');
      process.stderr.write(`invoke: ${eventFile} is an event for ${what}, not for ${route.method} ${route.path}\n`);
      return 2;
    }
    target = forEvent;
  } else if (forEvent?.kind !== target.kind) {
    process.stderr.write(`invoke: ${eventFile} is not an event for the ${target.kind}\n`);
    return 2;
  }

  const endpoint = (process.env.DYNAMODB_ENDPOINT ||= `http://127.0.0.1:${process.env.DYNAMODB_PORT || 8000}`);
  process.env.TABLE_NAME ??= 'sprint-ticketing';
  process.env.AWS_REGION ??= 'local';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  // The service's address as `npm start` gives it (the sample events' Host): the OAuth issuer.
  process.env.PUBLIC_URL ||= `http://localhost:${process.env.PORT || 3000}`;
  // The webhook secret key of `npm start`'s data folder: what it sealed, the handler opens.
  const { useLocalSecretKey } = await import('./secret-key.ts');
  const { localConfig } = await import('./config.ts');
  useLocalSecretKey(localConfig.dataDir);
  const { ensureTable } = await import('./table.ts');
  try {
    await ensureTable(endpoint, process.env.TABLE_NAME);
  } catch (err) {
    process.stderr.write(`invoke: cannot reach DynamoDB at ${endpoint} (${(err as Error).message}); is \`npm start\` running?\n`);
    return 1;
  }

  // The handler's logs go to standard error, so standard output holds only the result.
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  let invocation: Invocation;
  try {
    invocation = await invoke(target, event, { token: values.token ?? process.env.API_TOKEN });
  } finally {
    process.stdout.write = stdoutWrite;
  }
  const label = target.kind === 'route' ? `${target.route.method} ${target.route.path}` : target.kind;
  const calls = (list: string[]) => `${list.length}${list.length ? ` (${list.join(', ')})` : ''}`;
  process.stderr.write(
    `${label}: ${invocation.status ?? (invocation.error ? 'threw' : 'returned')} in ${invocation.ms.toFixed(0)} ms; ` +
      `DynamoDB calls: authorizer ${calls(invocation.authorizerCalls)}, handler ${calls(invocation.handlerCalls)}\n`,
  );
  if (invocation.error) {
    process.stdout.write(
      `${JSON.stringify({ errorType: invocation.error.name, errorMessage: invocation.error.message }, null, 2)}\n`,
    );
    return 1;
  }
  process.stdout.write(`${JSON.stringify(invocation.result ?? null, null, 2)}\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main();
}

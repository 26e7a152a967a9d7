import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { deflateSync, gzipSync } from 'node:zlib';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { publicUrl } from '../../lib/config.ts';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { LAMBDA_REQUEST_LIMIT, LAMBDA_RESPONSE_LIMIT } from '../../lib/http/byte-budget.ts';
import { json, misconfiguration } from '../../lib/http/errors.ts';
import { compressesAnswer } from '../../lib/http/gateway-compression.ts';
import { NOSNIFF } from '../../lib/http/nosniff.ts';
import { bearerChallenge, gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { allowedMethods, allowHeader, methodNotAllowedMessage } from '../../lib/http/method-not-allowed.ts';
import { EXPOSED_HEADERS, gatewayResponseOrigin, parseOrigins, preflightHeaders } from '../../lib/http/cors.ts';
import type { Route } from '../../lib/routes.ts';
import { repoRoot } from '../../infra/paths.ts';
import { runAsFunction } from './permissions.ts';

/** API Gateway's payload limit: larger requests never reach a Lambda. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/**
 * What API Gateway answers when the proxy event is over Lambda's 6 MB invocation limit (a body of
 * 6 to 10 MB): 413 `{"message": "Request Too Long"}`, a 4XX that the DEFAULT_4XX gateway response
 * rewrites to `{error}` with the status kept (infra/constructs/service-api.ts).
 */
export const lambdaRequestTooLong = (): APIGatewayProxyResult => ({
  statusCode: 413,
  headers: { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF },
  body: JSON.stringify({ error: 'Request Too Long' }),
});

/**
 * Lambda refuses a result over its 6 MB response limit (the invocation fails) and API Gateway then
 * answers 502 `{"message": "Internal server error"}` (DEFAULT_5XX keeps the status).
 */
export function withinLambdaResponseLimit(result: APIGatewayProxyResult): APIGatewayProxyResult {
  const bytes = Buffer.byteLength(JSON.stringify(result), 'utf8');
  if (bytes <= LAMBDA_RESPONSE_LIMIT) return result;
  process.stderr.write(`gateway: the handler's response is ${bytes} bytes, over Lambda's ${LAMBDA_RESPONSE_LIMIT}: 502\n`);
  return {
    statusCode: 502,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF },
    body: JSON.stringify({ error: 'Internal server error' }),
  };
}

type LambdaHandler<E, R> = (event: E, context: Context) => Promise<R>;

const modules = new Map<string, Promise<{ handler: LambdaHandler<unknown, unknown> }>>();

/** Imports a handler module once (as Lambda keeps a warm container). */
export function loadHandler<E, R>(modulePath: string): Promise<LambdaHandler<E, R>> {
  let mod = modules.get(modulePath);
  if (!mod) {
    mod = import(pathToFileURL(resolve(repoRoot, modulePath)).href) as Promise<{ handler: LambdaHandler<unknown, unknown> }>;
    modules.set(modulePath, mod);
  }
  return mod.then((m) => m.handler as LambdaHandler<E, R>);
}

/** A Lambda context good enough for local invocation. */
export function lambdaContext(functionName: string, requestId = randomUUID()): Context {
  const deadline = Date.now() + 29_000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
  /** Per path segment: 0 literal, 1 `{param}`, 2 greedy `{param+}` (API Gateway's order of preference). */
  rank: number[];
}

/** Compiles a route's path template into a matcher. */
export function compileRoute(route: Route): CompiledRoute {
  const names: string[] = [];
  const rank: number[] = [];
  const pattern = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)(\+?)\}$/.exec(segment);
      if (!param) {
        rank.push(0);
        return segment.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&');
      }
      names.push(param[1] ?? '');
      rank.push(param[2] ? 2 : 1);
      return param[2] ? '(.+)' : '([^/]+)';
    })
    .join('/');
  return { route, regex: new RegExp(`^${pattern}$`), names, rank };
}

/** API Gateway's preference: at the first segment where two matching routes differ, the literal wins over a parameter, which wins over a greedy one. */
function bySpecificity(a: CompiledRoute, b: CompiledRoute): number {
  for (let i = 0; i < Math.max(a.rank.length, b.rank.length); i++) {
    const d = (a.rank[i] ?? 3) - (b.rank[i] ?? 3);
    if (d !== 0) return d;
  }
  return 0;
}

/** A path parameter as the handler sees it: percent-decoded, or raw when the escape is malformed. */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** Finds the route for a method and path; API Gateway matching (literal segments win over parameters). */
export function matchRoute(compiled: CompiledRoute[], method: string, path: string) {
  const candidates = compiled
    .filter((c) => c.route.method === method)
    .map((c) => ({ c, m: c.regex.exec(path) }))
    .filter((x): x is { c: CompiledRoute; m: RegExpExecArray } => x.m !== null)
    .sort((a, b) => bySpecificity(a.c, b.c));
  const hit = candidates[0];
  if (!hit) return undefined;
  const params: Record<string, string> = {};
  hit.c.names.forEach((name, i) => {
    params[name] = decodeParam(hit.m[i + 1] ?? '');
  });
  return { route: hit.c.route, params };
}

/**
 * Name/value pairs as API Gateway's two maps hold them: the last value of a name, and all of them.
 * Built through a Map, so that a name such as `__proto__` is an own key as in the JSON event.
 */
function pairMaps(pairs: Iterable<[string, string]>) {
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = multi.get(name);
    if (values) values.push(value);
    else multi.set(name, [value]);
  }
  return {
    single: Object.fromEntries([...multi].map(([name, values]) => [name, values.at(-1) ?? ''])),
    multi: Object.fromEntries(multi),
  };
}

function headersOf(req: IncomingMessage) {
  const pairs: [string, string][] = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) pairs.push([req.rawHeaders[i] ?? '', req.rawHeaders[i + 1] ?? '']);
  const { single, multi } = pairMaps(pairs);
  return { headers: single, multi };
}

function queryOf(url: URL) {
  if ([...url.searchParams.keys()].length === 0) return { query: null, multi: null };
  const { single, multi } = pairMaps(url.searchParams);
  return { query: single, multi };
}

/**
 * The request's body, or `too-large` past API Gateway's payload limit, never holding more than the
 * limit: a body whose declared length is over it is refused at once, unread (GitHub posts up to 25
 * MB), and one without a length is kept up to the limit. What is not read is dropped as it comes,
 * so the connection stays usable for the next request.
 */
export async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large'> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > MAX_PAYLOAD_BYTES) {
    req.resume();
    return 'too-large';
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_PAYLOAD_BYTES ? 'too-large' : Buffer.concat(chunks);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A body as the proxy event carries it: text, or base64 when its bytes are not UTF-8, so that the
 * function sees those bytes and refuses them (lib/http/middleware/body-guard.ts) rather than text
 * with U+FFFD in their place (docs/limits.md#request-bodies says where API Gateway differs).
 */
function bodyText(raw: Buffer): { body: string | null; base64: boolean } {
  if (raw.length === 0) return { body: null, base64: false };
  try {
    return { body: strictUtf8.decode(raw), base64: false };
  } catch {
    return { body: raw.toString('base64'), base64: true };
  }
}

/** Builds the API Gateway REST (v1) proxy event a Lambda would receive for this request. */
export function proxyEvent(
  req: {
    method: string;
    url: URL;
    headers: Record<string, string>;
    multiHeaders: Record<string, string[]>;
    body: string | null;
    /** The body is base64: its bytes are not UTF-8 (`bodyText`). */
    base64?: boolean;
    sourceIp: string;
  },
  route: Route,
  params: Record<string, string>,
  authorizer: Record<string, unknown> | null,
): APIGatewayProxyEvent {
  const { query, multi } = queryOf(req.url);
  const requestId = randomUUID();
  return {
    resource: route.path,
    path: req.url.pathname,
    httpMethod: req.method,
    headers: req.headers,
    multiValueHeaders: req.multiHeaders,
    queryStringParameters: query,
    multiValueQueryStringParameters: multi,
    pathParameters: Object.keys(params).length ? params : null,
    stageVariables: null,
    body: req.body,
    isBase64Encoded: req.base64 ?? false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer,
      protocol: 'HTTP/1.1',
      httpMethod: req.method,
      identity: {
        sourceIp: req.sourceIp,
        userAgent: req.headers['User-Agent'] ?? req.headers['user-agent'] ?? null,
      } as APIGatewayProxyEvent['requestContext']['identity'],
      path: req.url.pathname,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: route.path,
    },
  };
}

/**
 * Writes an answer as API Gateway does, compressing it as the REST API's `minimumCompressionSize`
 * has it (lib/http/gateway-compression.ts): gzip or deflate when the client's first choice is one
 * and the body is large enough, with `Content-Encoding` and nothing else added. A fast level: the
 * bytes differ from API Gateway's, what a client decodes does not.
 */
function send(res: ServerResponse, result: APIGatewayProxyResult, acceptEncoding: string | undefined) {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  for (const [k, v] of Object.entries(result.multiValueHeaders ?? {})) headers[k] = v.map(String);
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  const coding = compressesAnswer(acceptEncoding, body.length, headers);
  if (coding !== undefined) headers['Content-Encoding'] = coding;
  res.writeHead(result.statusCode, headers);
  res.end(coding === 'gzip' ? gzipSync(body, { level: 1 }) : coding === 'deflate' ? deflateSync(body, { level: 1 }) : body);
}

/** API Gateway's own answer of a kind (lib/http/gateway-responses.ts). */
export function gatewayError(kind: keyof typeof gatewayResponses): APIGatewayProxyResult {
  const r = gatewayResponses[kind];
  return {
    statusCode: r.status,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      ...NOSNIFF,
      ...(r.status === 429 || r.status === 503 ? { 'Retry-After': '1' } : {}),
    },
    body: JSON.stringify({ error: r.message }),
  };
}

/**
 * Runs the token authorizer on a request's proxy event as API Gateway does for a route behind it
 * (as a REQUEST authorizer event). Gives the authorizer context the route's handler will see, or
 * the gateway's own answer: 401 for a refused token, 403 for a Deny, 503 when the authorizer failed.
 */
export async function runAuthorizer(
  event: APIGatewayProxyEvent,
  route: Route,
): Promise<{ authorizer: Record<string, unknown> } | { response: APIGatewayProxyResult }> {
  const authEvent = {
    ...event,
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/local/${event.httpMethod}${route.path}`,
  } as APIGatewayRequestAuthorizerEvent;
  const authorize = await loadHandler<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>('functions/authorizer.ts');
  let result: APIGatewayAuthorizerResult;
  try {
    result = await runAsFunction('functions/authorizer.ts', [], () => authorize(authEvent, lambdaContext('authorizer')));
  } catch (err) {
    // Locally, a configuration the authorizer cannot run with is said as such rather than "busy".
    const problem = misconfiguration(err);
    if (problem) return { response: json(500, { error: problem }) };
    return { response: gatewayError((err as Error).message === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_FAILURE') };
  }
  const allowed = result.policyDocument.Statement.some((s) => 'Effect' in s && s.Effect === 'Allow');
  if (!allowed) return { response: gatewayError('ACCESS_DENIED') };
  return { authorizer: { ...result.context, principalId: result.principalId } };
}

/**
 * The request's path and query as a URL. The path is read on its own (never against `Host`, which
 * the client chooses), so `//`, `/\x` or an escape that does not decode are paths like any other;
 * an absolute target (`GET http://h/x`) keeps its path. Undefined when the target is neither.
 */
export function requestUrl(target: string | undefined): URL | undefined {
  try {
    if (target?.startsWith('/')) return new URL(`http://gateway.local${target}`);
    const absolute = new URL(target ?? '');
    return new URL(`http://gateway.local${absolute.pathname}${absolute.search}`);
  } catch {
    return undefined;
  }
}

/** 500 JSON when the prepared answer could not be written; the connection is closed if even that fails. */
function answerLastResort(res: ServerResponse) {
  try {
    if (res.headersSent) throw new Error('headers already sent');
    const body = JSON.stringify({ error: gatewayResponses.DEFAULT_5XX.message });
    res.writeHead(500, {
      'Content-Type': 'application/json; charset=utf-8',
      ...NOSNIFF,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  } catch {
    res.destroy();
  }
}

/**
 * A request Node's parser refuses (a malformed request line or header, an unknown method, headers
 * over 16 KB) never reaches the gateway: it is answered here as API Gateway answers a bad request,
 * in JSON (431 for headers too large), and the connection closed.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex) {
  const pending = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, reason, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'Request header fields too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'Request timeout']
        : [400, 'Bad Request', gatewayResponses.DEFAULT_4XX.message];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export interface GatewayOptions {
  routes: Route[];
  /** Print one line per request (method, path, status, ms, DynamoDB calls). */
  log?: (line: string) => void;
  /**
   * Add `X-Db-Calls` (DynamoDB calls made for the request, authorizer included) and
   * `X-Db-Round-Trips` (the longest chain of them sent one after another) to responses.
   */
  exposeDbCalls?: boolean;
  /**
   * Web origins allowed to call (lib/http/cors.ts); default `CORS_ORIGINS`, the variable the
   * handlers read. With none, OPTIONS is a route like any other that does not exist (404).
   */
  corsOrigins?: string[];
}

/**
 * A small API Gateway emulator: for each request it builds the REST proxy event, runs the token
 * authorizer (for routes that need it) and then the route's handler, the same modules Lambda runs.
 */
export function createGateway(options: GatewayOptions): http.Server {
  const compiled = options.routes.map(compileRoute);
  const origins = options.corsOrigins ?? parseOrigins(process.env.CORS_ORIGINS);
  // API Gateway's own answers carry what the stack's gateway responses carry (infra/constructs/service-api.ts).
  const ownOrigin = gatewayResponseOrigin(origins);
  const ownCors: Record<string, string> = ownOrigin
    ? { 'Access-Control-Allow-Origin': ownOrigin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(', ') }
    : {};
  // A request without `Host` is answered by the routes too (Node would answer it 400 with no body).
  const server = http.createServer({ requireHostHeader: false }, (req, res) => void serve(req, res));
  server.on('clientError', answerClientError);
  return server;

  /**
   * Answers one request, whatever it is: an error anywhere in it is logged and answered 500 JSON
   * (API Gateway's own), and an answer that cannot be written closes the connection, so that no
   * request ever throws outside a handler and stops the process.
   */
  async function serve(req: IncomingMessage, res: ServerResponse) {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const url = requestUrl(req.url);
    let answer: { result: APIGatewayProxyResult; log: { calls: unknown[]; roundTrips: number } };
    try {
      answer = url
        ? await withDbCallLog(() => handle(req, url, method))
        : { result: ownError('DEFAULT_4XX'), log: { calls: [], roundTrips: 0 } };
    } catch (err) {
      // A client that went away mid-request is no error of the gateway's: there is no one to answer.
      if (req.destroyed) return void res.destroy();
      process.stderr.write(`gateway error: ${(err as Error).stack ?? String(err)}\n`);
      answer = { result: gatewayError('DEFAULT_5XX'), log: { calls: [], roundTrips: 0 } };
    }
    const { result, log } = answer;
    try {
      if (options.exposeDbCalls)
        result.headers = {
          ...result.headers,
          'X-Db-Calls': String(log.calls.length),
          'X-Db-Round-Trips': String(log.roundTrips),
        };
      send(res, result, req.headers['accept-encoding']);
    } catch (err) {
      process.stderr.write(`gateway error: the answer could not be written: ${(err as Error).stack ?? String(err)}\n`);
      answerLastResort(res);
    }
    const ms = (performance.now() - started).toFixed(1);
    options.log?.(`${method} ${url?.pathname ?? JSON.stringify(req.url)} ${res.statusCode} ${ms}ms db=${log.calls.length}`);
  }

  /** API Gateway's own answer, with the CORS headers its gateway responses carry. */
  function ownError(kind: keyof typeof gatewayResponses): APIGatewayProxyResult {
    const result = gatewayError(kind);
    return { ...result, headers: { ...result.headers, ...ownCors } };
  }

  /** No route for the method: 405 with `Allow` when the path has other methods (as the stack's catch-all mock answers), else 404. */
  function noRoute(method: string, path: string): APIGatewayProxyResult {
    const allow = allowHeader(allowedMethods(options.routes, path));
    if (!allow) return ownError('MISSING_AUTHENTICATION_TOKEN');
    return {
      statusCode: 405,
      headers: { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF, Allow: allow, ...ownCors },
      body: JSON.stringify({ error: methodNotAllowedMessage(method, allow) }),
    };
  }

  async function handle(req: IncomingMessage, url: URL, method: string): Promise<APIGatewayProxyResult> {
    if (method === 'OPTIONS' && origins.length > 0) return preflight(req, url);
    // `GET /api-docs/`, as people type it, reaches the reference page's function (with the slash in
    // the event's `path`), which redirects to `/api-docs`; any other path with a trailing slash is
    // a route that does not exist.
    const match =
      matchRoute(compiled, method, url.pathname) ??
      (url.pathname === '/api-docs/' ? matchRoute(compiled, method, '/api-docs') : undefined);
    if (!match) return noRoute(method, url.pathname);
    const raw = await readBody(req);
    if (raw === 'too-large') return ownError('REQUEST_TOO_LARGE');
    const { headers, multi } = headersOf(req);
    const request = {
      method,
      url,
      headers: { ...headers, 'X-Forwarded-Proto': 'http' },
      multiHeaders: multi,
      ...bodyText(raw),
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
    };
    let authorizer: Record<string, unknown> | null = null;
    if (match.route.auth) {
      const outcome = await runAuthorizer(proxyEvent(request, match.route, match.params, null), match.route);
      if ('response' in outcome) {
        // A 401 points at the protected-resource metadata, as the stack's gateway response does.
        const challenge: Record<string, string> =
          outcome.response.statusCode === 401 ? { 'WWW-Authenticate': bearerChallenge(publicUrl()) } : {};
        return { ...outcome.response, headers: { ...outcome.response.headers, ...challenge, ...ownCors } };
      }
      authorizer = outcome.authorizer;
    }
    const event = proxyEvent(request, match.route, match.params, authorizer);
    if (Buffer.byteLength(JSON.stringify(event), 'utf8') > LAMBDA_REQUEST_LIMIT) {
      return { ...lambdaRequestTooLong(), headers: { ...lambdaRequestTooLong().headers, ...ownCors } };
    }
    const handler = await loadHandler<APIGatewayProxyEvent, APIGatewayProxyResult>(match.route.handler);
    return withinLambdaResponseLimit(
      await runAsFunction(match.route.handler, options.routes, () => handler(event, lambdaContext(match.route.handler))),
    );
  }

  /**
   * A preflight, answered by the gateway itself without the authorizer (the stack's OPTIONS
   * methods are mock integrations): 204 with the allowed methods and headers for an allowed origin,
   * 204 without them for any other (the browser then refuses), 404 for a path with no route.
   */
  async function preflight(req: IncomingMessage, url: URL): Promise<APIGatewayProxyResult> {
    await readBody(req);
    const known = compiled.some((c) => c.regex.test(url.pathname));
    if (!known) return ownError('MISSING_AUTHENTICATION_TOKEN');
    return { statusCode: 204, headers: preflightHeaders(headersOf(req).headers, origins) ?? { Vary: 'Origin' }, body: '' };
  }
}

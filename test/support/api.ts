import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { createAccountInOrg, createOrganisation } from '../../lib/services/accounts.ts';
import { createGateway } from '../../tools/local/gateway.ts';
import { routes } from '../../lib/routes.ts';
import { responseObservers } from './response-observers.ts';

/**
 * A response as the e2e tests see it. `dbCalls` counts DynamoDB calls, authorizer included;
 * `roundTrips` the longest chain of them sent one after another (lib/db/core/metrics.ts).
 */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  dbCalls: number;
  roundTrips: number;
}

export interface RequestOptions {
  /** JSON body (serialised, Content-Type set) */
  json?: unknown;
  /** Raw body, sent as is (no Content-Type unless given in headers). */
  raw?: string;
  headers?: Record<string, string>;
  /** Token to send as `Authorization: Bearer`; `null` sends none. */
  token?: string | null;
}

export { responseObservers };

/** Starts the local API Gateway emulator on a free port, in this test process. */
export async function startGateway(): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const server = createGateway({ routes, exposeDbCalls: true });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // The service's own URL, as `npm start` sets it: the handlers read it on first use (the OAuth
  // issuer, /mcp's own origin). A second gateway in the same file keeps the first one's.
  process.env.PUBLIC_URL = `http://127.0.0.1:${port}`;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `fetch`, sent again once when the connection was reset before any answer came: a pooled
 * keep-alive socket that the local server closed as the request went out (undici reports
 * ECONNRESET or a closed socket). Nothing reached a handler then; any other failure surfaces.
 */
export async function fetchOnce(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code;
    if (code !== 'ECONNRESET' && code !== 'UND_ERR_SOCKET') throw err;
    return fetch(url, init);
  }
}

/** A small HTTP client bound to a base URL and (optionally) a default token. */
export function apiClient(baseUrl: string, defaultToken?: string) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetchOnce(`${baseUrl}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    const response: ApiResponse<T> = {
      status: res.status,
      headers: res.headers,
      body: parsed as T,
      text,
      dbCalls: Number(res.headers.get('x-db-calls') ?? -1),
      roundTrips: Number(res.headers.get('x-db-round-trips') ?? -1),
    };
    for (const observe of responseObservers) await observe(method, path, response);
    return response;
  }
  return {
    request,
    get: <T = any>(path: string, o?: RequestOptions) => request<T>('GET', path, o),
    post: <T = any>(path: string, json?: unknown, o?: RequestOptions) => request<T>('POST', path, { ...o, json }),
    patch: <T = any>(path: string, json?: unknown, o?: RequestOptions) => request<T>('PATCH', path, { ...o, json }),
    put: <T = any>(path: string, json?: unknown, o?: RequestOptions) => request<T>('PUT', path, { ...o, json }),
    delete: <T = any>(path: string, o?: RequestOptions) => request<T>('DELETE', path, o),
  };
}
export type ApiClient = ReturnType<typeof apiClient>;

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** A fresh organisation (each test makes its own) with an admin and a member and their tokens. */
export async function newOrganisation() {
  const tag = unique();
  const org = await createOrganisation(`Org ${tag}`, { name: 'Ada Admin', email: `admin-${tag}@example.com` });
  const member = await createAccountInOrg(org.organisation.id, {
    name: 'Mo Member',
    email: `member-${tag}@example.com`,
    role: 'member',
  });
  return {
    orgId: org.organisation.id,
    admin: { id: org.account.id, token: org.token },
    member: { id: member.account.id, token: member.token },
  };
}

const prefixLetters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const prefixSpace = prefixLetters.length ** 4;
let nextPrefix = Math.floor(Math.random() * prefixSpace);

/**
 * A project prefix no other call in this test file returns (four letters counted on from a random
 * start), so that the projects of one organisation never collide, however many a file creates.
 */
export function randomPrefix(): string {
  let n = nextPrefix++ % prefixSpace;
  let prefix = '';
  for (let i = 0; i < 4; i++, n = Math.floor(n / prefixLetters.length)) prefix = prefixLetters[n % prefixLetters.length] + prefix;
  return prefix;
}

/** Runs the local gateway for the current test file: started before its tests, stopped after. */
export function useGateway(): { readonly baseUrl: string } {
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  beforeAll(async () => {
    gateway = await startGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });
  return {
    get baseUrl() {
      if (!gateway) throw new Error('the gateway starts in beforeAll: use it inside a test or hook');
      return gateway.baseUrl;
    },
  };
}

/** A fresh organisation and clients for its admin and its member, on `gateway`. */
export async function orgWithClients(gateway: { readonly baseUrl: string }) {
  const org = await newOrganisation();
  return { org, admin: apiClient(gateway.baseUrl, org.admin.token), member: apiClient(gateway.baseUrl, org.member.token) };
}

/** The path and query of a response's `next` link; undefined on the last page. */
export function nextLink(res: ApiResponse): string | undefined {
  const next = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  return next ? new URL(next).pathname + new URL(next).search : undefined;
}

/** Every page of a list by its `next` links (each must answer 200): the items, the last page's total, the pages read. */
export async function followPages<T = any>(client: ApiClient, url: string) {
  const items: T[] = [];
  let at: string | undefined = url;
  let last: ApiResponse | undefined;
  let pages = 0;
  while (at) {
    last = await client.get(at);
    if (last.status !== 200) throw new Error(`${at}: ${last.status} ${JSON.stringify(last.body)}`);
    items.push(...(last.body as T[]));
    at = nextLink(last);
    pages++;
  }
  return { items, total: Number(last?.headers.get('x-total-count')), pages };
}

/** Every page of `GET /export` from `first` (its query) by its `next` links, concatenated: the export's text. */
export async function exportPages(client: ApiClient, first: string): Promise<string> {
  let text = '';
  let at: string | undefined = first;
  while (at) {
    const res: ApiResponse = await client.get(at);
    if (res.status !== 200) throw new Error(`${at}: ${res.status} ${res.text}`);
    text += res.text;
    // The export's links are relative (docs/import-export.md).
    at = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  }
  return text;
}

/** The lines of an export's text, parsed. */
export const exportLines = (text: string): Record<string, any>[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);

/**
 * A GET as a client that decodes nothing: the status, the headers and the body's bytes exactly as
 * the gateway sent them (fetch would undo a `Content-Encoding`, and asks for one of its own).
 */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
    const req = httpRequest(`${baseUrl}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body of a request that must succeed (2xx); otherwise the test fails, naming what was answered. */
export async function ok<T = any>(res: Promise<{ status: number; body: T }>): Promise<T> {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
}

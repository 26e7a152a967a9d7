import { lookup } from 'node:dns/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusalFor } from './address-guard.ts';

export interface PostOutcome {
  /** The response's status, when one came. */
  status?: number | undefined;
  /** Why no acceptable response came (refused address, timeout, connection error). */
  error?: string | undefined;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowLoopback: boolean;
}

/** Bytes of a response body read at most (and thrown away): receivers answer, we only need the status. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Resolves the host and checks every address; the request then goes to the first one. */
async function resolveChecked(host: string, allowLoopback: boolean): Promise<{ address: string; family: number } | string> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare) ? [{ address: bare, family: isIP(bare) }] : await lookup(bare, { all: true });
  if (addresses.length === 0) return `${host} resolves to no address`;
  for (const a of addresses) {
    const refusal = refusalFor(a.address, allowLoopback);
    if (refusal) return refusal;
  }
  return addresses[0]!;
}

/**
 * POSTs a webhook: resolve, check (lib/webhooks/address-guard.ts), connect to the checked address,
 * and wait at most `timeoutMs` for the whole exchange. Redirects are not followed (a 3xx is a
 * failed attempt). Never throws: the outcome says what happened.
 */
export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostOutcome> {
  const started = Date.now();
  const took = () => Date.now() - started;
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { error: 'not a valid URL', durationMs: took() };
  }
  let resolved: { address: string; family: number } | string;
  try {
    resolved = await resolveChecked(target.hostname, options.allowLoopback);
  } catch (err) {
    return { error: `could not resolve ${target.hostname}: ${(err as Error).message}`, durationMs: took() };
  }
  if (typeof resolved === 'string') return { error: resolved, durationMs: took() };
  const pinned = resolved;
  const pinnedLookup: LookupFunction = (_host, opts, callback) => {
    if (opts.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const requestOptions: RequestOptions = {
    method: 'POST',
    lookup: pinnedLookup,
    headers: {
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': 'sprint-ticketing-webhooks/1',
    },
    signal: AbortSignal.timeout(options.timeoutMs),
  };
  return new Promise<PostOutcome>((resolve) => {
    const req = send(target, requestOptions, (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode, durationMs: took() }));
      res.on('error', () => resolve({ status: res.statusCode, durationMs: took() }));
    });
    req.on('error', (err) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
      resolve({ error: timedOut ? `no response within ${options.timeoutMs} ms` : err.message, durationMs: took() });
    });
    req.end(body);
  });
}

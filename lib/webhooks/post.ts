import { lookup } from 'node:dns/promises';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { describeJudgement, endpointRefusal, hostOf, refusedAddress } from '../model/address-guard.ts';

export interface PostOutcome {
  /** The response's status, when one came. */
  status?: number | undefined;
  /** Why no acceptable response came, in the service's own words (see failureWords). */
  error?: string | undefined;
  durationMs: number;
}

export interface PostOptions {
  timeoutMs: number;
  allowLoopback: boolean;
}

/** Bytes of a response body read at most (and thrown away): receivers answer, we only need the status. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Resolves a host name and checks every address; the request then goes to the first one. A refusal
 * names the kind of address, not the address: the name may be one of a private network's, and its
 * addresses are not the caller's to learn.
 */
async function resolveChecked(host: string, allowLoopback: boolean): Promise<{ address: string; family: number } | string> {
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    return `DNS failure: ${host} could not be resolved`;
  }
  if (addresses.length === 0) return `DNS failure: ${host} could not be resolved`;
  for (const a of addresses) {
    const refused = refusedAddress(a.address, allowLoopback);
    if (refused) return `refused: ${host} resolves to ${describeJudgement({ kind: refused.kind })}`;
  }
  return addresses[0]!;
}

const tlsCodes = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/**
 * What a failed request comes to, in the service's own words: never the error's own text, which can
 * carry addresses and resolver answers (a probe of ports and internal names for any admin).
 */
export function failureWords(err: NodeJS.ErrnoException, timeoutMs: number): string {
  if (err.name === 'AbortError' || err.name === 'TimeoutError') return `timeout: no response within ${timeoutMs} ms`;
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection closed before a response';
  if (code === 'ETIMEDOUT') return 'timeout: the connection could not be made';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'DNS failure: the host could not be resolved';
  if (tlsCodes.test(code) || /ssl|tls|certificate/i.test(err.message)) return 'TLS failure: no secure connection could be made';
  return 'connection failed';
}

/**
 * POSTs a webhook: check the port and a literal address, or resolve a name and check every address
 * (lib/model/address-guard.ts), connect to the checked address,
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
  const refusal = endpointRefusal(target, options.allowLoopback);
  if (refusal) return { error: `refused: ${refusal}`, durationMs: took() };
  const host = hostOf(target);
  const family = isIP(host);
  const resolved = family ? { address: host, family } : await resolveChecked(host, options.allowLoopback);
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
    req.on('error', (err) => resolve({ error: failureWords(err, options.timeoutMs), durationMs: took() }));
    req.end(body);
  });
}

import { afterEach } from 'vitest';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { bounds, until } from './eventually.ts';

/** One request a receiver got: its id, whether its signature verified, the parsed body, when. */
export interface Received {
  id: string;
  verified: boolean;
  body: any;
  at: number;
  status: number;
}

export interface Receiver {
  url: string;
  /** Every request, in arrival order (retries included). */
  requests: Received[];
  /** The requests answered 2xx. */
  accepted(): Received[];
  /** The secret signatures are checked with (set after the webhook is created). */
  secret: string;
  /** How to answer: a status per request, after a delay or once `until` settles, if given. */
  respond: (req: Received) => { status: number; delayMs?: number; until?: Promise<unknown> };
  close(): Promise<void>;
}

/**
 * A local webhook receiver that verifies every request's signature with the `standardwebhooks`
 * package, the published library receivers use, and records what it got.
 */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const receiver: Receiver = {
    url: '',
    requests: [],
    accepted: () => receiver.requests.filter((r) => r.status >= 200 && r.status < 300 && r.verified),
    secret: '',
    respond: () => ({ status: 204 }),
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const headers = req.headers as IncomingHttpHeaders & Record<string, string>;
      let verified = false;
      let body: unknown;
      try {
        body = new Webhook(receiver.secret).verify(raw, headers);
        verified = true;
      } catch {
        body = JSON.parse(raw || 'null');
      }
      const entry: Received = { id: String(headers['webhook-id']), verified, body, at: Date.now(), status: 0 };
      const { status, delayMs, until } = receiver.respond(entry);
      entry.status = status;
      const answer = () => {
        receiver.requests.push({ ...entry, at: Date.now() });
        res.writeHead(status).end();
      };
      if (until) void until.then(answer);
      else setTimeout(answer, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://${host === '127.0.0.1' ? '127.0.0.1' : host}:${port}/hooks`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** Waits until what the receivers were sent satisfies `check` (test/support/eventually.ts). */
export async function waitFor(check: () => boolean, boundMs: number = bounds.changeFeed, what = 'condition'): Promise<void> {
  await until(what, check, boundMs);
}

/** Starts receivers for a file's tests (`start()`), each closed after the test that started it. */
export function useReceivers(): { start: () => Promise<Receiver> } {
  const started: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.close()));
  });
  return {
    start: async () => {
      const r = await startReceiver();
      started.push(r);
      return r;
    },
  };
}

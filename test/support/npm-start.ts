import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

/** `npm start` as a user runs it, with its output captured. */
export interface Service {
  proc: ChildProcess;
  output: () => string;
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();
afterAll(() => {
  for (const proc of running) proc.kill('SIGKILL');
});

/**
 * Runs `npm start` in the repository with `env` over the worker's environment (less its DynamoDB
 * settings and log level, unless given). Killed when the test file ends, if still running.
 */
export function npmStart(env: Record<string, string | undefined>): Service {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  // The test worker's own DynamoDB settings must not leak into the service unless asked for.
  if (!('DYNAMODB_ENDPOINT' in env)) delete childEnv.DYNAMODB_ENDPOINT;
  if (!('TABLE_NAME' in env)) delete childEnv.TABLE_NAME;
  if (!('HOST' in env)) delete childEnv.HOST;
  // Its own address is its own (a gateway of the test file set the worker's).
  if (!('PUBLIC_URL' in env)) delete childEnv.PUBLIC_URL;
  if (!('MCP_ALLOWED_HOSTS' in env)) delete childEnv.MCP_ALLOWED_HOSTS;
  delete childEnv.POWERTOOLS_LOG_LEVEL;
  const proc = spawn('npm', ['start'], { cwd: repoRoot, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  let out = '';
  proc.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  proc.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    proc.once('exit', (code) => {
      running.delete(proc);
      resolve(code);
    }),
  );
  return {
    proc,
    output: () => out,
    exited,
    async waitFor(pattern, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const m = pattern.exec(out);
        if (m) return m;
        if (proc.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`npm start never printed ${pattern}; it printed:\n${out}`);
    },
  };
}

/** Sends SIGTERM and waits for the exit code. */
export async function stop(service: Service): Promise<number | null> {
  service.proc.kill('SIGTERM');
  return service.exited;
}

/** The line `npm start` prints once it serves; group 1 is the base URL. */
export const READY = /Sprint Ticketing Service on (http:\/\/localhost:\d+)\/api\/v1/;

import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';

const run = promisify(execFile);

/** Loads lib/config.ts in a fresh Node process with exactly `env` (plus PATH) and prints the table name. */
async function loadConfig(env: Record<string, string>) {
  const script = `import('${resolve(repoRoot, 'lib/config.ts')}').then((m) => console.log(m.config.tableName))`;
  return run(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
}

describe('configuration', () => {
  it('fails the cold start on Lambda when TABLE_NAME is missing', async () => {
    const failed = await loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'getProject' }).catch((err: { stderr: string }) => err);
    expect(failed).toHaveProperty('stderr');
    expect((failed as { stderr: string }).stderr).toContain('TABLE_NAME must be set');
  });

  it('reads TABLE_NAME on Lambda, and defaults it locally', async () => {
    const onLambda = await loadConfig({ AWS_LAMBDA_FUNCTION_NAME: 'getProject', TABLE_NAME: 'prod-table' });
    expect(onLambda.stdout.trim()).toBe('prod-table');
    const local = await loadConfig({});
    expect(local.stdout.trim()).toBe('sprint-ticketing');
  });
});

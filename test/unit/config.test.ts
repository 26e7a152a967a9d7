import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/paths.ts';
import { ConfigurationError, readConfig } from '../../lib/config.ts';
import { errorResponse, misconfiguration } from '../../lib/http/errors.ts';

const run = promisify(execFile);
const moduleUrl = (path: string) => pathToFileURL(resolve(repoRoot, path)).href;

/** Runs `script` (an ES module) in a fresh Node process with exactly `env` (plus PATH). */
async function runScript(script: string, env: Record<string, string>) {
  return run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 120_000,
  });
}

describe('configuration', () => {
  it('is read on first use: every function loads on Lambda without TABLE_NAME, and the first call names what is missing', async () => {
    const script = `
      import { readFileSync } from 'node:fs';
      const { allFunctionEntries } = await import('${moduleUrl('infra/functions.ts')}');
      const { routes } = await import('${moduleUrl('lib/routes.ts')}');
      const entries = allFunctionEntries(routes);
      for (const entry of entries) await import('${pathToFileURL(repoRoot).href}/' + entry);
      console.log('loaded ' + entries.length);
      const { handler } = await import('${moduleUrl('functions/authorizer.ts')}');
      const event = JSON.parse(readFileSync('events/authorizer.json', 'utf8'));
      event.headers.Authorization = 'Bearer stk_' + 'a'.repeat(43);
      const context = { functionName: 'authorizer', awsRequestId: 'r', getRemainingTimeInMillis: () => 1000 };
      await handler({ ...event, type: 'REQUEST', methodArn: 'arn:aws:execute-api:x' }, context).then(
        () => console.log('first call: answered'),
        (err) => console.log('first call: ' + err.name + ': ' + err.message),
      );`;
    const { stdout } = await runScript(script, { AWS_LAMBDA_FUNCTION_NAME: 'authorizer', POWERTOOLS_LOG_LEVEL: 'SILENT' });
    expect(stdout).toMatch(/^loaded \d{2,}$/m);
    expect(stdout).toContain("first call: ConfigurationError: TABLE_NAME must be set in the function's environment");
  }, 120_000);

  it('reads TABLE_NAME on Lambda, and defaults it locally', () => {
    expect(readConfig({ TABLE_NAME: 'prod-table' }, true).tableName).toBe('prod-table');
    expect(readConfig({}, false).tableName).toBe('sprint-ticketing');
    expect(() => readConfig({}, true)).toThrow(ConfigurationError);
    expect(() => readConfig({ TABLE_NAME: '' }, true)).toThrow(/TABLE_NAME must be set/);
  });

  it('never allows loopback webhooks or a local secret key on Lambda', () => {
    const env = { TABLE_NAME: 't', WEBHOOK_ALLOW_LOOPBACK: '1', WEBHOOK_SECRET_LOCAL_KEY: 'a2V5' };
    expect(readConfig(env, false).webhooks.allowLoopback).toBe(true);
    expect(readConfig(env, false).webhookSecrets.localKey).toBe('a2V5');
    expect(readConfig(env, true).webhooks.allowLoopback).toBe(false);
    expect(readConfig(env, true).webhookSecrets.localKey).toBeUndefined();
  });
});

describe('a service that cannot run as configured', () => {
  it('answers 500 naming what is missing, never "busy"', () => {
    const answer = errorResponse(new ConfigurationError("TABLE_NAME must be set in the function's environment"));
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body)).toEqual({
      error: "The service is misconfigured: TABLE_NAME must be set in the function's environment",
    });
  });

  it('names missing AWS credentials and a missing region, and nothing else', () => {
    const credentials = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    expect(misconfiguration(credentials)).toMatch(/no AWS credentials.*DYNAMODB_ENDPOINT/);
    expect(errorResponse(credentials).statusCode).toBe(500);
    expect(misconfiguration(new Error('Region is missing'))).toMatch(/no AWS region.*AWS_REGION/);
    expect(misconfiguration(new Error('boom'))).toBeUndefined();
    expect(misconfiguration(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }))).toBeUndefined();
  });
});

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { db } from '../../lib/db/core/client.ts';
import { invoke, resolveTarget } from '../../tools/local/invoke.ts';
import { repoRoot } from '../../infra/paths.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation } from '../support/api.ts';

const run = promisify(execFile);

/**
 * `npm run invoke`, exactly as docs/local-development.md shows it: the DynamoDB Local of
 * `DYNAMODB_PORT` (here the suite's), no DYNAMODB_ENDPOINT, a real token.
 */
async function npmInvoke(args: string[], env: Record<string, string> = {}) {
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DYNAMODB_PORT: new URL(inject('dynamodbEndpoint')).port,
    TABLE_NAME: inject('tableName'),
    DATA_DIR: mkdtempSync(join(tmpdir(), 'invoke-')),
    ...env,
  };
  delete childEnv.DYNAMODB_ENDPOINT;
  delete childEnv.PUBLIC_URL;
  delete childEnv.POWERTOOLS_LOG_LEVEL;
  const { stdout, stderr } = await run('npm', ['run', '-s', 'invoke', '--', ...args], {
    cwd: repoRoot,
    env: childEnv,
    timeout: 120_000,
  });
  return { result: JSON.parse(stdout) as { statusCode: number; body: string }, stderr };
}

describe('npm run invoke, as documented', () => {
  it('runs a write and then a read of the sample events on the DynamoDB Local of DYNAMODB_PORT, after the README’s first requests', async () => {
    const org = await newOrganisation();
    // The README's first project, as its curl line creates it: project 1.
    const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
    const readmeBody = /-X POST \$API\/projects -H[^\n]*\\\n\s*-d '([^']+)'/.exec(readme)?.[1];
    const readmeProject = (JSON.parse(readmeBody!) as { project: { name: string; prefix: string } }).project;
    const admin: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    expect(await createProject(admin, readmeProject)).toMatchObject({ id: 1, ...readmeProject });

    // The sample's project is another: created beside it, as project 2.
    const created = await npmInvoke(['createProject', '--token', org.admin.token]);
    expect(created.result.statusCode, created.result.body).toBe(201);
    const project = JSON.parse(created.result.body) as { id: number; name: string; prefix: string };
    expect(project).toMatchObject({ id: 2, name: 'Gemini', prefix: 'GEM' });
    expect(created.stderr).toMatch(
      /^POST \/api\/v1\/projects: 201 in \d+ ms; DynamoDB calls: authorizer 1 \(UpdateItemCommand\), handler \d+/m,
    );

    // events/getProject.json names project 1: here the README's, in this organisation.
    const read = await npmInvoke(['getProject', 'events/getProject.json'], { API_TOKEN: org.admin.token });
    expect(read.result.statusCode, read.stderr).toBe(200);
    expect(JSON.parse(read.result.body)).toMatchObject({ id: 1, ...readmeProject });
    expect(read.stderr).toMatch(/^GET \/api\/v1\/projects\/\{project_id\}: 200 in \d+ ms/m);
  }, 240_000);

  it("answers a refused token with API Gateway's 401, and never reaches the handler", async () => {
    const { result, stderr } = await npmInvoke(['getMe', '--token', `stk_${'x'.repeat(43)}`]);
    expect(result.statusCode).toBe(401);
    expect(stderr).toMatch(/DynamoDB calls: authorizer 1 \(UpdateItemCommand\), handler 0/);
  }, 120_000);
});

describe('invoke, when the service cannot reach DynamoDB as configured', () => {
  afterEach(() => vi.restoreAllMocks());

  it('says what is missing (500), not "busy" (503)', async () => {
    const missing = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    vi.spyOn(db, 'send').mockRejectedValue(missing as never);
    const route = resolveTarget('getMe');
    expect(route?.kind).toBe('route');
    const event = JSON.parse(readFileSync(join(repoRoot, 'events/getMe.json'), 'utf8')) as unknown;
    const invocation = await invoke(route!, event, { token: `stk_${'a'.repeat(43)}` });
    expect(invocation.status).toBe(500);
    const body = JSON.parse((invocation.result as { body: string }).body) as { error: string };
    expect(body.error).toMatch(/misconfigured: no AWS credentials.*DYNAMODB_ENDPOINT/);
  });
});

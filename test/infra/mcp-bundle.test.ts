import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bundle, buildBundle } from '../../tools/bench/bundles.ts';
import { createGateway } from '../../tools/local/gateway.ts';
import { routes } from '../../lib/routes.ts';
import { repoRoot } from '../../infra/paths.ts';
import { fetchOnce, newOrganisation, randomPrefix } from '../support/api.ts';
import { mcpClient, type McpTestClient } from '../support/mcp.ts';

/**
 * The `/mcp` bundle is not the code the e2e suites run: its build replaces modules (infra/bundling.ts:
 * the MCP SDK's ajv and zod 3 support, the DynamoDB client's index) and it loads the MCP server
 * lazily. Here the bundle, built exactly as the stack builds it, serves the official MCP client
 * through the local gateway, beside the handler run from source.
 */
const MCP_ENTRY = 'functions/mcp.ts';
const outRoot = mkdtempSync(join(tmpdir(), 'mcp-bundle-test-'));
let bundle: Bundle;
const gateways: { baseUrl: string; close: () => Promise<void> }[] = [];
let fromSource: McpTestClient;
let fromBundle: McpTestClient;
let bundleUrl: string;
let token: string;

async function gatewayWith(mcpHandler: string) {
  const server = createGateway({ routes: routes.map((r) => (r.handler === MCP_ENTRY ? { ...r, handler: mcpHandler } : r)) });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const gateway = {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  gateways.push(gateway);
  return gateway.baseUrl;
}

beforeAll(async () => {
  bundle = await buildBundle(MCP_ENTRY, outRoot);
  bundleUrl = await gatewayWith(bundle.file);
  const sourceUrl = await gatewayWith(MCP_ENTRY);
  token = (await newOrganisation()).admin.token;
  fromBundle = await mcpClient(bundleUrl, token);
  fromSource = await mcpClient(sourceUrl, token);
}, 120_000);

afterAll(async () => {
  await Promise.all([fromBundle?.close(), fromSource?.close()]);
  await Promise.all(gateways.map((g) => g.close()));
  rmSync(outRoot, { recursive: true, force: true });
});

describe('the /mcp bundle', () => {
  it('leaves out what /mcp never runs: ajv, zod 3, the idempotency middleware, unused DynamoDB commands', () => {
    // The source maps (the entry's and its chunks') name every module that put code into the bundle.
    const dir = dirname(bundle.file);
    const maps = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(2);
    const sources = maps.flatMap((m) => (JSON.parse(readFileSync(join(dir, m), 'utf8')) as { sources: string[] }).sources);
    const absent = [
      /node_modules\/(ajv|ajv-formats|fast-uri|zod-to-json-schema)\//,
      /node_modules\/zod\/v3\//,
      /@aws-lambda-powertools\/(idempotency|jmespath)\//,
      /lib\/http\/idempotency\.ts$/,
      /client-dynamodb\/dist-es\/(DynamoDB\.js|waiters\/|pagination\/)/,
    ];
    for (const pattern of absent)
      expect(
        sources.filter((s) => pattern.test(s)),
        String(pattern),
      ).toEqual([]);
    expect(sources.some((s) => s.endsWith('lib/mcp/server.ts'))).toBe(true);
  });

  it('lists the same tools, with the same JSON schemas, as the handler run from source', async () => {
    expect(fromBundle.client.getServerVersion()).toEqual(fromSource.client.getServerVersion());
    expect(fromBundle.client.getInstructions()).toBe(fromSource.client.getInstructions());
    const listed = await fromBundle.client.listTools();
    expect(listed.tools.length).toBeGreaterThan(20);
    expect(listed).toEqual(await fromSource.client.listTools());
  });

  it('runs tools against DynamoDB: creates, finds by number, comments, lists, updates and deletes', async () => {
    const prefix = randomPrefix();
    const { project } = await fromBundle.ok('create_project', { name: 'Apollo', prefix });
    expect(project).toMatchObject({ name: 'Apollo', prefix });
    const { issue } = await fromBundle.ok('create_issue', { project_id: project.id, title: 'First step' });
    expect(issue).toMatchObject({ project_id: project.id, sprint_id: null, issue_number: `${prefix}-1` });
    expect((await fromBundle.ok('get_issue', { issue_number: `${prefix}-1` })).issue).toEqual(issue);
    await fromBundle.ok('add_comment', { issue_number: `${prefix}-1`, body: 'On it' });
    expect((await fromBundle.ok('list_comments', { issue_number: `${prefix}-1` })).comments).toHaveLength(1);
    expect((await fromBundle.ok('get_workspace')).projects).toContainEqual(expect.objectContaining({ id: project.id, prefix }));
    expect((await fromBundle.ok('update_project', { project_id: project.id, name: 'Artemis' })).project.name).toBe('Artemis');
    await fromBundle.ok('delete_project', { project_id: project.id });
    // The handler run from source sees the same data.
    expect(await fromSource.error('get_project', { project_id: project.id })).toBe(
      await fromBundle.error('get_project', { project_id: project.id }),
    );
  });

  it('refuses invalid arguments with the same messages as the handler run from source', async () => {
    for (const [name, args] of [
      ['create_project', { name: '', prefix: 'lower case' }],
      ['get_issue', { issue_number: 'not-a-number' }],
      ['list_accounts', { limit: 1000 }],
    ] as const) {
      const message = await fromBundle.error(name, args);
      expect(message, name).toBe(await fromSource.error(name, args));
    }
  });

  it('answers GET with 405 JSON', async () => {
    const res = await fetchOnce(`${bundleUrl}/mcp`, {
      headers: { Accept: 'text/event-stream', Authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ error: expect.stringContaining('POST') });
  });
});

describe('bundle shims (infra/shims)', () => {
  it("import a package's internal modules only where package.json pins that package to an exact version", async () => {
    const { readFile } = await import('node:fs/promises');
    const { aliasFor, functionAlias } = await import('../../infra/bundling.ts');
    const { dependencies } = JSON.parse(await readFile(resolve(repoRoot, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const shims = new Set(Object.keys(functionAlias).flatMap((entry) => Object.values(aliasFor(entry))));
    const unpinned: string[] = [];
    for (const shim of shims) {
      const source = await readFile(resolve(repoRoot, shim), 'utf8');
      for (const [, pkg] of source.matchAll(/node_modules\/((?:@[\w.-]+\/)?[\w.-]+)\//g)) {
        if (!/^\d+\.\d+\.\d+$/.test(dependencies[pkg!] ?? '')) unpinned.push(`${shim}: ${pkg} ${dependencies[pkg!]}`);
      }
    }
    expect(unpinned).toEqual([]);
  });
});

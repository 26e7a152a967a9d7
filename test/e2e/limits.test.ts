/**
 * AWS's size limits, which DynamoDB Local and a plain HTTP server do not have, kept by the service:
 * pages within the response byte budget, 6 MB request bodies refused as 413, forged cursors and
 * cross-organisation deletes refused cleanly (docs/limits.md).
 */
import { describe, expect, it } from 'vitest';
import { collections } from '../../lib/db/core/keys.ts';
import { LAMBDA_RESPONSE_LIMIT, RESPONSE_BYTE_BUDGET, embeddedBytes } from '../../lib/http/byte-budget.ts';
import { limits } from '../../lib/schemas/common.ts';
import {
  apiClient,
  newOrganisation,
  orgWithClients,
  randomPrefix,
  useGateway,
  type ApiClient,
  type ApiResponse,
} from '../support/api.ts';
import { mcpClient } from '../support/mcp.ts';

const gateway = useGateway();

/**
 * The longest text a field takes, of the widest character it accepts once serialised: `"`, which
 * JSON escapes to 2 bytes and Lambda's result envelope to 4 (control characters, which would escape
 * wider, are refused as input).
 */
const widest = (length: number) => '"'.repeat(length);

async function sprintFixture(client: ApiClient) {
  const project = (await client.post('/api/v1/projects', { project: { name: 'Big', prefix: randomPrefix() } })).body;
  const sprint = (await client.post(`/api/v1/projects/${project.id}/sprints`, { sprint: { name: 'Sprint 1' } })).body;
  return { project, sprint, issuesPath: `/api/v1/projects/${project.id}/sprints/${sprint.id}/issues` };
}

/** The `next` link's path and query, if any. */
function nextOf(res: ApiResponse): string | undefined {
  const m = /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '');
  return m ? new URL(m[1] as string).pathname + new URL(m[1] as string).search : undefined;
}

/** Follows `next` from `first` to the end; every page must be within the budget. */
async function walk(client: ApiClient, first: string) {
  const perPage = Number(new URL(first, 'http://x').searchParams.get('per_page') ?? 25);
  const pages: ApiResponse[] = [];
  for (let path: string | undefined = first; path; path = nextOf(pages.at(-1) as ApiResponse)) {
    const res = await client.get(path);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(embeddedBytes(res.text)).toBeLessThanOrEqual(RESPONSE_BYTE_BUDGET);
    // A page cut short by the budget says how many it holds; a full or last page says per_page.
    if (nextOf(res) && res.body.length < perPage) expect(Number(res.headers.get('x-per-page'))).toBe(res.body.length);
    else expect(Number(res.headers.get('x-per-page'))).toBe(perPage);
    pages.push(res);
    expect(pages.length).toBeLessThan(30);
  }
  return pages;
}

describe('the response byte budget', () => {
  it('stops a page of maximal issues before 6 MB, says so in X-Per-Page, and reaches the rest through next', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    const ids: number[] = [];
    for (let i = 0; i < 17; i++) {
      const res = await admin.post(f.issuesPath, {
        issue: { title: widest(limits.name), description: widest(limits.description) },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }

    const pages = await walk(admin, f.issuesPath);

    // Without the budget the default page (25) would hold all 17: over Lambda's limit.
    expect(pages[0]?.body.length).toBeLessThan(17);
    expect(pages.reduce((n, p) => n + embeddedBytes(p.text), 0)).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT);
    expect(pages.flatMap((p) => p.body.map((i: { id: number }) => i.id))).toEqual(ids);
    expect(pages[0]?.headers.get('x-total-count')).toBe('17');
  });

  it('keeps page=N without a cursor on per_page offsets, while a short page continues through its cursor', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    const ids: number[] = [];
    for (let i = 0; i < 16; i++) {
      ids.push((await admin.post(f.issuesPath, { issue: { title: `#${i}`, description: widest(limits.description) } })).body.id);
    }

    const first = await admin.get(`${f.issuesPath}?per_page=15`);
    const second = await admin.get(`${f.issuesPath}?per_page=15&page=2`);
    const continued = await walk(admin, nextOf(first) as string);

    expect(first.body.length).toBeLessThan(15);
    expect(first.headers.get('link')).toContain('rel="last"');
    expect(second.body.map((i: { id: number }) => i.id)).toEqual(ids.slice(15));
    expect([...first.body, ...continued.flatMap((p) => p.body)].map((i: { id: number }) => i.id)).toEqual(ids);
  });

  it('stops a page of maximal comments before 6 MB and reaches the rest through next', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    const issue = (await admin.post(f.issuesPath, { issue: { title: 'Chatty' } })).body;
    const commentsPath = `${f.issuesPath}/${issue.id}/comments`;
    const ids: number[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await admin.post(commentsPath, { comment: { body: widest(limits.commentBody) } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }

    const pages = await walk(admin, commentsPath);

    expect(pages.length).toBeGreaterThan(1);
    expect(pages.reduce((n, p) => n + embeddedBytes(p.text), 0)).toBeGreaterThan(LAMBDA_RESPONSE_LIMIT);
    expect(pages.flatMap((p) => p.body.map((c: { id: number }) => c.id))).toEqual(ids);
  });

  it('stops an MCP list call within the budget though each item goes back twice, and next_cursor reaches the rest', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push((await admin.post(f.issuesPath, { issue: { title: `#${i}`, description: widest(limits.description) } })).body.id);
    }
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    try {
      const seen: number[] = [];
      const sizes: number[] = [];
      let cursor: string | null = null;
      do {
        const step: { issues: { id: number }[]; next_cursor: string | null } = await mcp.ok('list_issues', {
          project_id: f.project.id,
          sprint_id: f.sprint.id,
          limit: 100,
          ...(cursor ? { cursor } : {}),
        });
        sizes.push(step.issues.length);
        seen.push(...step.issues.map((i) => i.id));
        cursor = step.next_cursor;
      } while (cursor && sizes.length < 10);

      expect(sizes[0]).toBeLessThan(6);
      expect(seen).toEqual(ids);
    } finally {
      await mcp.close();
    }
  });
});

describe('request bodies past Lambda and API Gateway limits', () => {
  it('answers 413 {error} to a body between 6 and 10 MB, as API Gateway does when the Lambda payload is too large', async () => {
    const { admin } = await orgWithClients(gateway);
    const raw = JSON.stringify({ project: { name: 'x', prefix: 'ABC', description: 'y'.repeat(7 * 1024 * 1024) } });

    const res = await admin.post('/api/v1/projects', undefined, { raw, headers: { 'Content-Type': 'application/json' } });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect((await admin.get('/api/v1/projects')).body).toEqual([]);
  });

  it('answers 413 {error} to a body over 10 MB', async () => {
    const { admin } = await orgWithClients(gateway);
    const raw = 'z'.repeat(11 * 1024 * 1024);

    const res = await admin.post('/api/v1/projects', undefined, { raw, headers: { 'Content-Type': 'application/json' } });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.any(String) });
  });
});

describe('long texts counted in bytes', () => {
  it('refuses 422 a description or comment past 150,000 bytes of UTF-8 (DynamoDB counts the item twice with its LSI1 entry), and stores one at the limit', async () => {
    const { admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    const atLimit = '€'.repeat(limits.textBytes / 3);
    const over = '€'.repeat(limits.description);

    const tooLong = await admin.post(f.issuesPath, { issue: { title: 'Euro', description: over } });
    const stored = await admin.post(f.issuesPath, { issue: { title: 'Euro', description: atLimit } });
    const comments = `${f.issuesPath}/${stored.body.id}/comments`;
    const longComment = await admin.post(comments, { comment: { body: '€'.repeat(limits.commentBody) } });
    const comment = await admin.post(comments, { comment: { body: atLimit } });
    const sprint = await admin.patch(`/api/v1/projects/${f.project.id}/sprints/${f.sprint.id}`, {
      sprint: { description: over },
    });
    const project = await admin.patch(`/api/v1/projects/${f.project.id}`, { project: { description: atLimit } });

    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors).toEqual(['description is too long (maximum is 150,000 bytes of UTF-8)']);
    expect(stored.status).toBe(201);
    expect(stored.body.description).toBe(atLimit);
    expect(longComment.status).toBe(422);
    expect(comment.status).toBe(201);
    expect(sprint.status).toBe(422);
    expect(project.status).toBe(200);
  });
});

describe('clean refusals', () => {
  /** A cursor shaped like the service's own, for the right collection, with an oversized key. */
  const forged = (body: Record<string, string>) => Buffer.from(JSON.stringify(body)).toString('base64url');

  it('answers 422 {errors} to a forged cursor whose keys are oversized or malformed, never 500', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const f = await sprintFixture(admin);
    await admin.post(f.issuesPath, { issue: { title: 'one' } });
    const c = collections.sprintIssues(org.orgId, f.project.id, f.sprint.id);
    const cursors = [
      forged({ PK: c.pk, SK: `ISSUE#${'9'.repeat(1200)}`, LSK: `${c.prefix}0` }),
      forged({ PK: c.pk, SK: 'ISSUE#0000000001', LSK: `${c.prefix}${'9'.repeat(1200)}` }),
      forged({ PK: c.pk, SK: '', LSK: c.prefix }),
    ];
    for (const cursor of cursors) expect(cursor.length).toBeLessThanOrEqual(2048);

    for (const cursor of cursors) {
      const res = await admin.get(`${f.issuesPath}?cursor=${cursor}`);
      expect(res.status, res.text).toBe(422);
      expect(res.body).toEqual({ errors: [expect.any(String)] });
    }
    const mcp = await mcpClient(gateway.baseUrl, org.admin.token);
    try {
      const toolCursor = Buffer.from(JSON.stringify({ c: cursors[0], n: 0 })).toString('base64url');
      expect(await mcp.error('list_issues', { project_id: f.project.id, sprint_id: f.sprint.id, cursor: toolCursor })).toMatch(
        /^Validation failed: /,
      );
    } finally {
      await mcp.close();
    }
  });

  it("answers 404 to a member deleting another organisation's project or sprint, and 403 only for its own", async () => {
    const a = await orgWithClients(gateway);
    const f = await sprintFixture(a.admin);
    const other = await newOrganisation();
    const stranger = apiClient(gateway.baseUrl, other.member.token);

    const project = await stranger.delete(`/api/v1/projects/${f.project.id}`);
    const sprint = await stranger.delete(`/api/v1/projects/${f.project.id}/sprints/${f.sprint.id}`);

    expect(project.status).toBe(404);
    expect(project.body).toEqual({ error: expect.any(String) });
    expect(sprint.status).toBe(404);
    expect((await a.member.delete(`/api/v1/projects/${f.project.id}/sprints/${f.sprint.id}`)).status).toBe(403);
    expect((await a.member.delete(`/api/v1/projects/${f.project.id}/sprints/999999`)).status).toBe(404);
    expect((await a.member.delete(`/api/v1/projects/${f.project.id}`)).status).toBe(403);
    expect((await a.admin.get(`/api/v1/projects/${f.project.id}/sprints/${f.sprint.id}`)).status).toBe(200);
  });
});

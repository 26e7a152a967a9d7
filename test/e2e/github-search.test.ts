import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { searchRecordItem } from '../../lib/db/issues/issue-item.ts';
import { derivedDifferences, readDerivedState, rebuildIssueIndexes } from '../../lib/jobs/reindex.ts';
import { followPages, ok, useGateway, type ApiClient } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { example, from, githubHelpers, linksOf } from '../support/github.ts';

/**
 * Search by linked pull requests (`has:pr`, `pr:`; docs/search.md): a connected project whose issues
 * are named by pull requests in every state (GitHub's own example payloads,
 * `@octokit/webhooks-examples`, re-signed with the connection's secret), one of them moved from open
 * to merged, one issue named by a commit only. Once the stream consumer has written the links, each
 * query answers exactly the issues a brute-force reading of the links made says. A search record
 * that is not there (an issue from before the search index) leaves the links written, and
 * `issues:reindex` gives it its issue's counts, as it repairs counts that differ.
 */

const gateway = useGateway();
const { connected, deliver } = githubHelpers(gateway);

type PrState = 'open' | 'draft' | 'merged' | 'closed';

/** A pull request numbered `number`, naming `key` in its title, in `state` as of `at`. */
function pullRequest(repo: string, number: number, key: string, state: PrState, at: string) {
  const payload = from(example('pull_request', state === 'open' || state === 'draft' ? 'opened' : 'closed'), repo);
  Object.assign(payload.pull_request, {
    number,
    html_url: `https://github.com/${repo}/pull/${number}`,
    title: `Work on ${key}`,
    body: 'No key here.',
    head: { ...payload.pull_request.head, ref: `branch-${number}` },
    draft: state === 'draft',
    state: state === 'open' || state === 'draft' ? 'open' : 'closed',
    merged: state === 'merged',
    merged_at: state === 'merged' ? at : null,
    closed_at: state === 'merged' || state === 'closed' ? at : null,
    updated_at: at,
  });
  payload.action = state === 'open' || state === 'draft' ? 'opened' : 'closed';
  payload.number = number;
  return payload;
}

/** The keys of the issues a query answers, every page followed, sorted. */
const searched = async (client: ApiClient, q: string) =>
  (await followPages<{ issue_number: string }>(client, `/api/v1/issues?q=${encodeURIComponent(q)}&per_page=100`)).items
    .map((i) => i.issue_number)
    .sort();

describe('searching by linked pull requests', () => {
  it('has:pr, pr:<state> and their negations answer exactly the issues the links say', async () => {
    const { admin, project, repo, connection, one, two } = await connected();
    const more = [];
    for (const title of ['Three', 'Four', 'Five', 'Six', 'Seven', 'Eight']) {
      more.push(await ok(admin.post(`/api/v1/projects/${project.id}/issues`, { issue: { title } })));
    }
    const [three, four, five, six, seven, eight] = more;
    const keys: string[] = [one, two, ...more].map((i) => i.issue_number);

    // The pull requests each issue ends with, by number: what the brute force reads.
    const prs: { number: number; key: string; state: PrState }[] = [
      { number: 101, key: one.issue_number, state: 'open' },
      { number: 102, key: two.issue_number, state: 'draft' },
      { number: 103, key: three.issue_number, state: 'merged' },
      { number: 104, key: four.issue_number, state: 'closed' },
      { number: 105, key: five.issue_number, state: 'open' },
      { number: 106, key: five.issue_number, state: 'merged' },
      // Opened first, merged later: its count moves from open to merged.
      { number: 107, key: six.issue_number, state: 'merged' },
    ];
    // Seven is named by a commit only (a link, but no pull request); eight by nothing.
    const opened = pullRequest(repo, 107, six.issue_number, 'open', '2026-12-01T10:00:00Z');
    expect((await deliver('pull_request', opened, connection.secret)).body.status).toBe('accepted');
    await eventually(
      'the pull request opened',
      () => linksOf(admin, six.issue_number),
      (l: any[]) => l[0]?.state === 'open',
    );
    for (const pr of prs) {
      const payload = pullRequest(repo, pr.number, pr.key, pr.state, '2026-12-01T11:00:00Z');
      expect((await deliver('pull_request', payload, connection.secret)).body.status).toBe('accepted');
    }
    const push = from(example('push'), repo);
    push.ref = 'refs/heads/feature/x';
    push.commits = [
      {
        ...(example('push').commits[0] ?? {}),
        id: 'c'.repeat(40),
        url: 'https://github.com/c/c',
        message: `Touch ${seven.issue_number}`,
        timestamp: '2026-12-01T10:00:00Z',
        author: { name: 'Ada', username: 'ada' },
      },
    ];
    expect((await deliver('push', push, connection.secret)).body.status).toBe('accepted');

    // Every link written, in its last state, before the searches (a link and its counts are one write).
    const statesOf = (key: string) =>
      prs
        .filter((p) => p.key === key)
        .map((p) => p.state)
        .sort();
    for (const key of keys) {
      const want = statesOf(key);
      const commits = key === seven.issue_number ? 1 : 0;
      await eventually(
        `the links of ${key}`,
        () => linksOf(admin, key),
        (l: any[]) =>
          l.filter((x) => x.kind === 'commit').length === commits &&
          JSON.stringify(
            l
              .filter((x) => x.kind === 'pull_request')
              .map((x) => x.state)
              .sort(),
          ) === JSON.stringify(want),
      );
    }
    expect(statesOf(eight.issue_number)).toEqual([]);

    // The brute force: each query's issues from the pull requests made.
    const expected: Record<string, (states: PrState[]) => boolean> = {
      'has:pr': (s) => s.length > 0,
      '-has:pr': (s) => s.length === 0,
      'pr:open': (s) => s.includes('open'),
      'pr:draft': (s) => s.includes('draft'),
      'pr:merged': (s) => s.includes('merged'),
      'pr:closed': (s) => s.includes('closed'),
      'pr:open,draft': (s) => s.includes('open') || s.includes('draft'),
      '-pr:merged': (s) => !s.includes('merged'),
      'pr:open pr:merged': (s) => s.includes('open') && s.includes('merged'),
      'has:pr -pr:open': (s) => s.length > 0 && !s.includes('open'),
    };
    for (const [q, holds] of Object.entries(expected)) {
      const want = keys.filter((key) => holds(statesOf(key))).sort();
      expect(await searched(admin, q), q).toEqual(want);
    }
    // The same through the JSON form.
    const body = await ok(admin.post('/api/v1/issues/search', { and: [{ pr: { in: ['merged'] } }, { not: { has: 'pr' } }] }));
    expect(body).toEqual([]);
    const merged = await ok(admin.post('/api/v1/issues/search', { and: [{ pr: { in: ['merged'] } }], per_page: 100 }));
    expect(merged.map((i: any) => i.issue_number).sort()).toEqual([three, five, six].map((i) => i.issue_number).sort());
  });
});

describe('the search record keeps its issue’s counts of pull requests', () => {
  it('a record not there leaves the link written; issues:reindex fills it with the issue’s counts, and repairs counts that differ', async () => {
    const { org, admin, project, repo, connection, one, two } = await connected();
    const record = (issue: { id: number }) => keys.searchIssue(org.orgId, project.id, issue.id);
    // One's record gone, as an issue's from before the search index: searches skip it until a reindex.
    await db.send(new DeleteCommand({ TableName: tableName(), Key: record(one) }));
    const at = '2026-12-01T11:00:00Z';
    await deliver('pull_request', pullRequest(repo, 201, one.issue_number, 'open', at), connection.secret);
    await deliver('pull_request', pullRequest(repo, 202, two.issue_number, 'merged', at), connection.secret);
    for (const [issue, state] of [
      [one, 'open'],
      [two, 'merged'],
    ] as const) {
      await eventually(
        `the link of ${issue.issue_number}`,
        () => linksOf(admin, issue.issue_number),
        (l: any[]) => l[0]?.state === state,
      );
    }
    expect((await ok(admin.get(`/api/v1/issues/${one.issue_number}`))).links).toEqual({
      count: 1,
      pull_request_state: 'open',
      pull_requests: { open: 1, draft: 0, merged: 0, closed: 0 },
    });
    expect(await searched(admin, 'has:pr')).toEqual([two.issue_number]);

    const filled = await rebuildIssueIndexes(org.orgId);
    expect(filled.repaired.search_records).toBe(1);
    expect(await searched(admin, 'has:pr')).toEqual([one.issue_number, two.issue_number].sort());
    expect(await searched(admin, 'pr:open')).toEqual([one.issue_number]);
    expect(await searched(admin, 'pr:merged')).toEqual([two.issue_number]);

    // A count that differs from its issue's is a difference, and the reindex sets it back.
    await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: record(two),
        UpdateExpression: 'SET #merged = :none',
        ExpressionAttributeNames: { '#merged': searchRecordItem.stored('prsMerged') },
        ExpressionAttributeValues: { ':none': 0 },
      }),
    );
    expect(await searched(admin, 'pr:merged')).toEqual([]);
    expect(derivedDifferences(await readDerivedState(org.orgId))).toEqual([
      `search-pull-requests: search:${org.orgId}:${project.id}:${two.id} prsMerged is 0, its issue says 1`,
    ]);
    const repaired = await rebuildIssueIndexes(org.orgId);
    expect(repaired.repaired).toMatchObject({ search_counters: 1, search_records: 0 });
    expect(await searched(admin, 'pr:merged')).toEqual([two.issue_number]);
    expect(derivedDifferences(await readDerivedState(org.orgId))).toEqual([]);
    expect((await rebuildIssueIndexes(org.orgId)).summary).toMatch(/repaired: nothing$/);
  });
});

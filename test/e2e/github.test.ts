import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { githubSignature } from '../../lib/model/github.ts';
import { ok, randomPrefix, useGateway } from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { example, from, githubHelpers, linksOf, pullRequestOf } from '../support/github.ts';

/**
 * GitHub (docs/github.md), driven with GitHub's own example payloads (`@octokit/webhooks-examples`),
 * re-signed with the connection's secret: a connection and its secret, the receiver's signature
 * check (nothing written without it), replays, unknown repositories, links from a pull request's
 * title, body and branch and from pushed commits, events out of order, and the status automation.
 */

const gateway = useGateway();
const { connected, deliver } = githubHelpers(gateway);

const until = <T>(what: string, read: () => Promise<T>, done: (v: T) => boolean) => eventually(what, read, done);

describe('connecting a repository', () => {
  it('answers the secret once, the payload URL and the events; admins only; one project per repository', async () => {
    const { admin, member, project, repo, connection } = await connected();
    expect(connection).toMatchObject({
      project_id: project.id,
      repository_owner: repo.split('/')[0],
      repository_name: 'hello-world',
      content_type: 'application/json',
      events: ['pull_request', 'push', 'create', 'delete'],
      automation: { enabled: false, on_open: null, on_merge: null, merge_needs_closing_word: true },
    });
    expect(connection.payload_url).toMatch(/\/api\/v1\/integrations\/github$/);
    expect(connection.secret).toMatch(/^[0-9a-f]{64}$/);
    const read = await ok(admin.get(`/api/v1/projects/${project.id}/github`));
    expect(read.secret).toBeUndefined();
    expect(await ok(admin.get(`/api/v1/projects/${project.id}`))).toMatchObject({
      github_repo_owner: repo.split('/')[0],
      github_repo_name: 'hello-world',
    });
    expect((await member.get(`/api/v1/projects/${project.id}/github`)).status).toBe(403);
    const again = await ok(
      admin.put(`/api/v1/projects/${project.id}/github`, { github: { repository: repo, automation: { enabled: true } } }),
    );
    expect(again.secret).toBeUndefined();
    expect(again.automation.enabled).toBe(true);
    const other = await ok(admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } }));
    const taken = await admin.put(`/api/v1/projects/${other.id}/github`, { github: { repository: repo.toUpperCase() } });
    expect(taken.status).toBe(422);
    expect((await admin.put(`/api/v1/projects/${other.id}/github`, { github: { repository: 'not a repo' } })).status).toBe(422);
  });

  it('rotates the secret: deliveries signed with the old one are refused', async () => {
    const { admin, project, repo, connection } = await connected();
    const rotated = await ok(admin.post(`/api/v1/projects/${project.id}/github/secret`));
    expect(rotated.secret).not.toBe(connection.secret);
    expect((await deliver('ping', from(example('ping'), repo), connection.secret)).status).toBe(401);
    expect(await deliver('ping', from(example('ping'), repo), rotated.secret)).toEqual({ status: 202, body: { status: 'pong' } });
  });
});

describe('the receiver', () => {
  it('refuses a bad, missing or other project’s signature, writing nothing', async () => {
    const { admin, repo, connection, one } = await connected();
    const elsewhere = await connected();
    const pr = from(example('pull_request', 'opened'), repo);
    pr.pull_request.title = `Fixes ${one.issue_number}`;
    for (const signature of ['sha256=' + '0'.repeat(64), 'sha1=abc', undefined]) {
      const res = await deliver('pull_request', pr, null, randomUUID(), signature);
      expect(res.status).toBe(401);
    }
    expect((await deliver('pull_request', pr, elsewhere.connection.secret)).status).toBe(401);
    const tampered = await deliver('pull_request', pr, connection.secret, randomUUID(), githubSignature(connection.secret, '{}'));
    expect(tampered.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(await linksOf(admin, one.issue_number)).toEqual([]);
  });

  it('ignores an unknown repository and events it does not follow; a redelivery changes nothing', async () => {
    const { admin, repo, connection, one } = await connected();
    expect(await deliver('push', from(example('push'), 'nobody-here/none'), connection.secret)).toEqual({
      status: 202,
      body: { status: 'ignored' },
    });
    expect((await deliver('issues', from(example('pull_request', 'opened'), repo), connection.secret)).body.status).toBe(
      'ignored',
    );
    const pr = from(example('pull_request', 'opened'), repo);
    pr.pull_request.body = `Part of ${one.issue_number.toLowerCase()}.`;
    const id = randomUUID();
    expect((await deliver('pull_request', pr, connection.secret, id)).body.status).toBe('accepted');
    expect((await deliver('pull_request', pr, connection.secret, id)).body.status).toBe('duplicate');
    const links = await until(
      'the link',
      () => linksOf(admin, one.issue_number),
      (l) => l.length === 1,
    );
    expect(links[0]).toMatchObject({ kind: 'pull_request', ref: String(pr.pull_request.number), state: 'open', closing: false });
    expect(await ok(admin.get(`/api/v1/issues/${one.issue_number}`))).toMatchObject({
      links: { count: 1, pull_request_state: 'open' },
    });
  });

  it('links a pull request by its title, body and branch, and pushed commits by their messages', async () => {
    const { admin, repo, connection, one, two } = await connected();
    const pr = from(example('pull_request', 'opened'), repo);
    pr.pull_request.head.ref = `feature/${one.issue_number}-login`;
    pr.pull_request.title = 'Login page';
    await deliver('pull_request', pr, connection.secret);
    const push = from(example('push'), repo);
    push.ref = 'refs/heads/feature/x';
    push.commits = [
      {
        ...(example('push').commits[0] ?? {}),
        id: 'a'.repeat(40),
        url: 'https://github.com/c/a',
        message: `Wire ${two.issue_number}\n\nmore`,
        timestamp: '2026-12-01T10:00:00Z',
        author: { name: 'Ada', username: 'ada' },
      },
    ];
    await deliver('push', push, connection.secret);
    await until(
      'the branch link',
      () => linksOf(admin, one.issue_number),
      (l) => l.length === 1,
    );
    const commits = await until(
      'the commit link',
      () => linksOf(admin, two.issue_number),
      (l) => l.length === 1,
    );
    expect(commits[0]).toMatchObject({
      kind: 'commit',
      ref: 'a'.repeat(40),
      title: `Wire ${two.issue_number}`,
      author: 'ada',
      state: 'open',
    });
  });

  it('ends in the right state when a close arrives before its open', async () => {
    const { admin, repo, connection, one } = await connected();
    const opened = from(example('pull_request', 'opened'), repo);
    opened.pull_request.title = `Fixes ${one.issue_number}`;
    opened.pull_request.updated_at = '2026-12-01T10:00:00Z';
    const closed = structuredClone(opened);
    closed.action = 'closed';
    Object.assign(closed.pull_request, {
      state: 'closed',
      merged: true,
      merged_at: '2026-12-01T11:00:00Z',
      closed_at: '2026-12-01T11:00:00Z',
      updated_at: '2026-12-01T11:00:00Z',
    });
    await deliver('pull_request', closed, connection.secret);
    await until(
      'the merged link',
      () => linksOf(admin, one.issue_number),
      (l) => l[0]?.state === 'merged',
    );
    await deliver('pull_request', opened, connection.secret);
    await new Promise((r) => setTimeout(r, 1500));
    const [link] = await linksOf(admin, one.issue_number);
    expect(link.state).toBe('merged');
    expect((await ok(admin.get(`/api/v1/issues/${one.issue_number}`))).links).toEqual({
      count: 1,
      pull_request_state: 'merged',
      pull_requests: { open: 0, draft: 0, merged: 1, closed: 0 },
    });
  });
});

describe('status automation', () => {
  it('starts an issue when a linked pull request opens, completes it on a merge that says Fixes, as the GitHub account', async () => {
    const { admin, repo, connection, one, two } = await connected({ enabled: true });
    const { opened, merged } = pullRequestOf(repo, `Fixes ${one.issue_number}, see ${two.issue_number}`);
    await deliver('pull_request', opened, connection.secret);
    await until(
      'the start',
      () => ok(admin.get(`/api/v1/issues/${one.issue_number}`)),
      (i) => i.status === 'in_progress',
    );
    await deliver('pull_request', merged, connection.secret);
    await until(
      'the completion',
      () => ok(admin.get(`/api/v1/issues/${one.issue_number}`)),
      (i) => i.status === 'done',
    );
    // A bare mention starts the issue, but its merge does not complete it.
    await until(
      'the link',
      () => linksOf(admin, two.issue_number),
      (l) => l[0]?.state === 'merged',
    );
    expect((await ok(admin.get(`/api/v1/issues/${two.issue_number}`))).status).toBe('in_progress');
    const activity = await until(
      'the activity',
      () => ok(admin.get(`/api/v1/issues/${one.issue_number}/activity`)),
      (a: any[]) => a.filter((e) => e.changes?.some((c: any) => c.field === 'status')).length >= 2,
    );
    const accounts = await ok(admin.get('/api/v1/accounts'));
    const github = accounts.find((a: any) => a.name === 'GitHub');
    expect(
      activity.filter((e: any) => e.changes?.some((c: any) => c.field === 'status')).every((e: any) => e.actor_id === github.id),
    ).toBe(true);
    const moves = activity.filter((e: any) => e.changes?.some((c: any) => c.field === 'status'));
    expect(moves.map((e: any) => e.via)).toEqual([opened.pull_request.html_url, opened.pull_request.html_url]);
    const [link] = await linksOf(admin, one.issue_number);
    expect(link.automation).toMatch(/^moved to done/);
  });

  it('never moves an issue back out of done, and records a move a rule refuses', async () => {
    const { admin, project, repo, connection, one, two } = await connected({ enabled: true });
    await ok(admin.patch(`/api/v1/issues/${one.issue_number}`, { issue: { status: 'done' } }));
    // A rule: In Progress needs an assignee; the second issue has none.
    const states = await ok(admin.get(`/api/v1/projects/${project.id}/states`));
    const started = (states.items ?? states).find((s: any) => s.category === 'in_progress');
    await ok(admin.patch(`/api/v1/projects/${project.id}/states/${started.id}`, { state: { required_fields: ['assignee_id'] } }));
    const opened = from(example('pull_request', 'opened'), repo);
    opened.pull_request.title = `Fixes ${one.issue_number} and ${two.issue_number}`;
    await deliver('pull_request', opened, connection.secret);
    const links = await until(
      'the link',
      () => linksOf(admin, one.issue_number),
      (l) => (l[0]?.automation ?? null) !== null,
    );
    expect(links[0].automation).toMatch(/^not moved/);
    expect((await ok(admin.get(`/api/v1/issues/${one.issue_number}`))).status).toBe('done');
    const refused = await until(
      'the refusal',
      () => linksOf(admin, two.issue_number),
      (l) => (l[0]?.automation ?? null) !== null,
    );
    expect(refused[0].automation).toMatch(/^not moved: .*assignee_id/);
    expect((await ok(admin.get(`/api/v1/issues/${two.issue_number}`))).status).toBe('backlog');
  });

  it('a disconnected repository’s deliveries are ignored', async () => {
    const { admin, project, repo, connection } = await connected();
    expect((await admin.delete(`/api/v1/projects/${project.id}/github`)).status).toBe(204);
    expect((await ok(admin.get(`/api/v1/projects/${project.id}`))).github_repo_owner).toBeNull();
    expect((await deliver('ping', from(example('ping'), repo), connection.secret)).body.status).toBe('ignored');
    expect((await admin.get(`/api/v1/projects/${project.id}/github`)).status).toBe(404);
  });
});

describe('more than one pull request, and rules', () => {
  it('links two pull requests to one issue: both listed, the summary follows the one that changed last', async () => {
    const { admin, repo, connection, one } = await connected();
    const first = from(example('pull_request', 'opened'), repo);
    first.pull_request.title = `Part one of ${one.issue_number}`;
    first.pull_request.updated_at = '2026-12-01T10:00:00Z';
    const second = structuredClone(first);
    second.pull_request.number = first.pull_request.number + 1;
    second.pull_request.html_url = `${first.pull_request.html_url.replace(/\/\d+$/, '')}/${second.pull_request.number}`;
    second.pull_request.title = `Part two of ${one.issue_number}`;
    Object.assign(second.pull_request, {
      state: 'closed',
      merged: true,
      merged_at: '2026-12-01T12:00:00Z',
      updated_at: '2026-12-01T12:00:00Z',
    });
    second.action = 'closed';
    // The later change first: the earlier one, arriving after it, moves the counts but not the state.
    await deliver('pull_request', second, connection.secret);
    await until(
      'the merged one',
      () => linksOf(admin, one.issue_number),
      (l) => l.length === 1,
    );
    await deliver('pull_request', first, connection.secret);
    const links = await until(
      'both links',
      () => linksOf(admin, one.issue_number),
      (l) => l.length === 2,
    );
    expect(links.map((l: any) => [l.ref, l.state])).toEqual([
      [String(second.pull_request.number), 'merged'],
      [String(first.pull_request.number), 'open'],
    ]);
    expect((await ok(admin.get(`/api/v1/issues/${one.issue_number}`))).links).toEqual({
      count: 2,
      pull_request_state: 'merged',
      pull_requests: { open: 1, draft: 0, merged: 1, closed: 0 },
    });
  });

  it('completes an issue through a transition rule that allows it', async () => {
    const { admin, project, repo, connection, one } = await connected({ enabled: true });
    const states = await ok(admin.get(`/api/v1/projects/${project.id}/states`));
    const list = states.items ?? states;
    const started = list.find((s: any) => s.category === 'in_progress');
    const done = list.find((s: any) => s.category === 'done');
    // From In Progress, only Done.
    await ok(
      admin.patch(`/api/v1/projects/${project.id}/states/${started.id}`, { state: { allowed_next_state_ids: [done.id] } }),
    );
    const { opened, merged } = pullRequestOf(repo, `Closes ${one.issue_number}`);
    await deliver('pull_request', opened, connection.secret);
    await until(
      'the start',
      () => ok(admin.get(`/api/v1/issues/${one.issue_number}`)),
      (i) => i.status === 'in_progress',
    );
    await deliver('pull_request', merged, connection.secret);
    await until(
      'the completion',
      () => ok(admin.get(`/api/v1/issues/${one.issue_number}`)),
      (i) => i.status === 'done',
    );
  });

  it('refuses a body over the gateway’s limit (413) before reading it, writing nothing', async () => {
    const { repo, connection } = await connected();
    const payload = from(example('push'), repo);
    payload.padding = 'x'.repeat(11 * 1024 * 1024);
    const res = await deliver('push', payload, connection.secret);
    expect(res.status).toBe(413);
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getRepository, issueLinks } from '../../lib/db/github/github.ts';
import { exportOrganisation } from '../../lib/services/import-export/export.ts';
import { handleDelivery } from '../../lib/services/github-events.ts';
import { storedPayload } from '../../lib/services/github-receiver.ts';
import { ok, randomPrefix, useGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';
import { example, from, githubHelpers, linksOf } from '../support/github.ts';
import { heldInTrash, restoreWhole } from '../support/trash.ts';

/**
 * A connected project in the trash (docs/trash.md, docs/github.md), driven with GitHub's own example
 * payloads (`@octokit/webhooks-examples`): while it is in the trash its repository stays connected
 * and its deliveries link nothing; restored, it is connected as it was and deliveries link again;
 * purged, its repository's item and its issues' links are gone, and the repository can be connected
 * to another project. An issue's purge takes its links with it.
 */

const gateway = useGateway();
const { connected, deliver } = githubHelpers(gateway);

/** A pull request of `repo` numbered `number`, opened, naming `key` in its title. */
function pullRequest(repo: string, number: number, key: string) {
  const pr = from(example('pull_request', 'opened'), repo);
  pr.number = number;
  pr.pull_request.number = number;
  pr.pull_request.html_url = `https://github.com/${repo}/pull/${number}`;
  pr.pull_request.title = `Work on ${key}`;
  pr.pull_request.head.ref = `feature/pr-${number}`;
  return pr;
}

/** Whom the repository's item names (never its sealed secret, which a failure would print). */
const connectedTo = async (repo: string) => {
  const found = await getRepository(repo);
  return found && { orgId: found.orgId, projectId: found.projectId };
};
const refsOf = (links: { ref: string }[]) => links.map((l) => l.ref).sort();

describe('a connected project in the trash', () => {
  it('stays connected, linking nothing; a restore links again; a purge frees its repository and takes its links', async () => {
    const { org, admin, project, repo, connection, one, two } = await connected();
    expect((await deliver('pull_request', pullRequest(repo, 101, one.issue_number), connection.secret)).body.status).toBe(
      'accepted',
    );
    await eventually(
      'the first link',
      () => linksOf(admin, one.issue_number),
      (l) => l.length === 1,
    );
    const before = await ok(admin.get(`/api/v1/projects/${project.id}/github`));

    // Into the trash: the repository stays connected to it, and nobody else may take it.
    expect((await admin.delete(`/api/v1/projects/${project.id}`)).status).toBe(204);
    await heldInTrash(admin, `project-${project.id}`);
    expect(await connectedTo(repo)).toMatchObject({ orgId: org.orgId, projectId: project.id });
    const other = await ok(admin.post('/api/v1/projects', { project: { name: 'Other', prefix: randomPrefix() } }));
    expect((await admin.put(`/api/v1/projects/${other.id}/github`, { github: { repository: repo } })).status).toBe(422);
    // An export with the trash carries its links and connection as what the trashed project holds.
    const held: Record<string, any>[] = [];
    for await (const line of exportOrganisation(org.orgId, new Date(), true)) held.push(JSON.parse(line));
    expect(held.filter((l) => l.kind === 'trash_content' && l.item_kind.startsWith('github_')).map((l) => l.item_kind)).toEqual([
      'github_link',
      'github_connection',
    ]);
    expect(held.some((l) => l.kind === 'github_link' || l.kind === 'github_connection')).toBe(false);
    // A delivery meanwhile is taken, and links nothing: worked on while the project is in the
    // trash, the consumer finds no project. (The run's consumer may work on its queued copy only
    // after the restore below, when linking is right: that copy's timing is not what is tested.)
    const payload = pullRequest(repo, 102, two.issue_number);
    const meanwhile = await deliver('pull_request', payload, connection.secret);
    expect(meanwhile.status).toBe(202);
    expect(['accepted', 'ignored']).toContain(meanwhile.body.status);
    const now = new Date().toISOString();
    const trashed = { orgId: org.orgId, projectId: project.id, repository: repo, event: 'pull_request', receivedAt: now };
    await handleDelivery({ ...trashed, id: randomUUID(), payload: storedPayload(payload), expiresAt: 0 });
    expect(await issueLinks(org.orgId, project.id, two.id)).toEqual([]);

    // Restored: connected as before, and deliveries link again.
    await restoreWhole(admin, `project-${project.id}`);
    expect(await ok(admin.get(`/api/v1/projects/${project.id}/github`))).toEqual(before);
    expect((await deliver('pull_request', pullRequest(repo, 103, two.issue_number), connection.secret)).body.status).toBe(
      'accepted',
    );
    const after = await eventually(
      'the link made after the restore',
      () => linksOf(admin, two.issue_number),
      (l) => l.some((x: any) => x.ref === '103'),
    );
    // Nothing else but what the delivery made while it was in the trash may link, if its queued copy came after the restore.
    expect(refsOf(after).filter((ref: string) => ref !== '102')).toEqual(['103']);
    expect(refsOf(await linksOf(admin, one.issue_number))).toEqual(['101']);
    expect((await ok(admin.get(`/api/v1/issues/${two.issue_number}`))).links).toMatchObject({
      count: (await linksOf(admin, two.issue_number)).length,
      pull_request_state: 'open',
    });

    // Purged: the repository's item goes, then its partition with the links.
    expect((await admin.delete(`/api/v1/projects/${project.id}`)).status).toBe(204);
    await heldInTrash(admin, `project-${project.id}`);
    expect((await admin.delete(`/api/v1/trash/project-${project.id}`)).status).toBe(204);
    await eventually(
      'the purged project’s repository to be free',
      () => connectedTo(repo),
      (r) => r === undefined,
      bounds.cascade(),
    );
    await eventually(
      'the purged project’s links to be gone',
      async () => [...(await issueLinks(org.orgId, project.id, one.id)), ...(await issueLinks(org.orgId, project.id, two.id))],
      (links) => links.length === 0,
      bounds.cascade(),
    );
    const again = await ok(admin.put(`/api/v1/projects/${other.id}/github`, { github: { repository: repo } }));
    expect(again).toMatchObject({ project_id: other.id, repository_name: 'hello-world' });
    expect(again.secret).toMatch(/^[0-9a-f]{64}$/);
    // Its deliveries now go to the other project; the old secret is refused.
    expect((await deliver('ping', from(example('ping'), repo), connection.secret)).status).toBe(401);
    expect((await deliver('ping', from(example('ping'), repo), again.secret)).body.status).toBe('pong');
  }, 120_000);

  it('a purged issue takes its links with it; the project stays connected', async () => {
    const { org, admin, project, repo, connection, one, two } = await connected();
    await deliver('pull_request', pullRequest(repo, 201, one.issue_number), connection.secret);
    await deliver('pull_request', pullRequest(repo, 202, two.issue_number), connection.secret);
    await eventually(
      'both links',
      async () => [...(await linksOf(admin, one.issue_number)), ...(await linksOf(admin, two.issue_number))],
      (l) => l.length === 2,
    );
    expect((await admin.delete(`/api/v1/projects/${project.id}/issues/${one.id}`)).status).toBe(204);
    // In the trash, its links stay under it (a restore brings them back with it).
    expect(await issueLinks(org.orgId, project.id, one.id)).toHaveLength(1);
    expect((await admin.delete(`/api/v1/trash/issue-${one.id}`)).status).toBe(204);
    await eventually(
      'the purged issue’s links to be gone',
      () => issueLinks(org.orgId, project.id, one.id),
      (links) => links.length === 0,
      bounds.cascade(),
    );
    expect(refsOf(await linksOf(admin, two.issue_number))).toEqual(['202']);
    expect(await connectedTo(repo)).toMatchObject({ projectId: project.id });
  }, 120_000);
});

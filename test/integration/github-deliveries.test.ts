import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withDbCallLog } from '../../lib/db/core/metrics.ts';
import { issueLinks } from '../../lib/db/github/github.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { storedPayload } from '../../lib/services/github-receiver.ts';
import { handleDelivery } from '../../lib/services/github-events.ts';
import { connectRepository } from '../../lib/services/github.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * The stream consumer's calls per delivery (docs/github.md: Calls per delivery), counted by the data
 * layer's call log: a push of 20 commits naming 20 issues takes the same four reads as one naming
 * one, then one transaction per link; delivered again, it writes nothing.
 */
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: any[] }[];

describe('a GitHub delivery', () => {
  it('links a push of 20 commits naming 20 issues in 4 reads and 20 transactions, and nothing more when redelivered', async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Pushed', prefix: randomPrefix() });
    const repository = `push-${randomUUID().slice(0, 8)}/repo`;
    await connectRepository(caller, project.id, { repository });
    const issues = [];
    for (let i = 0; i < 20; i++)
      issues.push(await createIssue(caller, { projectId: project.id, sprintId: null }, { title: `t${i}` }));
    const push = structuredClone(examples.find((e) => e.name === 'push')!.examples[0]);
    push.ref = 'refs/heads/feature';
    push.repository = {
      ...push.repository,
      full_name: repository,
      name: 'repo',
      owner: { ...push.repository.owner, login: repository.split('/')[0] },
    };
    push.commits = issues.map((issue, i) => ({
      id: String(i).padStart(40, 'c'),
      url: `https://github.com/${repository}/commit/${i}`,
      message: `Work on ${issue.issue_number}`,
      timestamp: '2026-12-01T10:00:00Z',
      author: { name: 'Ada', username: 'ada' },
    }));
    const delivery = {
      id: randomUUID(),
      orgId: org.orgId,
      projectId: project.id,
      repository,
      event: 'push',
      payload: storedPayload(push),
      receivedAt: new Date().toISOString(),
      expiresAt: 0,
    };
    const first = await withDbCallLog(() => handleDelivery(delivery));
    const writes = first.log.calls.filter((c) => c === 'TransactWriteItemsCommand').length;
    const reads = first.log.calls.filter((c) => c === 'GetItemCommand' || c === 'BatchGetItemCommand').length;
    expect(writes).toBe(20);
    expect(reads).toBe(4);
    // The last call notes the delivery's time on the repository's item.
    expect(first.log.calls.length).toBe(25);
    for (const issue of issues)
      expect((await issueLinks(org.orgId, project.id, issue.id)).map((l) => l.kind)).toEqual(['commit']);
    const again = await withDbCallLog(() => handleDelivery(delivery));
    expect(again.log.calls.filter((c) => c === 'TransactWriteItemsCommand')).toEqual([]);
  });
});

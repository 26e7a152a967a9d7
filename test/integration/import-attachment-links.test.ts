import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCsv } from '../../lib/model/formats/csv.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { importIssues } from '../../lib/services/import-export/import.ts';
import { listComments } from '../../lib/services/comments.ts';
import { listIssues } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * Files attached in another tracker (docs/import-export.md): Jira's `Attachment` columns and
 * GitHub's uploads linked from bodies and comments are kept as links, in the report and on the
 * issue, and nothing is fetched. Every request the process starts meanwhile is watched (Node's
 * diagnostics channels for `fetch` and `http.request`): only the local DynamoDB and S3 servers are
 * reached. The Jira files' URLs point at a server on 127.0.0.1 that counts what it is asked.
 */

/** Hosts of the requests the process starts while `run` runs. */
async function requestsDuring<T>(run: () => Promise<T>): Promise<{ result: T; hosts: string[] }> {
  const hosts: string[] = [];
  const onFetch = (m: unknown) => hosts.push(new URL(String((m as { request: { origin: string } }).request.origin)).host);
  const onHttp = (m: unknown) => {
    const req = (m as { request: ClientRequest }).request;
    hosts.push(`${req.host}${req.getHeader('host') ? ` (${String(req.getHeader('host'))})` : ''}`);
  };
  subscribe('undici:request:create', onFetch);
  subscribe('http.client.request.start', onHttp);
  try {
    return { result: await run(), hosts };
  } finally {
    unsubscribe('undici:request:create', onFetch);
    unsubscribe('http.client.request.start', onHttp);
  }
}

const isLoopback = (host: string) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\b/.test(host);

let files: { url: string; hits: string[]; close(): Promise<void> };
beforeAll(async () => {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('a file');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  files = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
});
afterAll(() => files.close());

async function setup() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '', name: 'Ada Admin' };
  const project = await createProject(caller, { name: 'Links', prefix: randomPrefix() });
  const issues = async () =>
    (await listIssues(caller, { projectId: project.id, sprintId: null }, { page: 1, perPage: 100 })).items;
  return { org, caller, projectId: project.id, issues };
}

const note = 'Attachments in the source (not copied here; the links lead to the files there):';

describe('attachments of another tracker, kept as links', () => {
  it("Jira: every Attachment column's file is in the report and at the end of its issue's description; nothing is fetched", async () => {
    const { org, projectId, issues } = await setup();
    const jiraUrl = (id: number, name: string) => `${files.url}/secure/attachment/${id}/${encodeURIComponent(name)}`;
    const cell = (name: string, id: number) =>
      `01/Feb/24 10:15 AM;557058:f58131cb-b67d-43c7-b30d-6b58d40bd077;${name};${jiraUrl(id, name)}`;
    const header = [
      'Summary',
      'Issue key',
      'Issue id',
      'Issue Type',
      'Status',
      'Priority',
      'Reporter',
      'Reporter Id',
      'Created',
      'Updated',
      'Description',
      'Attachment',
      'Attachment',
      'Attachment',
      'Comment',
    ];
    const csv = `\uFEFF${formatCsv([
      header,
      [
        'Checkout crashes',
        'DI-1',
        '10001',
        'Bug',
        'To Do',
        'High',
        'Grace',
        '557058:grace',
        '01/Feb/24 10:00 AM',
        '01/Feb/24 10:20 AM',
        'Steps:\n1. pay',
        cell('screenshot.png', 10001),
        cell('har file; full.har', 10002),
        '',
        '01/Feb/24 10:30 AM;557058:grace;See the screenshot',
      ],
      [
        'No files',
        'DI-2',
        '10002',
        'Task',
        'To Do',
        'Low',
        '',
        '',
        '01/Feb/24 11:00 AM',
        '01/Feb/24 11:00 AM',
        '',
        '',
        '',
        '',
        '',
      ],
      [
        'Only a file',
        'DI-3',
        '10003',
        'Task',
        'Done',
        'Low',
        '',
        '',
        '02/Feb/24 09:00 AM',
        '02/Feb/24 09:00 AM',
        '',
        cell('design.pdf', 10003),
        '',
        '',
        '',
      ],
    ])}\n`;

    const { result: report, hosts } = await requestsDuring(() =>
      importIssues({ orgId: org.orgId, projectId, format: 'jira-csv' }, [csv]),
    );
    expect(report.rejected_rows).toEqual([]);
    expect(report.attachment_links).toEqual([
      {
        row: 2,
        key: 'DI-1',
        links: [
          { name: 'screenshot.png', url: jiraUrl(10001, 'screenshot.png') },
          { name: 'har file; full.har', url: jiraUrl(10002, 'har file; full.har') },
        ],
      },
      { row: 5, key: 'DI-3', links: [{ name: 'design.pdf', url: jiraUrl(10003, 'design.pdf') }] },
    ]);
    const byKey = new Map((await issues()).map((i) => [i.source_key, i]));
    expect(byKey.get('DI-1')?.description).toBe(
      `Steps:\n1. pay\n\n---\n${note}\n- [screenshot.png](<${jiraUrl(10001, 'screenshot.png')}>)\n- [har file; full.har](<${jiraUrl(10002, 'har file; full.har')}>)`,
    );
    expect(byKey.get('DI-2')?.description).toBeNull();
    expect(byKey.get('DI-3')?.description).toBe(`---\n${note}\n- [design.pdf](<${jiraUrl(10003, 'design.pdf')}>)`);

    // Nothing asked for the files, and no request left this machine.
    expect(files.hits).toEqual([]);
    expect(hosts.length).toBeGreaterThan(0);
    expect(hosts.filter((h) => !isLoopback(h))).toEqual([]);
  });

  it('GitHub: uploads linked from a body or comment stay there as written and are listed in the report; nothing is fetched', async () => {
    const { org, caller, projectId, issues } = await setup();
    const body =
      'The form loses its data.\n\n![screenshot of the form](https://github.com/user-attachments/assets/0f8a3c1e-5b7d-4e2f-9a61-3c2d1e0b9f77)\n' +
      '<img width="640" alt="Before" src="https://user-images.githubusercontent.com/1234567/210000000-aa11bb22.png">';
    const comment = 'HAR attached: [session.har](https://github.com/user-attachments/files/17001234/session.har)';
    const file = JSON.stringify([
      {
        number: 41,
        title: 'Form loses data',
        body,
        state: 'OPEN',
        url: 'https://github.com/acme/app/issues/41',
        author: { login: 'grace', name: 'Grace' },
        labels: [{ name: 'bug' }],
        comments: [{ body: comment, author: { login: 'ada' }, createdAt: '2024-02-01T10:30:00Z' }],
        createdAt: '2024-02-01T10:00:00Z',
        updatedAt: '2024-02-01T10:30:00Z',
      },
      {
        number: 42,
        title: 'No files',
        body: 'Just text: https://github.com/acme/app/pull/40',
        state: 'OPEN',
        url: 'https://github.com/acme/app/issues/42',
      },
    ]);

    const { result: report, hosts } = await requestsDuring(() =>
      importIssues({ orgId: org.orgId, projectId, format: 'github-json' }, [file]),
    );
    expect(report.rejected_rows).toEqual([]);
    expect(report.attachment_links).toEqual([
      {
        row: 1,
        key: 'acme/app#41',
        links: [
          {
            name: 'screenshot of the form',
            url: 'https://github.com/user-attachments/assets/0f8a3c1e-5b7d-4e2f-9a61-3c2d1e0b9f77',
          },
          { name: 'Before', url: 'https://user-images.githubusercontent.com/1234567/210000000-aa11bb22.png' },
          { name: 'session.har', url: 'https://github.com/user-attachments/files/17001234/session.har' },
        ],
      },
    ]);
    const issue = (await issues()).find((i) => i.source_key === 'acme/app#41')!;
    expect(issue.description).toBe(body);
    const comments = await listComments(caller, { projectId, sprintId: null, issueId: issue.id }, { page: 1, perPage: 10 });
    expect(comments.items.map((c) => c.body)).toEqual([comment]);

    expect(hosts.length).toBeGreaterThan(0);
    expect(hosts.filter((h) => !isLoopback(h))).toEqual([]);
  });
});

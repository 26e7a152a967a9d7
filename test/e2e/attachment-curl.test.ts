import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { orgWithClients, randomPrefix, useGateway } from '../support/api.ts';

/**
 * The shell snippet of docs/attachments.md ("Upload from a shell"), taken from the document and run
 * as written with bash, curl and node, against the local gateway and the local S3 server (loopback).
 */
const gateway = useGateway();

/** The first `sh` block after the heading `### Upload from a shell` in docs/attachments.md. */
function snippet(): string {
  const doc = readFileSync(new URL('../../docs/attachments.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('### Upload from a shell'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/attachments.md has no sh block under "Upload from a shell"');
  return block;
}

describe("docs/attachments.md's upload snippet", () => {
  it('declares, posts and completes a file as written: the attachment is ready with the same bytes', async () => {
    const { org, admin } = await orgWithClients(gateway);
    const p = (await admin.post('/api/v1/projects', { project: { name: 'Shell', prefix: randomPrefix() } })).body;
    const issue = (await admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title: 'From curl' } })).body;
    const dir = mkdtempSync(join(tmpdir(), 'attachment-curl-'));
    const file = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(500, 9)]);
    writeFileSync(join(dir, 'screen shot.png'), file);
    try {
      const { stdout } = await promisify(execFile)('bash', ['-e', '-c', snippet()], {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          API: `${gateway.baseUrl}/api/v1`,
          TOKEN: org.admin.token,
          ISSUE: issue.issue_number,
          FILE: 'screen shot.png',
          TYPE: 'image/png',
        },
      });
      expect(JSON.parse(stdout)).toMatchObject({ name: 'screen shot.png', status: 'ready', size: file.length });
      const [listed] = (await admin.get(`/api/v1/issues/${issue.issue_number}/attachments`)).body;
      expect(listed).toMatchObject({ name: 'screen shot.png', content_type: 'image/png', status: 'ready' });
      expect(Buffer.from(await (await fetch(listed.download_url)).arrayBuffer()).equals(file)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

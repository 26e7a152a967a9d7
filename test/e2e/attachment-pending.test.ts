import { describe, expect, it } from 'vitest';
import { organisationBytes, pendingCounts } from '../../lib/db/attachments/attachments.ts';
import { ATTACHMENT_LIMITS } from '../../lib/vocabulary/attachments.ts';
import { orgWithClients, randomPrefix, useGateway, type ApiClient } from '../support/api.ts';
import { sweepLater } from '../support/local-expiry.ts';

/**
 * Pending attachments (declared, not completed) within their caps (docs/limits.md): per account and
 * per organisation, a count and bytes, set small for this file (read on first use: lib/config.ts).
 * A declaration past a cap is 429 and writes nothing; a completion, a delete or the expiry gives the
 * place back. The expiry is the local stack's sweep (tools/local/expiry.ts) on a clock past it.
 */
process.env.ATTACHMENT_MAX_PENDING_PER_ACCOUNT = '3';
process.env.ATTACHMENT_MAX_PENDING_BYTES_PER_ACCOUNT = '1000';
process.env.ATTACHMENT_MAX_PENDING_PER_ORGANISATION = '5';
process.env.ATTACHMENT_MAX_PENDING_BYTES_PER_ORGANISATION = '1500';
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';

const gateway = useGateway();

const declare = (client: ApiClient, base: string, size: number) =>
  client.post(base, { attachment: { name: 'a.bin', content_type: 'application/octet-stream', size } });

async function postForm(upload: { url: string; fields: Record<string, string> }, file: Buffer) {
  const body = new FormData();
  for (const [name, value] of Object.entries(upload.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type: 'application/octet-stream' }), 'file');
  return fetch(upload.url, { method: 'POST', body });
}

describe('pending attachments', () => {
  it("are refused past the account's and the organisation's caps (429, nothing written), and given back by a completion and by their expiry", async () => {
    const { org, admin, member } = await orgWithClients(gateway);
    const p = (await admin.post('/api/v1/projects', { project: { name: 'Files', prefix: randomPrefix() } })).body;
    const issue = (await admin.post(`/api/v1/projects/${p.id}/issues`, { issue: { title: 'Flood' } })).body;
    const base = `/api/v1/issues/${issue.issue_number}/attachments`;
    const counts = () => pendingCounts(org.orgId, org.admin.id);

    // A flood from one account: 3 at once at most, the rest refused with a clear error.
    const flood = await Promise.all(Array.from({ length: 8 }, () => declare(admin, base, 100)));
    expect(flood.map((r) => r.status).sort()).toEqual([201, 201, 201, 429, 429, 429, 429, 429]);
    const refused = flood.find((r) => r.status === 429)!;
    expect(refused.body.error).toMatch(
      /^Too many uploads pending: you have 3 attachments \(or 1000 bytes\) declared and not completed/,
    );
    expect(refused.headers.get('retry-after')).toBe(String(ATTACHMENT_LIMITS.pendingSeconds));
    // The organisation's 5: two more from another account, then none.
    expect((await declare(member, base, 100)).status).toBe(201);
    const last = await declare(member, base, 100);
    expect(last.status).toBe(201);
    const full = await declare(member, base, 100);
    expect([full.status, full.body.error]).toEqual([429, expect.stringMatching(/your organisation has 5 attachments/)]);
    expect((await admin.get(base)).body).toHaveLength(5);
    expect(await counts()).toEqual({
      organisation: { files: 5, bytes: 500, attachmentBytes: 500 },
      account: { files: 3, bytes: 300 },
    });

    // A completion gives its place back at once: the member's file posted and completed, then one more declared.
    expect((await postForm(last.body.upload, Buffer.alloc(100, 1))).status).toBe(204);
    expect((await member.post(`${base}/${last.body.id}/complete`)).status).toBe(200);
    expect((await declare(member, base, 100)).status).toBe(201);
    expect((await declare(member, base, 100)).status).toBe(429);

    // Their expiry (10 minutes after their declaration) gives back every place and byte they held.
    expect((await sweepLater(org.orgId, ATTACHMENT_LIMITS.pendingSeconds + 60)).attachments).toBe(5);
    expect(await counts()).toEqual({
      organisation: { files: 0, bytes: 0, attachmentBytes: 100 },
      account: { files: 0, bytes: 0 },
    });
    expect(await organisationBytes(org.orgId)).toBe(100);
    expect(((await admin.get(base)).body as { status: string }[]).map((a) => a.status)).toEqual(['ready']);

    // The bytes' caps: 1000 per account, 1500 per organisation.
    expect((await declare(admin, base, 900)).status).toBe(201);
    expect((await declare(admin, base, 200)).status).toBe(429);
    expect((await declare(member, base, 500)).status).toBe(201);
    const over = await declare(member, base, 200);
    expect([over.status, over.body.error]).toEqual([
      429,
      expect.stringMatching(/your organisation has 5 attachments \(or 1500 bytes\)/),
    ]);
    expect((await declare(member, base, 100)).status).toBe(201);
    expect(await counts()).toEqual({
      organisation: { files: 3, bytes: 1500, attachmentBytes: 1600 },
      account: { files: 1, bytes: 900 },
    });
  });
});

import { S3Client } from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachmentObjectKey, signDownloadUrl, signUploadForm } from '../../lib/aws/objects.ts';

const now = new Date('2026-11-26T10:15:30.000Z');
const sha256Base64 = Buffer.from('a'.repeat(64), 'hex').toString('base64');

afterEach(() => vi.useRealTimers());

describe('the upload form', () => {
  it('is the policy and fields the SDK presigner makes of the same conditions, byte for byte', async () => {
    const key = attachmentObjectKey(7, 3, 42, 9);
    const ours = await signUploadForm({ key, contentType: 'image/png', size: 1234, sha256Base64, seconds: 600, now });
    // The same bucket, endpoint and credentials as ours (the run's local server: test/support/env.ts).
    const client = new S3Client({
      region: process.env.AWS_REGION!,
      endpoint: process.env.S3_ENDPOINT!,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    vi.useFakeTimers({ now, toFake: ['Date'] });
    const sdk = await createPresignedPost(client, {
      Bucket: process.env.ATTACHMENTS_BUCKET!,
      Key: key,
      Conditions: [['content-length-range', 1234, 1234]],
      Fields: { 'Content-Type': 'image/png', 'x-amz-checksum-algorithm': 'SHA256', 'x-amz-checksum-sha256': sha256Base64 },
      Expires: 600,
    });
    vi.useRealTimers();
    expect(ours.fields).toEqual(sdk.fields);
    expect(ours.url).toBe(sdk.url);
    expect(ours.expiresAt).toBe('2026-11-26T10:25:30.000Z');
  });

  it('binds key, type, exact size, checksum and expiry in its policy', async () => {
    const form = await signUploadForm({ key: 'o/1', contentType: 'text/plain', size: 10, sha256Base64, seconds: 60, now });
    const policy = JSON.parse(Buffer.from(form.fields.Policy!, 'base64').toString()) as {
      expiration: string;
      conditions: unknown[];
    };
    expect(policy.expiration).toBe('2026-11-26T10:16:30Z');
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 10, 10],
        { key: 'o/1' },
        { 'Content-Type': 'text/plain' },
        { 'x-amz-checksum-sha256': sha256Base64 },
        { bucket: process.env.ATTACHMENTS_BUCKET },
      ]),
    );
    const unchecked = await signUploadForm({
      key: 'o/1',
      contentType: 'text/plain',
      size: 10,
      sha256Base64: null,
      seconds: 60,
      now,
    });
    expect(unchecked.fields['x-amz-checksum-sha256']).toBeUndefined();
  });
});

describe('object keys and download URLs', () => {
  it('start with the organisation', () => {
    expect(attachmentObjectKey(7, 3, 42, 9)).toBe('o/0000000007/p/0000000003/i/0000000042/a/0000000009');
  });

  it('sign a GET for a few minutes, with the disposition S3 answers', async () => {
    const { url, expiresAt } = await signDownloadUrl('o/1', {
      seconds: 300,
      disposition: 'attachment; filename="a b.html"',
      now,
    });
    const parsed = new URL(url);
    expect(parsed.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(parsed.searchParams.get('X-Amz-Date')).toBe('20261126T101530Z');
    expect(parsed.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
    expect(parsed.searchParams.get('response-content-disposition')).toBe('attachment; filename="a b.html"');
    expect(parsed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(expiresAt).toBe('2026-11-26T10:20:30.000Z');
  });
});

import { readAttachmentParts, scanExpiredPendingAttachments, type AttachmentKey } from '../db/attachments/attachments.ts';

/**
 * The keys of the pending attachments whose expiry (their TTL) has passed at `now`: of the whole
 * table by a Scan, or of one organisation by a Query of each of its partitions. The local stack's
 * stand-in for DynamoDB's TTL only (tools/local/expiry.ts), which DynamoDB Local does not run.
 */
export async function expiredPendingAttachments(now: Date, orgId?: number): Promise<AttachmentKey[]> {
  const seconds = Math.floor(now.getTime() / 1000);
  if (orgId === undefined) return scanExpiredPendingAttachments(seconds);
  const found: AttachmentKey[] = [];
  await readAttachmentParts(orgId, (parts) => {
    for (const part of parts) {
      if (part.kind !== 'attachment' || part.attachment.status !== 'pending') continue;
      if (part.expiresAt !== undefined && part.expiresAt < seconds) found.push(part.key);
    }
  });
  return found;
}

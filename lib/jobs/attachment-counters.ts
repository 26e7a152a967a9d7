import {
  attachmentCounts,
  counterDifferences,
  type AttachmentCounters,
  type CountedAttachment,
  type PendingCount,
} from '../model/attachments.ts';
import {
  putPendingUploads,
  readAttachmentParts,
  setIssueAttachmentCount,
  setOrganisationAttachmentCounters,
  type AttachmentPart,
} from '../db/attachments/attachments.ts';

/**
 * The check and the rebuild of the attachment counters (docs/attachments.md): each organisation's
 * bytes and pending uploads, each issue's files, each account's pending uploads. Operators and
 * tests only: the reads are in lib/db/attachments/attachments.ts (`readAttachmentParts`).
 */

/** The stored attachment counters of the table (or of one organisation), and what its attachments count. */
export async function readAttachmentCounters(
  orgId?: number,
): Promise<{ stored: AttachmentCounters; rebuilt: AttachmentCounters }> {
  const stored: AttachmentCounters = {
    organisationBytes: new Map(),
    issueFiles: new Map(),
    organisationPending: new Map(),
    accountPending: new Map(),
  };
  const attachments: CountedAttachment[] = [];
  await readAttachmentParts(orgId, (parts) => {
    for (const part of parts) {
      const counted = take(stored, part);
      if (counted) attachments.push(counted);
    }
  });
  return { stored, rebuilt: attachmentCounts(attachments, stored) };
}

/** Adds a stored counter of `part` to `stored`; an attachment is returned, as it counts. */
function take(stored: AttachmentCounters, part: AttachmentPart): CountedAttachment | undefined {
  switch (part.kind) {
    case 'organisation':
      stored.organisationBytes.set(part.orgId, part.bytes);
      stored.organisationPending.set(part.orgId, part.pending);
      return undefined;
    case 'uploads':
      stored.accountPending.set(`${part.orgId}/${part.accountId}`, part.pending);
      return undefined;
    case 'issue':
      stored.issueFiles.set(`${part.orgId}/${part.projectId}/${part.issueId}`, part.files);
      return undefined;
    case 'attachment': {
      const a = part.attachment;
      // Only a declaration that took its place among the pending counts gives it back (`reserved`).
      const pending = a.status === 'pending' && a.reserved;
      const { orgId, projectId, issueId, size, inTrash, uploaderId } = a;
      return { orgId, projectId, issueId, size, inTrash, pending, uploaderId };
    }
  }
}

/** Every attachment counter that differs from what its attachments count (see `counterDifferences`). */
export async function attachmentCounterDifferences(orgId?: number): Promise<string[]> {
  const { stored, rebuilt } = await readAttachmentCounters(orgId);
  return counterDifferences(stored, rebuilt);
}

/**
 * Sets every attachment counter that differs to what its attachments count (part of
 * `issues:reindex`, lib/jobs/reindex.ts: with no writes running). Returns how many counters it
 * checked and each one it set, as `attachmentCounterDifferences` says it.
 */
export async function rebuildAttachmentCounters(orgId?: number): Promise<{ checked: number; repaired: string[] }> {
  const { stored, rebuilt } = await readAttachmentCounters(orgId);
  const repaired = counterDifferences(stored, rebuilt);
  for (const [org, bytes] of rebuilt.organisationBytes) {
    if (stored.organisationBytes.get(org) !== bytes) await setOrganisationAttachmentCounters(org, { attachmentBytes: bytes });
  }
  for (const [issue, files] of rebuilt.issueFiles) {
    if (stored.issueFiles.get(issue) === files) continue;
    const [org, project, id] = issue.split('/').map(Number) as [number, number, number];
    await setIssueAttachmentCount(org, project, id, files);
  }
  const same = (a: PendingCount | undefined, b: PendingCount) => a?.files === b.files && a.bytes === b.bytes;
  for (const [org, count] of rebuilt.organisationPending) {
    if (same(stored.organisationPending.get(org), count)) continue;
    await setOrganisationAttachmentCounters(org, { pendingAttachments: count.files, pendingAttachmentBytes: count.bytes });
  }
  for (const [account, count] of rebuilt.accountPending) {
    if (same(stored.accountPending.get(account), count)) continue;
    const [org, id] = account.split('/').map(Number) as [number, number];
    // Made here when lost: its first declaration would have made it.
    await putPendingUploads(org, id, count);
  }
  const checked = [rebuilt.organisationBytes, rebuilt.issueFiles, rebuilt.organisationPending, rebuilt.accountPending];
  return { checked: checked.reduce((sum, counters) => sum + counters.size, 0), repaired };
}

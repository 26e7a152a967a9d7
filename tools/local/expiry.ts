/**
 * The expiries the local stack runs itself, where AWS runs them (docs/attachments.md): DynamoDB
 * Local runs no TTL, and the local S3 server no lifecycle rule. Each sweep
 *
 * - removes the pending attachments whose TTL has passed, as DynamoDB's TTL does, and hands the
 *   stream consumer (functions/cascade.ts) the record DynamoDB writes for such a removal (its
 *   `userIdentity` the TTL's), which gives back their place in the limits, as in AWS. (DynamoDB
 *   Local's own record of the delete, a request's, reaches the consumer too, and gives back nothing.)
 * - removes the files posted under `staging/` that nothing took, once as old as the bucket's
 *   lifecycle rule allows (`ATTACHMENT_LIMITS.stagingDays`).
 *
 * `npm start` sweeps every minute (`LOCAL_EXPIRY_SWEEP_SECONDS`); a test sweeps when it likes, with
 * its own clock (`now`) and, on the run's shared table, one organisation only (`orgId`).
 */
import { randomUUID } from 'node:crypto';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { expirePendingAttachment } from '../../lib/db/attachments/attachments.ts';
import { expiredPendingAttachments } from '../../lib/jobs/attachment-expiry.ts';
import { deleteObjects, listObjects, STAGING_PREFIX, stagingPrefixOf } from '../../lib/aws/objects.ts';
import { ATTACHMENT_LIMITS } from '../../lib/vocabulary/attachments.ts';
import { lambdaContext } from './gateway.ts';
import type { StreamHandler } from './stream-poller.ts';

/** The stream record DynamoDB writes when its TTL removes an item (its `userIdentity` says so). */
function ttlRemoval(old: Record<string, unknown>, now: Date): DynamoDBRecord {
  const image = marshall(old, { removeUndefinedValues: true }) as Record<string, AttributeValue>;
  return {
    eventID: randomUUID(),
    eventName: 'REMOVE',
    eventSource: 'aws:dynamodb',
    userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(now.getTime() / 1000),
      Keys: { PK: image.PK!, SK: image.SK! },
      OldImage: image,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

export interface ExpiryOptions {
  /** The stream consumer the TTL's records go to (functions/cascade.ts, within its grant). */
  consume: StreamHandler;
  /** The sweep's clock (default: now). */
  now?: Date;
  /** Only this organisation's pending attachments and staged files (default: the whole table's, one Scan, and bucket's). */
  orgId?: number;
}

/** One sweep: what it removed (pending attachments expired, staged files). */
export async function sweepExpired(options: ExpiryOptions): Promise<{ attachments: number; staged: number }> {
  const attachments = await expirePendingUploads(options);
  const staged = await removeStagedFiles(options.now, options.orgId);
  return { attachments, staged };
}

/** Removes the pending attachments whose TTL has passed, each handed to the consumer as the TTL's removal. Returns how many. */
export async function expirePendingUploads(options: ExpiryOptions): Promise<number> {
  const now = options.now ?? new Date();
  let expired = 0;
  for (const key of await expiredPendingAttachments(now, options.orgId)) {
    const old = await expirePendingAttachment(key, now);
    if (!old) continue;
    const out = await options.consume({ Records: [ttlRemoval(old, now)] }, lambdaContext('cascade'));
    if (out && out.batchItemFailures.length > 0)
      throw new Error(`the stream consumer failed the TTL removal of ${key.PK} ${key.SK}`);
    expired++;
  }
  return expired;
}

/**
 * Removes the files posted under `staging/` (of one organisation, given `orgId`) as the bucket's
 * lifecycle rule does: those posted more than `stagingDays` before `now`. Returns how many.
 */
export async function removeStagedFiles(now = new Date(), orgId?: number): Promise<number> {
  const oldest = now.getTime() - ATTACHMENT_LIMITS.stagingDays * 86_400_000;
  const prefix = orgId === undefined ? STAGING_PREFIX : stagingPrefixOf(orgId);
  const staged = (await listObjects(prefix)).filter((o) => o.lastModified.getTime() < oldest).map((o) => o.key);
  if (staged.length > 0) await deleteObjects(staged);
  return staged.length;
}

/** Sweeps every `intervalSeconds` until stopped; a failed sweep is logged and the next one tries again. */
export function startExpirySweeps(consume: StreamHandler, intervalSeconds: number, log: (line: string) => void) {
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    // One sweep at a time: a slow one is not overtaken by the next.
    running ??= sweepExpired({ consume })
      .catch((err: unknown) => log(`local expiry sweep failed: ${String(err)}`))
      .finally(() => (running = undefined));
  }, intervalSeconds * 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

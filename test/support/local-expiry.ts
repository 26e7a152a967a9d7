import { listObjects, stagingPrefixOf } from '../../lib/aws/objects.ts';
import { ATTACHMENT_LIMITS } from '../../lib/vocabulary/attachments.ts';
import { sweepExpired } from '../../tools/local/expiry.ts';
import { streamConsumer } from '../../tools/local/stream-poller.ts';

/**
 * The local stack's expiry sweep (tools/local/expiry.ts) run by a test for its own organisation, on
 * a clock `aheadSeconds` in the future (default: past a pending attachment's expiry and past the
 * staged files' lifecycle), so that nothing waits minutes or days: the expiries DynamoDB's TTL and
 * the bucket's lifecycle rule run in AWS, handed to the stream consumer as in AWS.
 */
export async function sweepLater(orgId: number, aheadSeconds = ATTACHMENT_LIMITS.stagingDays * 86_400 + 60) {
  const consume = await streamConsumer('functions/cascade.ts');
  return sweepExpired({ consume, orgId, now: new Date(Date.now() + aheadSeconds * 1000) });
}

/** The files posted under the organisation's staging prefix that are still there. */
export const stagedFiles = async (orgId: number) => (await listObjects(stagingPrefixOf(orgId))).map((o) => o.key);

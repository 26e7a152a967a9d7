import { describe, expect, it } from 'vitest';
import { getDelivery, insertDelivery, insertWebhook } from '../../lib/db/webhooks.ts';
import { processDelivery } from '../../lib/webhooks/deliver.ts';
import type { DeliveryMessage } from '../../lib/webhooks/queue.ts';
import { generateSecret } from '../../lib/webhooks/signing.ts';
import { newOrganisation } from '../support/api.ts';
import { startReceiver } from '../support/receiver.ts';

/**
 * The guard as it runs in AWS (loopback not allowed): a receiver that is up on `localhost`, a name
 * that resolves to a loopback address, gets nothing; the attempt is recorded as refused.
 */
describe('the private-address guard in AWS', () => {
  it('refuses a hostname that resolves to loopback: the receiver gets nothing', async () => {
    const org = await newOrganisation();
    const receiver = await startReceiver('127.0.0.1');
    try {
      const url = receiver.url.replace('127.0.0.1', 'localhost');
      const now = new Date().toISOString();
      const webhook = {
        id: 1,
        org_id: org.orgId,
        url,
        events: ['*'],
        active: true,
        disabled_reason: null,
        secret: generateSecret(),
        created_at: now,
        updated_at: now,
      };
      await insertWebhook(org.orgId, webhook);
      await insertDelivery({
        id: 'msg_guard',
        org_id: org.orgId,
        webhook_id: 1,
        event: 'issue.created',
        status: 'pending',
        attempts: 0,
        response_code: null,
        duration_ms: null,
        error: null,
        next_attempt_at: now,
        payload: '{}',
        created_at: now,
        updated_at: now,
      });
      const sent: DeliveryMessage[] = [];
      const message = { orgId: org.orgId, webhookId: 1, deliveryId: 'msg_guard', attempt: 1, firstAttemptAt: null, notBefore: 0 };
      const settings = {
        allowLoopback: false,
        backoffBaseMs: 1000,
        backoffMaxMs: 1000,
        retryWindowMs: 60_000,
        disableAfterMs: 60_000,
        timeoutMs: 2000,
      };
      const outcome = await processDelivery(message, { settings, queue: { send: async (m) => void sent.push(...m) } });

      expect(outcome).toBe('retrying');
      expect(receiver.requests).toEqual([]);
      const delivery = await getDelivery(org.orgId, 1, 'msg_guard');
      expect(delivery?.error).toMatch(/^refused: (127\.0\.0\.1|::1) is a loopback address$/);
      expect(sent).toMatchObject([{ deliveryId: 'msg_guard', attempt: 2 }]);

      // The same message again (SQS delivers at least once) makes no second attempt.
      expect(await processDelivery(message, { settings, queue: { send: async () => {} } })).toBe('duplicate');
    } finally {
      await receiver.close();
    }
  });
});

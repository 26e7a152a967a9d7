import { config } from '../config.ts';
import {
  claimDeliveryAttempt,
  getWebhookWithDelivery,
  updateDelivery,
  updateWebhook,
  webhookRefusals,
  type WebhookFields,
} from '../db/webhooks/webhooks.ts';
import { isRefused } from '../db/core/transactions.ts';
import { countSlowAttempt, giveBackPlaces, setLane, takePlaces } from '../db/webhooks/delivery-lanes.ts';
import {
  attemptSpeed,
  deferDelayMs,
  endpointInFlightCap,
  type AttemptSpeed,
  laneOf,
  orgInFlightCap,
  slowAttemptsAfter,
  type Lane,
} from '../model/fairness.ts';
import { postWebhook, type PostOutcome } from './post.ts';
import { deliveryQueue, MAX_DELAY_SECONDS, type DeliveryMessage, type DeliveryQueue } from './queue.ts';
import { openForSigning } from '../aws/secret-box.ts';
import { signedHeaders } from '../model/signing.ts';

/**
 * One attempt of one delivery, as the delivery function (functions/webhooks/deliver.ts) runs it for
 * each queue message. At least once: a 2xx within the timeout is success; anything else is retried
 * with exponential backoff (the message comes back after a delay) until `retryWindowMs` after the
 * first attempt, then the delivery is marked failed. An endpoint failing without a success for
 * `disableAfterMs` is disabled with a reason. Every attempt carries the same `webhook-id`.
 */

export interface DeliverySettings {
  allowLoopback: boolean;
  /** Each lane's concurrency, of which an organisation may hold a fifth (default: the configured). */
  concurrency?: Record<Lane, number>;
  /** First wait of a message over its organisation's cap (default: the configured). */
  deferMs?: number;
  /** An attempt this long or longer is slow (default: the configured, half the timeout). */
  slowMs?: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  retryWindowMs: number;
  disableAfterMs: number;
  timeoutMs: number;
}

export interface DeliveryDeps {
  settings?: DeliverySettings;
  queue?: DeliveryQueue;
  now?: () => number;
}

/** Wait after failed attempt `attempt` (from 1): base, 2 x base, 4 x base... at most `backoffMaxMs`. */
export function backoffMs(attempt: number, settings: Pick<DeliverySettings, 'backoffBaseMs' | 'backoffMaxMs'>): number {
  return Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
}

/** The secrets that sign now, opened (lib/aws/secret-box.ts): the current one, and the previous one until it expires. */
function signingSecrets(webhook: WebhookFields, now: number): Promise<string[]> {
  const previous = webhook.previousSecret;
  const until = webhook.previousSecretExpiresAt ? Date.parse(webhook.previousSecretExpiresAt) : 0;
  const owner = { orgId: webhook.orgId, webhookId: webhook.id };
  return Promise.all(
    (previous && until > now ? [webhook.secret, previous] : [webhook.secret]).map((s) => openForSigning(s, owner, now)),
  );
}

const succeeded = (outcome: PostOutcome) => outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300;

/** Runs the attempt a message stands for. Returns what happened, for the log. */
export async function processDelivery(message: DeliveryMessage, deps: DeliveryDeps = {}): Promise<string> {
  const settings = deps.settings ?? config().webhooks;
  const queue = deps.queue ?? deliveryQueue();
  const clock = deps.now ?? Date.now;
  const now = clock();

  // A wait longer than one queue hop: back on the queue for the rest of it.
  if (message.notBefore > now + 1000) {
    await queue.send([message], Math.min(MAX_DELAY_SECONDS, (message.notBefore - now) / 1000));
    return 'waiting';
  }

  // Fair delivery (docs/change-feed.md): a place within the organisation's and the endpoint's share
  // of the lane, or back on the queue for a while. Taken first, so that a message over the cap
  // costs one write.
  const lane = message.lane ?? 'fast';
  const places = { orgId: message.orgId, webhookId: message.webhookId, lane };
  const org = orgInFlightCap((settings.concurrency ?? config().webhooks.concurrency)[lane]);
  // Every attempt gives its places back within its timeout: a counter untouched for six of them is stale.
  if (!(await takePlaces(places, { org, endpoint: endpointInFlightCap(org) }, now, 6 * settings.timeoutMs))) {
    const deferrals = message.deferrals ?? 0;
    const wait = deferDelayMs(deferrals, settings.deferMs ?? config().webhooks.deferMs, Math.random());
    await queue.send([{ ...message, deferrals: deferrals + 1 }], wait / 1000);
    return 'deferred: organisation or endpoint at its cap';
  }
  try {
    return await attempt(message, settings, queue, clock, now);
  } finally {
    await giveBackPlaces(places, clock());
  }
}

type Found = Awaited<ReturnType<typeof getWebhookWithDelivery>>;

/**
 * The delivery and its endpoint when the message is to be attempted here and now; otherwise what
 * was done instead: nothing (done already), the delivery cancelled (its endpoint disabled or
 * deleted), or the message sent on to its endpoint's other lane.
 */
async function attemptable(
  message: DeliveryMessage,
  queue: DeliveryQueue,
  iso: string,
): Promise<{ [K in keyof Found]-?: NonNullable<Found[K]> } | string> {
  const { webhook, delivery } = await getWebhookWithDelivery(message.orgId, message.webhookId, message.deliveryId);
  if (!delivery || delivery.status !== 'pending') return 'done already';
  if (!webhook || !webhook.active) {
    await updateDelivery(message.orgId, message.webhookId, message.deliveryId, {
      status: 'cancelled',
      error: webhook ? 'the webhook is disabled' : 'the webhook was deleted',
      nextAttemptAt: null,
      updatedAt: iso,
    });
    return 'cancelled';
  }
  // An endpoint moved to the other lane since this message was queued: there with it.
  const { lane } = webhook;
  if ((message.lane ?? 'fast') !== lane) {
    await queue.send([{ ...message, lane, deferrals: 0 }], 0);
    return `moved to the ${lane} lane`;
  }
  return { webhook, delivery };
}

async function attempt(
  message: DeliveryMessage,
  settings: DeliverySettings,
  queue: DeliveryQueue,
  clock: () => number,
  now: number,
): Promise<string> {
  const iso = new Date(now).toISOString();
  const found = await attemptable(message, queue, iso);
  if (typeof found === 'string') return found;
  const { webhook, delivery } = found;
  // Opened before the claim: should KMS fail, the message fails to run and SQS retries it unclaimed.
  const secrets = await signingSecrets(webhook, now);
  if (!(await claimDeliveryAttempt(message, iso))) return 'duplicate';

  const timestamp = Math.floor(now / 1000);
  const headers = signedHeaders(secrets, delivery.id, timestamp, delivery.payload);
  const outcome = await postWebhook(webhook.url, headers, delivery.payload, {
    timeoutMs: settings.timeoutMs,
    allowLoopback: settings.allowLoopback,
  });
  const after = clock();
  const nextLane = await noteSpeed(webhook, message, attemptSpeed(outcome, settings.slowMs ?? config().webhooks.slowMs));
  const afterIso = new Date(after).toISOString();
  const attemptFields = {
    responseCode: outcome.status ?? null,
    durationMs: outcome.durationMs,
    updatedAt: afterIso,
  };

  if (succeeded(outcome)) {
    await updateDelivery(message.orgId, message.webhookId, message.deliveryId, {
      ...attemptFields,
      status: 'succeeded',
      error: null,
      nextAttemptAt: null,
    });
    if (webhook.failingSince) await stillThere(updateWebhook(message.orgId, message.webhookId, { failingSince: null }));
    return 'succeeded';
  }

  return failedAttempt({ message, settings, queue }, webhook, {
    ...attemptFields,
    error: outcome.error ?? `HTTP status ${outcome.status}`,
    startedAt: iso,
    after,
    nextLane,
  });
}

/**
 * An attempt that failed: the delivery `pending` again and the message sent back after its backoff
 * while within the retry window (in the lane its endpoint's speed puts it in), else `failed`; the
 * endpoint's failures noted.
 */
async function failedAttempt(
  { message, settings, queue }: { message: DeliveryMessage; settings: DeliverySettings; queue: DeliveryQueue },
  webhook: WebhookFields,
  attempt: {
    responseCode: number | null;
    durationMs: number;
    updatedAt: string;
    error: string;
    startedAt: string;
    after: number;
    nextLane: Lane;
  },
): Promise<string> {
  const { startedAt, after, nextLane, ...recorded } = attempt;
  const firstAttemptAt = message.firstAttemptAt ?? startedAt;
  const retrying = after - Date.parse(firstAttemptAt) < settings.retryWindowMs;
  const wait = backoffMs(message.attempt, settings);
  await updateDelivery(message.orgId, message.webhookId, message.deliveryId, {
    ...recorded,
    status: retrying ? 'pending' : 'failed',
    nextAttemptAt: retrying ? new Date(after + wait).toISOString() : null,
    firstAttemptAt,
  });
  await stillThere(noteFailure(webhook, message, after, settings));
  if (retrying) {
    await queue.send(
      [{ ...message, attempt: message.attempt + 1, firstAttemptAt, notBefore: after + wait, lane: nextLane, deferrals: 0 }],
      Math.min(MAX_DELAY_SECONDS, wait / 1000),
    );
  }
  return retrying ? 'retrying' : 'failed';
}

/**
 * The endpoint's bookkeeping after an attempt, for an endpoint deleted while the attempt ran: there
 * is nothing left to keep. The attempt is recorded on its delivery all the same, and a retry it
 * queued finds the endpoint gone and cancels the delivery.
 */
async function stillThere(bookkeeping: Promise<unknown>): Promise<void> {
  try {
    await bookkeeping;
  } catch (err) {
    if (!isRefused(err, webhookRefusals.webhook)) throw err;
  }
}

/** Keeps the endpoint's slow attempts in a row, and moves it between lanes at the thresholds. */
async function noteSpeed(webhook: WebhookFields, message: DeliveryMessage, speed: AttemptSpeed): Promise<Lane> {
  const previous = webhook.slowAttempts;
  const { lane } = webhook;
  // Counted atomically: an endpoint's attempts run in parallel.
  const slowAttempts =
    speed === 'slow' ? await countSlowAttempt(message.orgId, message.webhookId) : slowAttemptsAfter(previous, speed);
  const next = laneOf(slowAttempts);
  if (next !== lane || (speed !== 'slow' && slowAttempts !== previous)) {
    await setLane(message.orgId, message.webhookId, next, slowAttempts);
  }
  return next;
}

/** Starts or extends the endpoint's run of failures; past `disableAfterMs`, disables it. */
async function noteFailure(webhook: WebhookFields, message: DeliveryMessage, now: number, settings: DeliverySettings) {
  const since = webhook.failingSince ? Date.parse(webhook.failingSince) : undefined;
  if (since === undefined) {
    await updateWebhook(message.orgId, message.webhookId, { failingSince: new Date(now).toISOString() });
    return;
  }
  if (now - since >= settings.disableAfterMs) {
    const days = Math.round((settings.disableAfterMs / 86_400_000) * 10) / 10;
    await updateWebhook(message.orgId, message.webhookId, {
      active: false,
      disabledReason: `every delivery failed for ${days} day(s) since ${webhook.failingSince}`,
      updatedAt: new Date(now).toISOString(),
    });
  }
}

/**
 * The service's configuration, read from the environment once, at module load: the one place
 * runtime code reads `process.env`. On Lambda (AWS_LAMBDA_FUNCTION_NAME is set) a missing
 * required value fails the cold start at once, instead of the first request failing obscurely;
 * locally (`npm start`, tests, the admin CLI) the defaults apply.
 */
import { LANE_CONCURRENCY } from './webhooks/fairness.ts';

const env = process.env;

/** True inside an AWS Lambda execution environment. */
export const onLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

function required(name: string, localDefault: string): string {
  const value = env[name];
  if (value) return value;
  if (onLambda) throw new Error(`${name} must be set in the function's environment`);
  return localDefault;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? n : fallback;
}

export const config = {
  /** The one DynamoDB table (the CDK stack sets it on every function). */
  tableName: required('TABLE_NAME', 'sprint-ticketing'),
  /** DynamoDB Local (or another endpoint) instead of AWS; unset on Lambda. */
  dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
  /** Region and credentials for a local endpoint, which accepts any. */
  localRegion: env.AWS_REGION ?? 'local',
  localCredentials: {
    accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local',
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local',
  },
  /** The webhook delivery queue (SQS); unset locally, where an in-process queue stands in. */
  deliveryQueueUrl: env.DELIVERY_QUEUE_URL || undefined,
  /** The slow lane's queue (SQS): endpoints that keep timing out; unset locally. */
  slowDeliveryQueueUrl: env.SLOW_DELIVERY_QUEUE_URL || undefined,
  /** Webhook delivery (docs/change-feed.md); the environment overrides exist for tests only. */
  webhooks: {
    /** Loopback receivers are allowed locally (`npm start`, tests); never on Lambda. */
    allowLoopback: !onLambda && env.WEBHOOK_ALLOW_LOOPBACK === '1',
    /** Delay after the first failed attempt; it doubles after each failure. */
    backoffBaseMs: positive(env.WEBHOOK_BACKOFF_BASE_MS, 10_000),
    /** Longest wait between two attempts. */
    backoffMaxMs: positive(env.WEBHOOK_BACKOFF_MAX_MS, 3_600_000),
    /** How long a delivery is retried after its first attempt before it is marked failed. */
    retryWindowMs: positive(env.WEBHOOK_RETRY_WINDOW_MS, 24 * 3_600_000),
    /** How long an endpoint may fail without a success before it is disabled. */
    disableAfterMs: positive(env.WEBHOOK_DISABLE_AFTER_MS, 3 * 24 * 3_600_000),
    /** A receiver must answer within this. */
    timeoutMs: positive(env.WEBHOOK_TIMEOUT_MS, 10_000),
    /**
     * An attempt that takes this long or more, answered or not, is slow (lib/webhooks/fairness.ts):
     * half the timeout (5 s) unless set. The tests set it to their short timeout, so that only a
     * receiver that never answers counts, not one slowed by a loaded machine.
     */
    slowMs: positive(env.WEBHOOK_SLOW_MS, positive(env.WEBHOOK_TIMEOUT_MS, 10_000) / 2),
    /**
     * Deliverer invocations each lane runs at once (the per-organisation cap is a fifth of it):
     * the event source mappings' maximum concurrency in AWS, the local queue's parallelism.
     */
    concurrency: {
      fast: positive(env.WEBHOOK_CONCURRENCY, LANE_CONCURRENCY.fast),
      slow: positive(env.WEBHOOK_SLOW_CONCURRENCY, LANE_CONCURRENCY.slow),
    },
    /** First wait of a message over its organisation's cap (lib/webhooks/fairness.ts). */
    deferMs: positive(env.WEBHOOK_DEFER_MS, 1000),
  },
  /**
   * How webhook signing secrets are sealed at rest (lib/webhooks/secret-box.ts). The KMS key
   * reaches only the functions that may use it (the CDK stack sets it on create, rotate-secret and
   * the delivery function); locally there is no KMS, and a local AES key stands in for it.
   */
  webhookSecrets: {
    /** The stack's webhook secret key (ARN): set, secrets are sealed and opened with KMS. */
    kmsKeyId: env.WEBHOOK_SECRET_KMS_KEY_ID || undefined,
    /** Base64 of 32 bytes: `npm start` keeps one in its data folder, the tests set a fixed one. Never read on Lambda. */
    localKey: onLambda ? undefined : env.WEBHOOK_SECRET_LOCAL_KEY || undefined,
  },
  /** The `service` of every log line. */
  serviceName: env.POWERTOOLS_SERVICE_NAME ?? 'sprint-ticketing',
};

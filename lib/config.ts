/**
 * The service's configuration: the one place runtime code reads its settings from `process.env`.
 * Read once, on first use (the first call of a handler), never when a module loads: a tool that
 * runs handlers in its own process (`npm start`, `npm run invoke`, the tests) sets the environment
 * first and imports what it likes in any order. On Lambda (AWS_LAMBDA_FUNCTION_NAME is set) a
 * missing required value is a `ConfigurationError` naming it; locally the defaults apply.
 *
 * Powertools reads its own variables (`POWERTOOLS_*`) when the logger and metrics are built
 * (lib/http/logger.ts, lib/http/metrics.ts).
 */
import { randomBytes } from 'node:crypto';
import { LANE_CONCURRENCY } from './model/fairness.ts';
import { ATTACHMENT_LIMITS } from './vocabulary/attachments.ts';
import { TRASH_RETENTION } from './vocabulary/trash.ts';

/** True inside an AWS Lambda execution environment (set by the Lambda runtime, not by anyone's configuration). */
export const onLambda = process.env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

/**
 * The service cannot run as configured: a required setting is missing or malformed. Answered as
 * 500 with its message (lib/http/errors.ts), which names the setting and never a value.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

type Env = Record<string, string | undefined>;

/** Parses a comma-separated origin list: exact `scheme://host[:port]` origins, no paths, no wildcards. */
export function parseOrigins(raw: string | undefined, name = 'CORS origin'): string[] {
  const origins = (raw ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
  for (const origin of origins) {
    if (!/^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$/i.test(origin)) {
      throw new ConfigurationError(`${name} must be an exact origin such as https://app.example.com, got "${origin}"`);
    }
  }
  return origins;
}

/** Parses a comma-separated list of `Host` header values (`host[:port]`, an IPv6 address in brackets), lower-cased. */
export function parseHosts(raw: string | undefined, name: string): string[] {
  const hosts = (raw ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  for (const host of hosts) {
    if (!/^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/.test(host)) {
      throw new ConfigurationError(`${name} takes host[:port] values such as localhost:3000, got "${host}"`);
    }
  }
  return hosts;
}

/**
 * The service's base URL as clients reach it: scheme, host and the stage's path, no trailing slash
 * (`https://api.example.com`, `https://abc.execute-api.eu-west-1.amazonaws.com/prod`,
 * `http://localhost:3000`).
 */
export function parseBaseUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${name} must be an absolute URL such as https://api.example.com, got "${raw}"`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigurationError(`${name} must be an http(s) URL with no query, fragment or user, got "${raw}"`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Registrations of OAuth clients one source address may make per hour (lib/model/oauth.ts says why). */
export const OAUTH_REGISTRATIONS_PER_ADDRESS = 20;

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value && Number.isFinite(n) && n > 0 ? n : fallback;
}

/** The configuration an environment describes (pure: `config()` reads `process.env` once). */
/** A whole number of days from 1 to 3650, or the default when unset. */
export function positiveDays(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const days = Number(raw);
  if (!Number.isSafeInteger(days) || days < TRASH_RETENTION.minDays || days > TRASH_RETENTION.maxDays) {
    throw new ConfigurationError(`TRASH_RETENTION_DAYS must be a whole number of days from 1 to 3650, not ${raw}`);
  }
  return days;
}

export function readConfig(env: Env, lambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined) {
  const required = (name: string, localDefault: string): string => {
    const value = env[name];
    if (value) return value;
    if (lambda) throw new ConfigurationError(`${name} must be set in the function's environment`);
    return localDefault;
  };
  return {
    /** The one DynamoDB table (the CDK stack sets it on every function). */
    tableName: required('TABLE_NAME', 'sprint-ticketing'),
    /** DynamoDB Local (or another endpoint) instead of AWS; unset on Lambda. */
    dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
    /** Region and credentials for a local endpoint, which accepts any. */
    localRegion: env.AWS_REGION || 'local',
    localCredentials: {
      accessKeyId: env.AWS_ACCESS_KEY_ID || 'local',
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY || 'local',
    },
    /** Days a deleted item stays in the trash before DynamoDB's TTL purges it (`TRASH_RETENTION_DAYS`, default 30). */
    trashRetentionDays: positiveDays(env.TRASH_RETENTION_DAYS, TRASH_RETENTION.defaultDays),
    /** The webhook delivery queue (SQS); unset locally, where an in-process queue stands in. */
    deliveryQueueUrl: env.DELIVERY_QUEUE_URL || undefined,
    /** The slow lane's queue (SQS): endpoints that keep timing out; unset locally. */
    slowDeliveryQueueUrl: env.SLOW_DELIVERY_QUEUE_URL || undefined,
    /** Webhook delivery (docs/change-feed.md); the environment overrides exist for tests only. */
    webhooks: webhookConfig(env, lambda),
    ...accessConfig(env),
    /**
     * Attachments (docs/attachments.md): the bucket their files live in, and their limits. The
     * stack sets `ATTACHMENTS_BUCKET` on the functions that sign or read its objects; locally
     * `npm start` and the tests point `S3_ENDPOINT` at their S3-compatible server.
     */
    attachments: attachmentConfig(env, lambda),
    webhookSecrets: webhookSecretsConfig(env, lambda),
  };
}

/** Who reaches the service and how: its public URL, cursor key, browser origins, `/mcp` and OAuth (`readConfig()`). */
function accessConfig(env: Env) {
  return {
    /**
     * `PUBLIC_URL`: the service's base URL as clients reach it, the issuer of its OAuth tokens and
     * the origin of its own pages. The CDK stack sets it (the custom domain, else API Gateway's
     * URL with the stage); `npm start` sets it from its own address. Never taken from a request.
     */
    publicUrl: env.PUBLIC_URL ? parseBaseUrl(env.PUBLIC_URL, 'PUBLIC_URL') : undefined,
    /**
     * `CURSOR_KEY`: the secret that seals the cursors of `next` links (lib/db/core/cursors.ts), the same on
     * every function so that a cursor one made another opens. The CDK stack sets it from a
     * generated secret; locally a key made per process stands in (a restart ends its cursors).
     */
    cursorKey: env.CURSOR_KEY || undefined,
    /** Web origins allowed to call from a browser (CORS; lib/http/cors.ts). */
    corsOrigins: parseOrigins(env.CORS_ORIGINS),
    /** Who may call `/mcp` (lib/mcp/http.ts: Origin and Host checks against DNS rebinding). */
    mcp: {
      /** Origins of browser-based MCP clients allowed beside the service's own and CORS_ORIGINS'. */
      allowedOrigins: parseOrigins(env.MCP_ALLOWED_ORIGINS, 'MCP_ALLOWED_ORIGINS'),
      /** `Host` values `/mcp` answers; none: no Host check (API Gateway serves only its own hosts). */
      allowedHosts: parseHosts(env.MCP_ALLOWED_HOSTS, 'MCP_ALLOWED_HOSTS'),
    },
    /** The OAuth authorization server; the environment override exists for tests only. */
    oauth: {
      /** Client registrations per source address per hour. */
      registrationsPerAddress: positive(env.OAUTH_REGISTRATION_LIMIT, OAUTH_REGISTRATIONS_PER_ADDRESS),
    },
  };
}

/**
 * How webhook signing secrets are sealed at rest (lib/aws/secret-box.ts). The KMS key
 * reaches only the functions that may use it (the CDK stack sets it on create, rotate-secret and
 * the delivery function); locally there is no KMS, and a local AES key stands in for it.
 */
function webhookSecretsConfig(env: Env, lambda: boolean) {
  return {
    /** The stack's webhook secret key (ARN): set, secrets are sealed and opened with KMS. */
    kmsKeyId: env.WEBHOOK_SECRET_KMS_KEY_ID || undefined,
    /** Base64 of 32 bytes: `npm start` keeps one in its data folder, the tests set a fixed one. Never read on Lambda. */
    localKey: lambda ? undefined : env.WEBHOOK_SECRET_LOCAL_KEY || undefined,
  };
}

/** Webhook delivery's settings (`readConfig().webhooks`). */
function webhookConfig(env: Env, lambda: boolean) {
  return {
    /** Loopback receivers are allowed locally (`npm start`, tests); never on Lambda. */
    allowLoopback: !lambda && env.WEBHOOK_ALLOW_LOOPBACK === '1',
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
     * An attempt that takes this long or more, answered or not, is slow (lib/model/fairness.ts):
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
    /** First wait of a message over its organisation's cap (lib/model/fairness.ts). */
    deferMs: positive(env.WEBHOOK_DEFER_MS, 1000),
  };
}

/** Attachments' bucket and limits (`readConfig().attachments`). */
function attachmentConfig(env: Env, lambda: boolean) {
  return {
    /** Required on Lambda where used (lib/aws/objects.ts); the local default otherwise. */
    bucket: env.ATTACHMENTS_BUCKET || (lambda ? undefined : 'sprint-ticketing-attachments'),
    /** An S3-compatible server instead of AWS (path-style URLs); unset on Lambda. */
    s3Endpoint: lambda ? undefined : env.S3_ENDPOINT || undefined,
    /** The local server's account (s3rver's own); on Lambda the execution role's credentials. */
    localCredentials: {
      accessKeyId: env.S3_ACCESS_KEY_ID || 'S3RVER',
      secretAccessKey: env.S3_SECRET_ACCESS_KEY || 'S3RVER',
    },
    region: env.AWS_REGION || 'us-east-1',
    /** Largest file, in bytes (25 MB unless set). */
    maxFileBytes: positive(env.ATTACHMENT_MAX_BYTES, ATTACHMENT_LIMITS.fileBytes),
    /** Files on one issue (its comments' included). */
    maxFilesPerIssue: positive(env.ATTACHMENT_MAX_PER_ISSUE, ATTACHMENT_LIMITS.filesPerIssue),
    /** Bytes of attachments one organisation may keep. */
    maxOrganisationBytes: positive(env.ATTACHMENT_MAX_ORGANISATION_BYTES, ATTACHMENT_LIMITS.organisationBytes),
    /** Pending attachments (declared, not completed) and their bytes, per account and per organisation. */
    pendingCaps: {
      account: {
        files: positive(env.ATTACHMENT_MAX_PENDING_PER_ACCOUNT, ATTACHMENT_LIMITS.pendingPerAccount),
        bytes: positive(env.ATTACHMENT_MAX_PENDING_BYTES_PER_ACCOUNT, ATTACHMENT_LIMITS.pendingBytesPerAccount),
      },
      organisation: {
        files: positive(env.ATTACHMENT_MAX_PENDING_PER_ORGANISATION, ATTACHMENT_LIMITS.pendingPerOrganisation),
        bytes: positive(env.ATTACHMENT_MAX_PENDING_BYTES_PER_ORGANISATION, ATTACHMENT_LIMITS.pendingBytesPerOrganisation),
      },
    },
    /** How long an upload form, and a download URL, stay valid, in seconds. */
    uploadSeconds: positive(env.ATTACHMENT_UPLOAD_SECONDS, ATTACHMENT_LIMITS.uploadSeconds),
    downloadSeconds: positive(env.ATTACHMENT_DOWNLOAD_SECONDS, ATTACHMENT_LIMITS.downloadSeconds),
  };
}

export type Config = ReturnType<typeof readConfig>;

let current: Config | undefined;

/** The configuration, read from the environment on the first call and kept for the process. */
export function config(): Config {
  return (current ??= readConfig(process.env, onLambda));
}

/** The secret cursors are sealed with (`CURSOR_KEY`): required on Lambda; locally one made for this process. */
export function cursorKey(): string {
  const key = config().cursorKey;
  if (key) return key;
  if (onLambda) throw new ConfigurationError("CURSOR_KEY must be set in the function's environment");
  return (localCursorKey ??= randomBytes(32).toString('base64'));
}
let localCursorKey: string | undefined;

/**
 * The service's base URL (`PUBLIC_URL`): required on Lambda where it is used (the OAuth and MCP
 * functions, which the CDK stack gives it); locally `npm start`'s default address.
 */
export function publicUrl(): string {
  const url = config().publicUrl;
  if (url) return url;
  if (onLambda) throw new ConfigurationError("PUBLIC_URL must be set in the function's environment");
  return 'http://localhost:3000';
}

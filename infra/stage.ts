/**
 * A deployment stage and its settings, from CDK context (`-c key=value`): the app reads it, the
 * stack builds from it, the tests synthesize each stage from it. Every limit is a named constant
 * with the reason for its value.
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { parseOrigins } from '../lib/http/cors.ts';

export type StageName = 'dev' | 'prod';
export const stageNames: readonly StageName[] = ['dev', 'prod'];

/**
 * Default throttle of every method of the stage (API Gateway applies it per method, before the
 * authorizer runs), so that junk tokens and the unauthenticated routes have a bounded cost. A
 * busy method of a healthy service stays far below it: one organisation is held to 100 requests
 * a second by its usage plan, one token to 10 a second by its bucket (lib/model/ratelimit.ts).
 */
export const STAGE_THROTTLE = { rateLimit: 200, burstLimit: 400 } as const;

/**
 * Throttle of each receiver of another service's webhooks (`receiver` rows of lib/routes.ts:
 * GitHub's), a method setting of its own on the stage. It has no token, so no usage plan bounds it:
 * anyone can post to it, and each post costs a read of the connection it names (and, for a
 * connected repository, a KMS Decrypt until the secret is cached) before its signature fails. 50 a
 * second, bursts of 100, is far above what the repositories of one service's projects send (a push
 * is a few deliveries: push, create, pull_request), and a quarter of the stage's default, so a flood
 * of forged deliveries takes no more. GitHub's deliveries come from GitHub's addresses, which anyone
 * can make send to it (a repository of their own): no address list would tell them apart.
 */
export const RECEIVER_THROTTLE = { rateLimit: 50, burstLimit: 100 } as const;

/**
 * Reserved concurrency of a receiver's function: it reads the connection, opens its secret and
 * writes the delivery (some 30 ms warm), so 10 concurrent executions carry some 300 deliveries a
 * second, above its throttle; and a flood of them cannot take more of the account. More than the
 * documentation's 5: GitHub does not retry a delivery the function was too busy to take.
 */
export const RECEIVER_RESERVED_CONCURRENCY = 10;

/** Gateway throttle per organisation (its usage plan key); the exact per-token limit is in DynamoDB. */
export const ORGANISATION_THROTTLE = { rateLimit: 100, burstLimit: 200 } as const;

/**
 * Reserved concurrency of the token authorizer. Every request to an authenticated route invokes it
 * before anything can tell a junk token from a good one (no caching, so a revoked token fails at
 * once), so a flood of junk tokens is a flood of authorizer invocations. Reserving 50 caps what it
 * can take from the account's pool (1,000 by default) and leaves the rest to the route functions
 * and to anything else in the account. The cost: during such a flood legitimate requests share
 * those 50 with it and some get 503 (AUTHORIZER_FAILURE, Retry-After: 1) until WAF and the stage
 * throttle shed it. Sizing: a warm authorizer answers in ~10-20 ms (one UpdateItem), so 50
 * concurrent executions carry some 2,500 requests a second, above the sum of the per-method stage
 * throttles that realistic traffic reaches; cold starts (~300 ms) still leave ~150 a second.
 * `-c authorizerConcurrency=none` leaves it unreserved (accounts whose concurrency quota is below
 * this plus the 100 that Lambda keeps unreserved).
 */
export const AUTHORIZER_RESERVED_CONCURRENCY = 50;

/**
 * Reserved concurrency of the functions behind unauthenticated routes (the documentation): they
 * answer from memory in about a millisecond, so 5 concurrent executions carry thousands of
 * requests a second, and a flood of them cannot take more.
 */
export const UNAUTHENTICATED_RESERVED_CONCURRENCY = 5;

/**
 * WAF rate-based rules, per client IP, over WAF's 5-minute window. Requests without a well-formed
 * token fail authentication before any DynamoDB call; a browser reading the documentation makes
 * a handful, so 100 per 5 minutes per IP is generous. A receiver's deliveries carry no token by
 * design and are left out of that rule: GitHub sends every repository's from a few addresses of its
 * own. Every request: one token may make up to 600 + 10/s (3,600 per 5 minutes); 6,000 leaves room
 * for a second token behind the same NAT, and is 20 deliveries a second from one GitHub address.
 */
export const WAF_LIMITS = { unauthenticatedPer5Min: 100, perIpPer5Min: 6000 } as const;

/**
 * How long `prod` keeps function and access logs: an incident is often found weeks after it began,
 * and its review (and a yearly audit) needs the requests from its start.
 */
export const INCIDENT_REVIEW_RETENTION = RetentionDays.ONE_YEAR;
/** `dev` logs: enough to debug last week's deploy. */
export const DEV_LOG_RETENTION = RetentionDays.ONE_WEEK;

export interface StageConfig {
  stage: StageName;
  /** `prod`: the table (RETAIN, deletion protection) and the logs outlive the stack. */
  retain: boolean;
  logRetention: RetentionDays;
  stageThrottle: { rateLimit: number; burstLimit: number };
  organisationThrottle: { rateLimit: number; burstLimit: number };
  /** Undefined: the authorizer is not reserved any concurrency. */
  authorizerConcurrency: number | undefined;
  /** An AWS WAF web ACL on the stage (`prod` by default). */
  waf: { unauthenticatedPer5Min: number; perIpPer5Min: number } | undefined;
  /** A custom domain for the API (both context values, or neither). */
  domain: { domainName: string; certificateArn: string } | undefined;
  /** Where alarms notify: an e-mail address subscribed to the stack's topic, and/or an existing topic. */
  alarmEmail: string | undefined;
  alarmTopicArn: string | undefined;
  /** Web origins allowed to call the API from a browser (CORS); none by default. */
  corsOrigins: string[];
}

type Context = (key: string) => string | undefined;

function positive(context: Context, key: string, fallback: number): number {
  const raw = context(key);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`context ${key} must be a positive number, got "${raw}"`);
  return value;
}

function flag(context: Context, key: string, fallback: boolean): boolean {
  const raw = context(key);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`context ${key} must be true or false, got "${raw}"`);
}

/**
 * The stage's settings from context: `stage` (dev|prod, default dev), `stageThrottleRate`,
 * `stageThrottleBurst`, `throttleRate`, `throttleBurst` (per organisation), `authorizerConcurrency`
 * (a number or `none`), `waf` (true|false; default true in prod), `wafUnauthenticatedLimit`,
 * `wafIpLimit`, `domainName` + `certificateArn`, `alarmEmail`, `alarmTopicArn`, `corsOrigins` (exact
 * origins, comma-separated).
 */
export function stageConfig(context: Context): StageConfig {
  const stage = context('stage') ?? 'dev';
  if (!stageNames.includes(stage as StageName)) throw new Error(`context stage must be dev or prod, got "${stage}"`);
  const prod = stage === 'prod';
  const domainName = context('domainName');
  const certificateArn = context('certificateArn');
  if ((domainName === undefined) !== (certificateArn === undefined)) {
    throw new Error('a custom domain needs both domainName and certificateArn');
  }
  const concurrency = context('authorizerConcurrency');
  return {
    stage: stage as StageName,
    retain: prod,
    logRetention: prod ? INCIDENT_REVIEW_RETENTION : DEV_LOG_RETENTION,
    stageThrottle: {
      rateLimit: positive(context, 'stageThrottleRate', STAGE_THROTTLE.rateLimit),
      burstLimit: positive(context, 'stageThrottleBurst', STAGE_THROTTLE.burstLimit),
    },
    organisationThrottle: {
      rateLimit: positive(context, 'throttleRate', ORGANISATION_THROTTLE.rateLimit),
      burstLimit: positive(context, 'throttleBurst', ORGANISATION_THROTTLE.burstLimit),
    },
    authorizerConcurrency:
      concurrency === 'none' ? undefined : positive(context, 'authorizerConcurrency', AUTHORIZER_RESERVED_CONCURRENCY),
    waf: flag(context, 'waf', prod)
      ? {
          unauthenticatedPer5Min: positive(context, 'wafUnauthenticatedLimit', WAF_LIMITS.unauthenticatedPer5Min),
          perIpPer5Min: positive(context, 'wafIpLimit', WAF_LIMITS.perIpPer5Min),
        }
      : undefined,
    domain: domainName && certificateArn ? { domainName, certificateArn } : undefined,
    alarmEmail: context('alarmEmail'),
    alarmTopicArn: context('alarmTopicArn'),
    corsOrigins: parseOrigins(context('corsOrigins')),
  };
}

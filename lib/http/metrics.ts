import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';

/** CloudWatch namespace of the service's own metrics (the CDK stack's alarms and dashboard read it). */
export const METRICS_NAMESPACE = 'SprintTicketing';

/** The business counters operators watch, by metric name. */
export const metricNames = {
  /** Every response of a route function, by `route` and, separately, by `status`. */
  requests: 'Requests',
  /** Requests over their token's rate limit (answered 429 by the route). */
  rateLimited: 'RateLimited',
  /** Requests the authorizer refused: missing, malformed, unknown or revoked token (401). */
  refusedTokens: 'RefusedTokens',
  /** The authorizer failed (DynamoDB refused the lookup after retries): 503 to the caller. */
  authorizerFailures: 'AuthorizerFailures',
  /** Items the stream consumer removed under deleted projects, sprints and issues. */
  cascadeItemsRemoved: 'CascadeItemsRemoved',
  /** Steps of data migrations run (lib/migrations/runner.ts). */
  migrationSteps: 'MigrationSteps',
  /** Data migrations finished. */
  migrationsCompleted: 'MigrationsCompleted',
  /** Data migrations that failed (recorded as failed; the stack alarms on any). */
  migrationFailures: 'MigrationFailures',
} as const;

/**
 * One Powertools Metrics per module scope: Embedded Metric Format lines on standard output, which
 * CloudWatch turns into metrics with no API call. `POWERTOOLS_METRICS_DISABLED=true` (the tests)
 * turns them off.
 */
export const metrics = new Metrics({
  namespace: METRICS_NAMESPACE,
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'sprint-ticketing',
  // Stages may share an account: every metric carries its stage (set by the CDK stack).
  defaultDimensions: { stage: process.env.STAGE ?? 'local' },
});

/**
 * Counts `count` of a metric for this invocation; `publishMetrics` writes them. Dimension sets:
 * `service` and `stage` only, unless `dimensions` adds one (each key its own set, so that a route or a status
 * is one metric each rather than one per route and status pair).
 */
export function countMetric(name: string, count = 1, dimensions: Record<string, string> = {}): void {
  for (const [key, value] of Object.entries(dimensions)) metrics.addDimensions({ [key]: value });
  metrics.addMetric(name, MetricUnit.Count, count);
}

/** Writes the invocation's metrics as one EMF line, if it counted any. */
export function publishMetrics(): void {
  if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
}

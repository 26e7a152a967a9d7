import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  type IMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { FilterPattern, type LogGroup, MetricFilter } from 'aws-cdk-lib/aws-logs';
import { type ITopic, Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, metricNames } from '../../lib/http/metrics.ts';

/** Every alarm and graph looks at 5-minute periods: short enough to page within minutes, long enough to smooth single requests. */
const PERIOD = Duration.minutes(5);

/**
 * Alarm thresholds. Rates need a minimum of traffic (`MIN_REQUESTS_FOR_RATE` per period) so that
 * one failed request out of three at night does not page anyone.
 */
export const thresholds = {
  /** 5xx over 1% of requests: the handlers answer every expected error themselves (4xx), so any 5xx is a fault. */
  api5xxRate: 0.01,
  /** p99 latency over 1.5 s for 15 minutes: a warm request takes tens of ms, a cold one (authorizer and route) under a second. */
  apiP99LatencyMs: 1500,
  /** 429 over 5% of requests: clients now and then meeting their limit is normal, a twentieth of all traffic is abuse or limits set too low. */
  api429Rate: 0.05,
  /** Any authorizer failure: each one is a 503 to a caller with a valid token (DynamoDB refused the lookup after retries). */
  authorizerFailures: 1,
  /** Any Lambda error or throttle: handlers answer errors as responses, so an error is a crash or a timeout, and a throttle a caller turned away. */
  functionErrorsOrThrottles: 1,
  /** Any message in a dead-letter queue: a stream record the cascade gave up on, whose children are still there. */
  deadLetters: 1,
  /** Stream iterator age over 10 minutes: the cascade falls behind, and deleted parents' children linger (records expire after a day). */
  iteratorAgeMs: 10 * 60_000,
  /** Any failed data migration: it stays failed, and the migrations after it wait, until a run succeeds. */
  migrationFailures: 1,
} as const;
export const MIN_REQUESTS_FOR_RATE = 20;

/** Functions watched by one errors-or-throttles alarm (2 metrics each; an alarm reads at most 10). */
const FUNCTIONS_PER_ALARM = 5;

export interface MonitoringProps {
  /** The stage: part of every name, and a dimension of the service's own metrics. */
  stage: string;
  api: RestApi;
  /** The API's access log (its 429 lines become a metric: API Gateway has none for 429). */
  accessLogs: LogGroup;
  authorizer: IFunction;
  /** Every function but the authorizer, with a label. */
  functions: { label: string; fn: IFunction }[];
  cascade: { fn: IFunction; failures: Queue };
  /** The WAF web ACL's name, when there is one. */
  webAclName?: string | undefined;
  /** An e-mail address to subscribe to the alarm topic. */
  alarmEmail?: string | undefined;
  /** An existing topic to notify instead of a new one. */
  alarmTopicArn?: string | undefined;
}

/**
 * Alarms on the signals that need a person (API 5xx rate, p99 latency, 429 rate, authorizer
 * failures, each function's errors and throttles, the dead-letter queue, the stream's iterator
 * age), all notifying one SNS topic, and one dashboard with the same signals and the service's
 * own counters (lib/http/metrics.ts).
 */
export class Monitoring extends Construct {
  readonly topic: ITopic;
  readonly alarms: Alarm[] = [];
  readonly dashboard: Dashboard;
  private readonly addAlarm: (id: string, metric: IMetric, threshold: number, description: string) => Alarm;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const name = `sprint-ticketing-${props.stage}`;
    this.topic = props.alarmTopicArn
      ? Topic.fromTopicArn(this, 'AlarmTopic', props.alarmTopicArn)
      : new Topic(this, 'AlarmTopic', { topicName: `${name}-alarms`, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new EmailSubscription(props.alarmEmail));
    const action = new SnsAction(this.topic);

    const alarm = (id: string, metric: IMetric, threshold: number, description: string, evaluationPeriods = 1) => {
      const created = new Alarm(this, id, {
        alarmName: `${name}-${id}`,
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
      return created;
    };
    this.addAlarm = alarm;
    const own = (metricName: string, dimensionsMap: Record<string, string> = {}) =>
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: 'sprint-ticketing', stage: props.stage, ...dimensionsMap },
        statistic: 'Sum',
        period: PERIOD,
      });

    const requests = props.api.metricCount({ period: PERIOD, statistic: 'Sum' });
    const errors5xx = props.api.metricServerError({ period: PERIOD, statistic: 'Sum' });
    const errors4xx = props.api.metricClientError({ period: PERIOD, statistic: 'Sum' });
    const throttled429 = new MetricFilter(this, 'Http429', {
      logGroup: props.accessLogs,
      filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
      metricNamespace: METRICS_NAMESPACE,
      metricName: `Http429-${props.stage}`,
      metricValue: '1',
      defaultValue: 0,
    }).metric({ period: PERIOD, statistic: 'Sum' });
    const rate = (label: string, part: IMetric) =>
      new MathExpression({
        label,
        expression: `IF(requests >= ${MIN_REQUESTS_FOR_RATE}, part / requests, 0)`,
        usingMetrics: { requests, part },
        period: PERIOD,
      });

    alarm('Api5xxRate', rate('5xx rate', errors5xx), thresholds.api5xxRate, 'More than 1% of API requests answered 5xx');
    alarm(
      'ApiP99Latency',
      props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
      thresholds.apiP99LatencyMs,
      'API p99 latency above 1.5 s for 15 minutes',
      3,
    );
    alarm('Api429Rate', rate('429 rate', throttled429), thresholds.api429Rate, 'More than 5% of API requests answered 429');
    alarm(
      'AuthorizerFailures',
      own(metricNames.authorizerFailures),
      thresholds.authorizerFailures,
      'The token authorizer failed (503 to callers); see its log',
    );
    // The authorizer's Lambda errors include every refused token (it throws "Unauthorized" for a
    // 401), so its own alarm watches throttles only; its failures are the metric above.
    alarm(
      'AuthorizerThrottles',
      props.authorizer.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
      thresholds.functionErrorsOrThrottles,
      'The token authorizer reached its reserved concurrency: a flood, or a slow table',
    );
    // A metric-math alarm reads at most 10 metrics: functions go in groups of five (errors and
    // throttles each), every function in exactly one, the group's alarm naming them all. One alarm
    // per function would cost a CloudFormation resource each, against the stack's limit of 500.
    for (let i = 0; i < props.functions.length; i += FUNCTIONS_PER_ALARM) {
      const group = props.functions.slice(i, i + FUNCTIONS_PER_ALARM);
      const usingMetrics: Record<string, IMetric> = {};
      group.forEach(({ fn }, k) => {
        usingMetrics[`errors${k}`] = fn.metricErrors({ period: PERIOD, statistic: 'Sum' });
        usingMetrics[`throttles${k}`] = fn.metricThrottles({ period: PERIOD, statistic: 'Sum' });
      });
      const labels = group.map((g) => g.label).join(', ');
      alarm(
        `Functions${i / FUNCTIONS_PER_ALARM + 1}ErrorsOrThrottles`,
        new MathExpression({
          label: `${labels}: errors + throttles`,
          expression: 'SUM(FILL(METRICS(), 0))',
          usingMetrics,
          period: PERIOD,
        }),
        thresholds.functionErrorsOrThrottles,
        `A Lambda error (crash or timeout) or throttle in one of: ${labels}`,
      );
    }
    const deadLetters = props.cascade.failures.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' });
    alarm(
      'CascadeDeadLetters',
      deadLetters,
      thresholds.deadLetters,
      'A cascade was given up (or a stream record could not be handled): see docs/limits.md, cascade:resume',
    );
    const iteratorAge = props.cascade.fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum' });
    alarm(
      'CascadeIteratorAge',
      iteratorAge,
      thresholds.iteratorAgeMs,
      'The cascade consumer is more than 10 minutes behind the stream',
    );

    alarm(
      'MigrationFailures',
      own(metricNames.migrationFailures),
      thresholds.migrationFailures,
      'A data migration failed (recorded as failed; later ones wait): see docs/deploying.md, migrations:status',
    );

    const search = (metricName: string, dimension: string) =>
      new MathExpression({
        label: '',
        expression: `SEARCH('{${METRICS_NAMESPACE},service,stage,${dimension}} MetricName="${metricName}" stage="${props.stage}"', 'Sum', 300)`,
        period: PERIOD,
      });
    const fnMetrics = (metric: (fn: IFunction) => IMetric) => props.functions.map(({ fn }) => metric(fn));
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: 12, height: 6 });

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: name, defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 24, height: 4 }));
    this.dashboard.addWidgets(
      graph('API requests and errors', [requests, errors4xx, errors5xx, throttled429]),
      graph('API latency (ms)', [
        props.api.metricLatency({ period: PERIOD, statistic: 'p50' }),
        props.api.metricLatency({ period: PERIOD, statistic: 'p99' }),
        props.api.metricIntegrationLatency({ period: PERIOD, statistic: 'p99' }),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Requests by route', [search(metricNames.requests, 'route')]),
      graph('Requests by status', [search(metricNames.requests, 'status')]),
    );
    this.dashboard.addWidgets(
      graph(
        'Authorizer',
        [own(metricNames.refusedTokens), own(metricNames.rateLimited), own(metricNames.authorizerFailures)],
        [
          props.authorizer.metricThrottles({ period: PERIOD, statistic: 'Sum' }),
          props.authorizer.metric('ConcurrentExecutions', { period: PERIOD, statistic: 'Maximum' }),
        ],
      ),
      graph('Function errors and throttles', [
        ...fnMetrics((fn) => fn.metricErrors({ period: PERIOD, statistic: 'Sum' })),
        ...fnMetrics((fn) => fn.metricThrottles({ period: PERIOD, statistic: 'Sum' })),
      ]),
    );
    this.dashboard.addWidgets(
      graph('Cascade', [own(metricNames.cascadeItemsRemoved), deadLetters], [iteratorAge]),
      graph('Data migrations', [
        own(metricNames.migrationSteps),
        own(metricNames.migrationsCompleted),
        own(metricNames.migrationFailures),
      ]),
    );
    if (props.webAclName) {
      const blocked = (rule: string) =>
        new Metric({
          namespace: 'AWS/WAFV2',
          metricName: 'BlockedRequests',
          dimensionsMap: { WebACL: props.webAclName!, Region: props.api.stack.region, Rule: `${props.webAclName}-${rule}` },
          statistic: 'Sum',
          period: PERIOD,
        });
      this.dashboard.addWidgets(
        graph('WAF blocked requests', ['unauthenticated-per-ip', 'all-per-ip', 'aws-common-rule-set'].map(blocked)),
      );
    }
  }

  /** An alarm on any message in a dead-letter queue made after this construct (the webhook deliveries'). */
  watchDeadLetters(id: string, queue: Queue, description: string): Alarm {
    const visible = queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' });
    return this.addAlarm(id, visible, thresholds.deadLetters, description);
  }
}

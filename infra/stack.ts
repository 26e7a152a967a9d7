import { CfnOutput, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type Construct } from 'constructs';
import type { Route } from '../lib/routes.ts';
import { AttachmentBucket } from './constructs/attachment-bucket.ts';
import { CascadeConsumer } from './constructs/cascade-consumer.ts';
import { GitHubEvents } from './constructs/github-events.ts';
import { ImportJobs } from './constructs/import-jobs.ts';
import { Migrations } from './constructs/migrations.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { ChangeFeed } from './constructs/change-feed.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { RouteFunctions } from './constructs/route-functions.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { ServiceTable } from './constructs/service-table.ts';
import { WebAcl } from './constructs/web-acl.ts';
import { WebhookSecretKey } from './constructs/webhook-secret-key.ts';
import {
  authorizerEntry,
  cascadeEntry,
  deliveryEntry,
  functionId,
  type HandlerModule,
  handlerModules,
  type RouteGroup,
  routeGroupOf,
} from './functions.ts';
import { authorizerGrant, objectUse, secretKeyUse } from './grants.ts';
import { RECEIVER_THROTTLE, type StageConfig } from './stage.ts';

export interface ServiceStackProps extends StackProps {
  routes: Route[];
  /** The stage and its settings (infra/stage.ts). */
  config: StageConfig;
}

/**
 * The whole service: the table, a Lambda per handler module of `lib/routes.ts` behind the REST
 * API, the token authorizer and the stream consumers, each holding only its grant
 * (infra/grants.ts), with alarms and a dashboard, and a WAF web ACL when the stage has one.
 * Adding a route row adds its method (and, for a new module, its function) with no edit here.
 */
export class ServiceStack extends Stack {
  readonly table: ServiceTable;
  readonly authorizer: ServiceFunction;
  /** The function of each handler module (key: module path as in `lib/routes.ts`). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  /** The nested stacks of the route functions, by group (infra/functions.ts: routeGroups). */
  readonly routeStacks: ReadonlyMap<RouteGroup, RouteFunctions>;
  readonly api: ServiceApi;
  readonly cascade: CascadeConsumer;
  readonly importJobs: ImportJobs;
  readonly githubEvents: GitHubEvents;
  readonly monitoring: Monitoring;
  readonly webAcl?: WebAcl;
  readonly changeFeed: ChangeFeed;
  readonly webhookSecretKey: WebhookSecretKey;
  readonly migrations: Migrations;
  readonly attachments: AttachmentBucket;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    const retain = config.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // `prod` keeps the evidence: logs outlive the stack, for an incident review.
    const logs = { retention: config.logRetention, removalPolicy: retain };
    const table = new ServiceTable(this, 'Data', { removalPolicy: retain });
    const tableEnvironment = { TABLE_NAME: table.table.tableName };
    const stageEnvironment = { STAGE: config.stage };
    // The route functions answer allowed web origins with CORS headers (lib/http/cors.ts).
    const corsEnvironment: Record<string, string> = config.corsOrigins.length
      ? { CORS_ORIGINS: config.corsOrigins.join(',') }
      : {};

    const authorizer = new ServiceFunction(this, 'Authorizer', {
      entry: authorizerEntry,
      description: `Token authorizer (${config.stage}): principal, rate decision, usage plan key`,
      environment: { ...stageEnvironment, ...tableEnvironment },
      logs,
      // Caps what a flood of junk tokens can take from the account (infra/stage.ts).
      ...(config.authorizerConcurrency === undefined ? {} : { reservedConcurrentExecutions: config.authorizerConcurrency }),
    });
    table.grant(authorizer, authorizerGrant);

    // The route functions sit in nested stacks by route family (infra/functions.ts: routeGroups), so
    // that this stack and each of them stay far below CloudFormation's 500 resources per template.
    const functions = new Map<string, ServiceFunction>();
    const byGroup = new Map<RouteGroup, HandlerModule[]>();
    for (const module of handlerModules(props.routes)) {
      const group = routeGroupOf(module.entry);
      byGroup.set(group, [...(byGroup.get(group) ?? []), module]);
    }
    const routeStacks = new Map<RouteGroup, RouteFunctions>();
    for (const [group, modules] of byGroup) {
      const routeStack = new RouteFunctions(this, group, {
        modules,
        table,
        stageEnvironment,
        tableEnvironment: { ...tableEnvironment, ...corsEnvironment },
        logs,
        stage: config.stage,
      });
      routeStacks.set(group, routeStack);
      for (const [entry, fn] of routeStack.functions) functions.set(entry, fn);
    }

    const api = new ServiceApi(this, 'Http', {
      routes: props.routes,
      functionFor: (handler) => {
        const fn = functions.get(handler);
        if (!fn) throw new Error(`no function for ${handler}`);
        return fn;
      },
      authorizer,
      organisationThrottle: config.organisationThrottle,
      stageThrottle: config.stageThrottle,
      receiverThrottle: RECEIVER_THROTTLE,
      stageName: config.stage,
      domain: config.domain,
      logs,
      corsOrigins: config.corsOrigins,
    });

    // Every route's function may name the service in what it answers (pagination links, the OAuth
    // issuer) or check requests against it (/mcp's Origin): its base URL, never a request's Host.
    // And the one secret every route's function seals its cursors with (lib/db/core/cursors.ts), so that a
    // cursor one function made another opens: generated once, resolved into the environment at deploy.
    const cursorKey = new Secret(this, 'CursorKey', {
      description: `Seals the cursors of next links (${config.stage})`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: retain,
    });
    Validations.of(cursorKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A cursor key is not a credential: rotating it only ends the cursors in flight (422), so it is replaced by hand if ever',
    });
    for (const module of handlerModules(props.routes)) {
      functions.get(module.entry)?.addEnvironment('PUBLIC_URL', api.publicUrl);
      functions.get(module.entry)?.addEnvironment('CURSOR_KEY', cursorKey.secretValue.unsafeUnwrap());
    }

    const cascade = new CascadeConsumer(this, 'Cascade', { table, logs, environment: stageEnvironment });
    const importJobs = new ImportJobs(this, 'ImportJobs', {
      table,
      logs,
      environment: stageEnvironment,
      failures: cascade.failures,
    });
    const githubEvents = new GitHubEvents(this, 'GitHubEvents', {
      table,
      logs,
      environment: stageEnvironment,
      failures: cascade.failures,
    });
    const name = `sprint-ticketing-${config.stage}`;
    // The pending data migrations run once the API serves this release (its writes keep the new layout).
    this.migrations = new Migrations(this, 'Migrations', {
      table,
      logs,
      functionName: `${name}-migrations`,
      environment: stageEnvironment,
      runAfter: [api.api.deploymentStage],
    });
    if (config.waf) {
      this.webAcl = new WebAcl(this, 'Waf', {
        name,
        stageArn: api.api.deploymentStage.stageArn,
        limits: config.waf,
        receiverPaths: props.routes.filter((route) => route.receiver).map((route) => route.path),
      });
    } else {
      Validations.of(api.api.deploymentStage).acknowledge({
        id: 'AwsSolutions-APIG3',
        reason: `No WAF on this ${config.stage} stage (-c waf=true adds it; prod has it by default): the stage throttle and the authorizer's concurrency bound still cap a flood`,
      });
    }
    this.monitoring = new Monitoring(this, 'Monitoring', {
      stage: config.stage,
      api: api.api,
      accessLogs: api.accessLogs,
      authorizer,
      functions: [
        ...[...functions].map(([entry, fn]) => ({ label: functionId(entry), fn })),
        { label: 'Cascade', fn: cascade.fn },
        { label: 'ImportJobs', fn: importJobs.fn },
        { label: 'GitHubEvents', fn: githubEvents.fn },
        { label: 'Migrations', fn: this.migrations.fn },
      ],
      cascade: { fn: cascade.fn, failures: cascade.failures },
      webAclName: this.webAcl ? name : undefined,
      alarmEmail: config.alarmEmail,
      alarmTopicArn: config.alarmTopicArn,
    });
    this.table = table;
    this.authorizer = authorizer;
    this.functions = functions;
    this.routeStacks = routeStacks;
    this.api = api;
    this.cascade = cascade;
    this.importJobs = importJobs;
    this.githubEvents = githubEvents;
    this.changeFeed = new ChangeFeed(this, 'ChangeFeed', { table, logs, environment: stageEnvironment });
    this.monitoring.watchDeadLetters(
      'DeliveryDeadLetters',
      this.changeFeed.deadLetters,
      'A webhook delivery message (fast or slow lane) failed to run 5 times: see docs/change-feed.md',
    );

    // Webhook signing secrets are sealed under a key of their own, usable only by the functions of
    // infra/grants.ts (secretKeyUse): kept as long as the table, whose secrets it alone opens.
    this.webhookSecretKey = new WebhookSecretKey(this, 'WebhookSecrets', { removalPolicy: retain });
    for (const [entry, { use, owner }] of Object.entries(secretKeyUse)) {
      const fn = entry === deliveryEntry ? this.changeFeed.deliverer : functions.get(entry);
      if (!fn) throw new Error(`no function for ${entry}`);
      this.webhookSecretKey.allow(fn, use, owner);
    }

    // The attachments' files, usable only by the functions of infra/grants.ts (objectUse), each for its actions.
    this.attachments = new AttachmentBucket(this, 'Attachments', { removalPolicy: retain, corsOrigins: config.corsOrigins });
    for (const [entry, uses] of Object.entries(objectUse)) {
      const fn = entry === cascadeEntry ? cascade.fn : functions.get(entry);
      if (!fn) throw new Error(`no function for ${entry}`);
      this.attachments.allow(fn, uses);
    }

    new CfnOutput(this, 'Stage', { value: config.stage, description: 'Deployment stage' });
    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the REST API' });
    if (api.domain) {
      new CfnOutput(this, 'DomainTarget', {
        value: api.domain.domainNameAliasDomainName,
        description: `DNS: point ${config.domain?.domainName} at this (CNAME or alias)`,
      });
    }
    new CfnOutput(this, 'TableName', { value: table.table.tableName, description: 'TABLE_NAME for the admin CLI' });
    new CfnOutput(this, 'UsagePlanId', {
      value: api.usagePlan.usagePlanId,
      description: 'USAGE_PLAN_ID for the admin CLI (API key per organisation)',
    });
    new CfnOutput(this, 'DeliveryDeadLetterQueueUrl', {
      value: this.changeFeed.deadLetters.queueUrl,
      description: 'Webhook delivery messages that failed to run',
    });
    new CfnOutput(this, 'CascadeFailureQueueUrl', {
      value: cascade.failures.queueUrl,
      description: 'Stream records the cascade consumer gave up on',
    });
    new CfnOutput(this, 'WebhookSecretKeyArn', {
      value: this.webhookSecretKey.key.keyArn,
      description: 'WEBHOOK_SECRET_KMS_KEY_ID for the admin CLI (webhooks:encrypt-secrets)',
    });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'Where alarms notify' });
  }
}

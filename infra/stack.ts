import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { Route } from '../lib/routes.ts';
import { CascadeConsumer } from './constructs/cascade-consumer.ts';
import { ChangeFeed } from './constructs/change-feed.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { ServiceTable } from './constructs/service-table.ts';
import { authorizerEntry, functionId, handlerModules } from './functions.ts';

export interface ServiceStackProps extends StackProps {
  routes: Route[];
  /** `RETAIN` by default: the table outlives the stack (and has deletion protection). */
  tableRemovalPolicy?: RemovalPolicy;
  /** Gateway throttle per organisation; the exact per-token limit is enforced in DynamoDB. */
  throttle?: { rateLimit: number; burstLimit: number };
  stageName?: string;
}

/**
 * The whole service: the table, a Lambda per handler module of `lib/routes.ts` behind the REST
 * API, the token authorizer and the stream consumer. Adding a route row adds its method (and, for
 * a new module, its function) with no edit here.
 */
export class ServiceStack extends Stack {
  readonly table: ServiceTable;
  readonly authorizer: ServiceFunction;
  /** The function of each handler module (key: module path as in `lib/routes.ts`). */
  readonly functions: ReadonlyMap<string, ServiceFunction>;
  readonly api: ServiceApi;
  readonly cascade: CascadeConsumer;
  readonly changeFeed: ChangeFeed;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const table = new ServiceTable(this, 'Data', { removalPolicy: props.tableRemovalPolicy ?? RemovalPolicy.RETAIN });
    const environment = { TABLE_NAME: table.table.tableName };

    const authorizer = new ServiceFunction(this, 'Authorizer', {
      entry: authorizerEntry,
      description: 'Token authorizer: principal, rate decision, usage plan key',
      environment,
    });
    // It takes a request from the token's rate-limit bucket: a write.
    table.grant(authorizer, 'write');

    // Route functions get a scope of their own: a module's id can never collide with the others'.
    const routeScope = new Construct(this, 'Routes');
    const functions = new Map<string, ServiceFunction>();
    for (const { entry: handler, access, routes } of handlerModules(props.routes)) {
      const fn = new ServiceFunction(routeScope, functionId(handler), {
        entry: handler,
        description: routes
          .map((r) => `${r.method} ${r.path}`)
          .join(', ')
          .slice(0, 256),
        environment,
      });
      table.grant(fn, access);
      functions.set(handler, fn);
    }

    const api = new ServiceApi(this, 'Http', {
      routes: props.routes,
      functionFor: (handler) => {
        const fn = functions.get(handler);
        if (!fn) throw new Error(`no function for ${handler}`);
        return fn;
      },
      authorizer,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      stageName: props.stageName ?? 'prod',
    });

    const cascade = new CascadeConsumer(this, 'Cascade', { table });
    this.table = table;
    this.authorizer = authorizer;
    this.functions = functions;
    this.api = api;
    this.cascade = cascade;
    this.changeFeed = new ChangeFeed(this, 'ChangeFeed', { table });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the REST API' });
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
  }
}

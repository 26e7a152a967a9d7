import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { Route } from '../lib/routes.ts';
import { CascadeConsumer } from './constructs/cascade-consumer.ts';
import { ServiceApi } from './constructs/service-api.ts';
import { ServiceFunction } from './constructs/service-function.ts';
import { ServiceTable } from './constructs/service-table.ts';

export interface ServiceStackProps extends StackProps {
  routes: Route[];
  /** `RETAIN` by default: the table outlives the stack (and has deletion protection). */
  tableRemovalPolicy?: RemovalPolicy;
  /** Gateway throttle per organisation; the exact per-token limit is enforced in DynamoDB. */
  throttle?: { rateLimit: number; burstLimit: number };
  stageName?: string;
}

/** One function per handler module: rows sharing a module (PUT/PATCH, two spellings) share it. */
export function handlerModules(routes: Route[]): Map<string, { access: Route['access']; routes: Route[] }> {
  const modules = new Map<string, { access: Route['access']; routes: Route[] }>();
  for (const route of routes) {
    const entry = modules.get(route.handler) ?? { access: route.access, routes: [] };
    entry.routes.push(route);
    if (route.access === 'write') entry.access = 'write';
    modules.set(route.handler, entry);
  }
  return modules;
}

/** `functions/me/regenerate-token.ts` -> `MeRegenerateToken`: stable construct ids per module. */
export function functionId(handlerModule: string): string {
  return handlerModule
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .split(/[/_.-]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/**
 * The whole service: the table, a Lambda per handler module of `lib/routes.ts` behind the REST
 * API, the token authorizer and the stream consumer. Adding a route row adds its method (and, for
 * a new module, its function) with no edit here.
 */
export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const table = new ServiceTable(this, 'Data', { removalPolicy: props.tableRemovalPolicy ?? RemovalPolicy.RETAIN });
    const environment = { TABLE_NAME: table.table.tableName };

    const authorizer = new ServiceFunction(this, 'Authorizer', {
      entry: 'functions/authorizer.ts',
      description: 'Token authorizer: principal, rate decision, usage plan key',
      environment,
    });
    // It takes a request from the token's rate-limit bucket: a write.
    table.grant(authorizer, 'write');

    const functions = new Map<string, ServiceFunction>();
    for (const [handler, { access, routes }] of handlerModules(props.routes)) {
      const fn = new ServiceFunction(this, functionId(handler), {
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

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL of the REST API' });
    new CfnOutput(this, 'TableName', { value: table.table.tableName, description: 'TABLE_NAME for the admin CLI' });
    new CfnOutput(this, 'UsagePlanId', {
      value: api.usagePlan.usagePlanId,
      description: 'USAGE_PLAN_ID for the admin CLI (API key per organisation)',
    });
    new CfnOutput(this, 'CascadeFailureQueueUrl', {
      value: cascade.failures.queueUrl,
      description: 'Stream records the cascade consumer gave up on',
    });
  }
}

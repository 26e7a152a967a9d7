import { App, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { changeFeedEntries, handlerModules } from '../../infra/functions.ts';
import { repoRoot } from '../../infra/paths.ts';
import { ServiceStack } from '../../infra/stack.ts';
import { tableActions } from '../../infra/constructs/service-table.ts';
import { createTableInput, tableDefinition } from '../../lib/db/table.ts';
import { gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { type Route, routes } from '../../lib/routes.ts';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

/** The context `npx cdk synth` runs with (feature flags included). */
const cdkContext = (JSON.parse(readFileSync(resolve(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
  .context;

/**
 * Synthesizes once. Bundling is skipped (`aws:cdk:bundling-stacks: []`): these tests are about the
 * template; the bundles are built and loaded in bundles.test.ts with the same esbuild settings.
 * `validate` runs CDK's built-in CloudFormation schema validation, as `cdk synth` does (slow).
 */
function synth(rows: Route[], validate: boolean) {
  const app = new App({
    context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: validate,
  });
  const stack = new ServiceStack(app, 'Test', { routes: rows });
  const assembly = app.synth();
  const report = validate
    ? (JSON.parse(readFileSync(resolve(assembly.directory, 'validation-report.json'), 'utf8')) as ValidationReport)
    : undefined;
  return { stack, template: Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template), report };
}

interface ValidationReport {
  pluginReports: { pluginName: string; violations: { ruleName: string; description: string }[] }[];
}

let stack: ServiceStack;
let template: Template;
let resources: Resources;
let report: ValidationReport | undefined;

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalId = (construct: { node: { defaultChild?: unknown } }) => stack.getLogicalId(construct.node.defaultChild as never);

/** Full path of every API Gateway resource, by logical id (walking ParentId up to the root). */
function resourcePaths(): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const cached = paths.get(id);
    if (cached) return cached;
    const r = resources[id]!;
    const parent = r.Properties.ParentId as { Ref?: string };
    const path = `${parent.Ref ? pathOf(parent.Ref) : ''}/${r.Properties.PathPart}`;
    paths.set(id, path);
    return path;
  };
  for (const [id] of ofType('AWS::ApiGateway::Resource')) pathOf(id);
  return paths;
}

/** The logical id of the function an integration URI or authorizer URI points at. */
function targetFunction(uri: unknown): string | undefined {
  const found = JSON.stringify(uri).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/);
  return found?.[1];
}

beforeAll(() => {
  ({ stack, template, report } = synth(routes, true));
  resources = template.toJSON().Resources as Resources;
});

describe('the stack', () => {
  it('synthesizes without an account or region (no lookups, works offline)', () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
  });

  it('passes CloudFormation schema validation with no finding', () => {
    expect(report).toBeDefined();
    expect(report!.pluginReports.flatMap((r) => r.violations.map((v) => `${v.ruleName}: ${v.description}`))).toEqual([]);
  });

  it('stays well below the CloudFormation limit of 500 resources', () => {
    expect(Object.keys(resources).length).toBeLessThan(450);
  });

  it('outputs the API URL, the table name and the usage plan id', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'UsagePlanId']));
    expect(JSON.stringify(outputs.ApiUrl)).toContain('api/v1');
  });
});

describe('functions', () => {
  it('has one function per handler module, plus the authorizer, the stream consumer and the change feed', () => {
    const modules = handlerModules(routes);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(modules.length + 2 + changeFeedEntries.length);
    expect([...stack.functions.keys()].sort()).toEqual(modules.map((m) => m.entry).sort());
  });

  it('runs every function on Node.js 24, arm64, as an ES module bundle, with the table name', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect({ id, runtime: fn.Properties.Runtime }).toEqual({ id, runtime: 'nodejs24.x' });
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(fn.Properties.Environment.Variables).toMatchObject({
        TABLE_NAME: { Ref: logicalId(stack.table.table) },
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'sprint-ticketing',
      });
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON' });
    }
  });
});

describe('the REST API', () => {
  it('has a method for every row of the route table, served by that row’s handler module', () => {
    const paths = resourcePaths();
    const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({
      method: m.Properties.HttpMethod as string,
      path: paths.get(m.Properties.ResourceId.Ref) ?? '/',
      fn: targetFunction(m.Properties.Integration.Uri),
      type: m.Properties.Integration.Type,
    }));
    const expected = routes.map((r) => ({
      method: r.method,
      path: r.path,
      fn: logicalId(stack.functions.get(r.handler)!),
      type: 'AWS_PROXY',
    }));
    const key = (m: { method: string; path: string }) => `${m.method} ${m.path}`;
    expect(methods.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(expected.sort((a, b) => key(a).localeCompare(key(b))));
  });

  it('puts the token authorizer and the organisation’s API key in front of authenticated rows only', () => {
    const paths = resourcePaths();
    const authorizerId = logicalId(stack.node.findChild('Http').node.findChild('TokenAuthorizer'));
    for (const route of routes) {
      const [, method] = ofType('AWS::ApiGateway::Method').find(
        ([, m]) => m.Properties.HttpMethod === route.method && paths.get(m.Properties.ResourceId.Ref) === route.path,
      )!;
      if (route.auth) {
        expect(method.Properties).toMatchObject({
          AuthorizationType: 'CUSTOM',
          AuthorizerId: { Ref: authorizerId },
          ApiKeyRequired: true,
        });
      } else {
        expect(method.Properties.AuthorizationType).toBe('NONE');
        expect(method.Properties.AuthorizerId).toBeUndefined();
        expect(method.Properties.ApiKeyRequired).toBe(false);
      }
    }
  });

  it('has a REQUEST authorizer with no identity sources and no result caching', () => {
    const authorizers = ofType('AWS::ApiGateway::Authorizer');
    expect(authorizers).toHaveLength(1);
    const [, authorizer] = authorizers[0]!;
    expect(authorizer.Properties.Type).toBe('REQUEST');
    expect(authorizer.Properties.AuthorizerResultTtlInSeconds).toBe(0);
    expect(authorizer.Properties).not.toHaveProperty('IdentitySource');
    expect(targetFunction(authorizer.Properties.AuthorizerUri)).toBe(logicalId(stack.authorizer));
  });

  it('takes API keys from the authorizer and throttles each organisation in a usage plan on the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { ApiKeySourceType: 'AUTHORIZER' });
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 100, BurstLimit: 200 },
      ApiStages: [{ ApiId: { Ref: Match.anyValue() }, Stage: { Ref: Match.anyValue() } }],
    });
    // Keys are created per organisation by the admin CLI, never one per token and never here.
    template.resourceCountIs('AWS::ApiGateway::ApiKey', 0);
  });

  it('answers API Gateway’s own errors with the service’s JSON {error} bodies', () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    expect(responses.map((r) => r.ResponseType).sort()).toEqual(Object.keys(gatewayResponses).sort());
    for (const [type, expected] of Object.entries(gatewayResponses)) {
      const r = responses.find((x) => x.ResponseType === type)!;
      expect(r.ResponseParameters['gatewayresponse.header.Content-Type']).toBe("'application/json; charset=utf-8'");
      const body = r.ResponseTemplates['application/json'] as string;
      if (type.startsWith('DEFAULT_')) {
        // Keeps API Gateway's status; its message is already a JSON string.
        expect(r.StatusCode).toBeUndefined();
        expect(body).toBe('{"error":$context.error.messageString}');
      } else {
        expect(r.StatusCode).toBe(String(expected.status));
        expect(JSON.parse(body)).toEqual({ error: expected.message });
      }
      if (expected.status === 429 || expected.status === 503) {
        expect(r.ResponseParameters['gatewayresponse.header.Retry-After']).toBe("'1'");
      }
    }
  });

  it('writes a JSON access log line per request, with the organisation', () => {
    const [, stage] = ofType('AWS::ApiGateway::Stage')[0]!;
    const settings = stage.Properties.AccessLogSetting;
    expect(settings.DestinationArn).toBeDefined();
    const format = JSON.parse(settings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      orgId: '$context.authorizer.orgId',
      latencyMs: '$context.responseLatency',
    });
  });
});

describe('the table', () => {
  it('is the definition the local runtime creates: keys, attributes, local and global indexes', () => {
    const local = createTableInput('x');
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const byName = <T extends { AttributeName?: string; IndexName?: string }>(list: T[]) =>
      [...list].sort((a, b) => String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)));
    expect(table.Properties.KeySchema).toEqual(local.KeySchema);
    expect(byName(table.Properties.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions));
    expect(byName(table.Properties.LocalSecondaryIndexes)).toEqual(byName(local.LocalSecondaryIndexes));
    expect(byName(table.Properties.GlobalSecondaryIndexes)).toEqual(byName(local.GlobalSecondaryIndexes));
    expect(table.Properties.StreamSpecification).toEqual({ StreamViewType: local.StreamSpecification.StreamViewType });
  });

  it('is on-demand, with point-in-time recovery, deletion protection, TTL and kept when the stack goes', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        DeletionProtectionEnabled: true,
        TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    });
  });
});

describe('least privilege', () => {
  /** The DynamoDB actions granted to a function's role, and on what. */
  function tableGrants(fnLogicalId: string) {
    const fn = resources[fnLogicalId]!;
    const roleId = JSON.stringify(fn.Properties.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1];
    const statements = ofType('AWS::IAM::Policy')
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const actions = statements.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    const tableStatements = statements.filter((s) => JSON.stringify(s.Action).includes('dynamodb:'));
    return { actions: actions.filter((a) => a.startsWith('dynamodb:')), resources: tableStatements.map((s) => s.Resource) };
  }

  const writes = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

  it('gives read-only routes read actions only', () => {
    const readOnly = handlerModules(routes).filter((m) => m.access === 'read');
    expect(readOnly.length).toBeGreaterThan(0);
    for (const module of readOnly) {
      const { actions } = tableGrants(logicalId(stack.functions.get(module.entry)!));
      expect({ module: module.entry, actions: actions.sort() }).toEqual({
        module: module.entry,
        actions: [...tableActions.read].sort(),
      });
      for (const write of writes) expect(actions).not.toContain(write);
    }
  });

  it('gives writing routes the write actions, and nobody Scan or a wildcard', () => {
    for (const module of handlerModules(routes).filter((m) => m.access === 'write')) {
      const { actions } = tableGrants(logicalId(stack.functions.get(module.entry)!));
      expect(actions.sort()).toEqual([...tableActions.write].sort());
    }
    for (const [id] of ofType('AWS::Lambda::Function')) {
      const { actions } = tableGrants(id);
      expect(actions).not.toContain('dynamodb:Scan');
      expect(actions.some((a) => a.includes('*'))).toBe(false);
    }
  });

  it('scopes table grants to the table and its indexes', () => {
    const tableId = logicalId(stack.table.table);
    const { resources: granted } = tableGrants(logicalId(stack.functions.values().next().value!));
    expect(granted).toEqual([
      [{ 'Fn::GetAtt': [tableId, 'Arn'] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, '/index/*']] }],
    ]);
  });

  it('lets API Gateway invoke each function only from this API', () => {
    const apiId = logicalId(stack.api.api);
    const permissions = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties);
    for (const fn of [...stack.functions.values(), stack.authorizer]) {
      const own = permissions.filter((p) => JSON.stringify(p.FunctionName).includes(logicalId(fn)));
      expect(own.length).toBeGreaterThan(0);
      for (const p of own) {
        expect(p.Principal).toBe('apigateway.amazonaws.com');
        expect(JSON.stringify(p.SourceArn)).toContain(apiId);
      }
    }
  });
});

describe('the stream consumer', () => {
  it('receives only REMOVE events of projects, sprints and issues, with bounded retries and a failure queue', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => m.Properties.FunctionName.Ref === logicalId(stack.cascade.fn),
    );
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0]!;
    const p = mapping.Properties;
    expect(p.FunctionName).toEqual({ Ref: logicalId(stack.cascade.fn) });
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['project', 'sprint', 'issue'] } } } },
    ]);
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: 5,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.cascade.failures), 'Arn'] } } },
    });
  });

  it('runs functions/cascade.ts with write access to the table', () => {
    const fn = resources[logicalId(stack.cascade.fn)]!;
    expect(fn.Properties.Environment.Variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
    expect(stack.cascade.fn.node.id).toBe('Function');
  });
});

describe('adding a route', () => {
  it('adds its method, and its function when the module is new, with no other edit', () => {
    const extra: Route[] = [
      { ...routes[0]!, method: 'POST', path: '/api/v1/extra/{id}/spelling' },
      { ...routes[0]!, method: 'GET', path: '/api/v1/extra', handler: 'infra/bench/baseline.ts' },
    ];
    const { template: bigger } = synth([...routes, ...extra], false);
    const count = (t: Template, type: string) => Object.keys(t.findResources(type)).length;
    expect(count(bigger, 'AWS::ApiGateway::Method')).toBe(count(template, 'AWS::ApiGateway::Method') + 2);
    expect(count(bigger, 'AWS::Lambda::Function')).toBe(count(template, 'AWS::Lambda::Function') + 1);
  });
});

describe('the change feed', () => {
  const mappingOf = (fnId: string) =>
    ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === fnId);

  it('reads the stream on a mapping of its own: every write of projects, sprints, issues and comments, and redelivery requests', () => {
    const mappings = mappingOf(logicalId(stack.changeFeed.consumer));
    expect(mappings).toHaveLength(1);
    const p = mappings[0]![1].Properties;
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    const types = ['project', 'sprint', 'issue', 'comment'];
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { dynamodb: { NewImage: { type: { S: types } } } },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: types } } } },
      {
        eventName: ['MODIFY'],
        dynamodb: {
          NewImage: { type: { S: ['delivery'] }, status: { S: ['pending'] } },
          OldImage: { status: { S: ['succeeded', 'failed', 'cancelled'] } },
        },
      },
    ]);
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.changeFeed.failures), 'Arn'] } } },
    });
  });

  it('queues deliveries in an encrypted SQS queue with a dead-letter queue', () => {
    const queue = resources[logicalId(stack.changeFeed.deliveries)]!.Properties;
    expect(queue.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [logicalId(stack.changeFeed.deadLetters), 'Arn'] },
      maxReceiveCount: 5,
    });
    expect(queue.SqsManagedSseEnabled).toBe(true);
    // At least six times the delivery function's timeout.
    const deliverer = resources[logicalId(stack.changeFeed.deliverer)]!.Properties;
    expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * deliverer.Timeout);
  });

  it('feeds the delivery function from the queue, reporting failures per message', () => {
    const [mapping] = mappingOf(logicalId(stack.changeFeed.deliverer));
    expect(mapping![1].Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.changeFeed.deliveries), 'Arn'] },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('grants least privilege: the consumer and the deliverer may send to the delivery queue, only the deliverer receive', () => {
    const queueArn = { 'Fn::GetAtt': [logicalId(stack.changeFeed.deliveries), 'Arn'] };
    const sqsActionsOf = (fn: { role?: unknown }) => {
      const roleId = stack.getLogicalId((fn.role as { node: { defaultChild: never } }).node.defaultChild);
      return ofType('AWS::IAM::Policy')
        .filter(([, p]) => JSON.stringify(p.Properties.Roles).includes(roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((st) => [st.Action].flat().some((a) => a.startsWith('sqs:')))
        .map((st) => ({ actions: [st.Action].flat().sort(), resource: st.Resource }));
    };
    const consumer = sqsActionsOf(stack.changeFeed.consumer).filter(
      (st) => JSON.stringify(st.resource) === JSON.stringify(queueArn),
    );
    expect(consumer.flatMap((st) => st.actions)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    const deliverer = sqsActionsOf(stack.changeFeed.deliverer).flatMap((st) => st.actions);
    expect(deliverer).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']));
    const env = (fn: { node: { defaultChild?: unknown } }) => resources[logicalId(fn)]!.Properties.Environment.Variables;
    expect(env(stack.changeFeed.consumer).DELIVERY_QUEUE_URL).toEqual({ Ref: logicalId(stack.changeFeed.deliveries) });
    expect(env(stack.changeFeed.deliverer).DELIVERY_QUEUE_URL).toEqual({ Ref: logicalId(stack.changeFeed.deliveries) });
    // No route function can send to the queue: a redelivery goes through the table's stream.
    for (const fn of stack.functions.values()) expect(sqsActionsOf(fn)).toEqual([]);
  });
});

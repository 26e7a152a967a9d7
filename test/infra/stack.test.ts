import { App, NestedStack, Stack, Token, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import {
  changeFeedEntries,
  familyOf,
  handlerModules,
  type RouteGroup,
  routeGroupOf,
  routeGroups,
} from '../../infra/functions.ts';
import { repoRoot } from '../../infra/paths.ts';
import { ServiceStack } from '../../infra/stack.ts';
import { stageConfig } from '../../infra/stage.ts';
import { createTableInput, tableDefinition } from '../../lib/db/core/table.ts';
import { migrations, migrationsVersion } from '../../lib/migrations/index.ts';
import { gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { noRouteTemplate } from '../../infra/constructs/method-not-allowed.ts';
import { MINIMUM_COMPRESSION_SIZE } from '../../lib/http/gateway-compression.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { orgInFlightCap } from '../../lib/model/fairness.ts';
import { encryptionContext } from '../../lib/aws/secret-box.ts';

// Each synthesis runs cdk-nag over the whole stack: seconds alone, a minute on two shared cores.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 240_000 });

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string }
>;

/** The context `npx cdk synth` runs with (feature flags included). */
const cdkContext = (JSON.parse(readFileSync(resolve(repoRoot, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> })
  .context;

interface SynthOptions {
  /** Context values as `-c key=value` gives them (the stage, the domain, WAF...). */
  context?: Record<string, string>;
  /** CDK's built-in CloudFormation schema validation, as `cdk synth` does (slow). */
  validate?: boolean;
  /** Adds to the stack before synthesis (a resource with a finding). */
  extra?: (stack: ServiceStack) => void;
}

/**
 * Synthesizes the app as infra/app.ts does, cdk-nag's AwsSolutions checks included. Bundling is
 * skipped (`aws:cdk:bundling-stacks: []`): these tests are about the template; the bundles are
 * built and loaded in bundles.test.ts with the same esbuild settings. `template` and `resources`
 * are the whole deployment as one template (`flatten`): the parent's and every nested stack's.
 */
function synth(rows: Route[], options: SynthOptions = {}) {
  const context = options.context ?? {};
  const app = new App({
    context: { ...cdkContext, ...context, 'aws:cdk:bundling-stacks': [] },
    builtinCloudFormationValidation: options.validate ?? false,
  });
  const config = stageConfig((key) => context[key]);
  const stack = new ServiceStack(app, 'Test', { routes: rows, config });
  options.extra?.(stack);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const report = JSON.parse(readFileSync(resolve(assembly.directory, 'validation-report.json'), 'utf8')) as ValidationReport;
  const { templates, whole } = flatten(stack, assembly.getStackArtifact(stack.artifactId).template as CfnTemplate, (file) =>
    JSON.parse(readFileSync(resolve(assembly.directory, file), 'utf8')),
  );
  const template = Template.fromJSON(whole);
  return { stack, template, templates, report, resources: whole.Resources as Resources };
}

interface CfnTemplate {
  Resources: Record<string, any>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
  [section: string]: unknown;
}

/** Replaces, anywhere in `value`, each object `replace` answers for (by its JSON). */
function substitute(value: unknown, replace: (node: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, replace));
  if (value === null || typeof value !== 'object') return value;
  const replaced = replace(value as Record<string, unknown>);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, replace)]));
}

/**
 * Every template of the stack (the parent's and each nested stack's, as `cdk synth` writes them),
 * and all of them as one: a nested stack's parameters replaced by what the parent passes (the
 * table's `Ref`, the API's...), the parent's `Fn::GetAtt [<nested stack>, Outputs.X]` by the value
 * of that output (a function's `Arn`...), as CloudFormation resolves them. The tests then read a
 * function's grants, environment and permission the same way wherever it lives.
 */
function flatten(stack: ServiceStack, parent: CfnTemplate, read: (file: string) => CfnTemplate) {
  const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
  const templates = [{ name: stack.stackName, template: parent }];
  const outputs = new Map<string, Record<string, unknown>>();
  const resources: Record<string, any> = { ...parent.Resources };
  for (const child of nested) {
    const resourceId = stack.getLogicalId(child.nestedStackResource as never);
    const passed =
      (parent.Resources[resourceId] as { Properties: { Parameters?: Record<string, unknown> } }).Properties.Parameters ?? {};
    const own = read(child.templateFile);
    templates.push({ name: child.node.id, template: own });
    const resolved = substitute(own, (node) => {
      const ref = node.Ref;
      return typeof ref === 'string' && ref in passed ? passed[ref] : undefined;
    }) as CfnTemplate;
    outputs.set(
      resourceId,
      Object.fromEntries(Object.entries(resolved.Outputs ?? {}).map(([name, output]) => [`Outputs.${name}`, output.Value])),
    );
    for (const [id, resource] of Object.entries(resolved.Resources)) {
      if (id in resources) throw new Error(`logical id ${id} is in two templates`);
      resources[id] = resource;
    }
  }
  const whole = substitute({ ...parent, Resources: resources }, (node) => {
    const getAtt = node['Fn::GetAtt'];
    if (!Array.isArray(getAtt)) return undefined;
    const value = outputs.get(getAtt[0] as string)?.[getAtt[1] as string];
    if (outputs.has(getAtt[0] as string) && value === undefined) {
      throw new Error(`no output ${String(getAtt[1])} of ${String(getAtt[0])}`);
    }
    return value;
  }) as CfnTemplate;
  return { templates, whole };
}

interface ValidationReport {
  pluginReports: { pluginName: string; violations: { ruleName: string; description: string }[] }[];
}

let stack: ServiceStack;
let template: Template;
let templates: { name: string; template: CfnTemplate }[];
let resources: Resources;
let report: ValidationReport | undefined;

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
/**
 * Every IAM policy document of the stack, as AWS::IAM::Policy resources show them: the separate
 * ones, and each function role's inline policy (infra/constructs/service-function.ts) as if it
 * were one attached to its role.
 */
const policies = () => [
  ...ofType('AWS::IAM::Policy'),
  ...ofType('AWS::IAM::Role').flatMap(([roleId, role]) =>
    ((role.Properties.Policies ?? []) as { PolicyName: string; PolicyDocument: unknown }[]).map(
      (inline) =>
        [
          `${roleId}/${inline.PolicyName}`,
          { Properties: { Roles: [{ Ref: roleId }], PolicyDocument: inline.PolicyDocument } },
        ] as [string, any],
    ),
  ),
];
/** A resource's logical id in its own template (the parent's or a nested stack's: `flatten` keeps them). */
const logicalId = (construct: { node: { defaultChild?: unknown } }) => {
  const resource = construct.node.defaultChild as never;
  return Stack.of(resource).getLogicalId(resource);
};

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
  ({ stack, template, templates, report, resources } = synth(routes, { validate: true, context: { stage: 'prod' } }));
});

const violations = (r: ValidationReport | undefined) =>
  (r?.pluginReports ?? []).flatMap((p) => p.violations.map((v) => `${p.pluginName} ${v.ruleName}: ${v.description}`));

/** CloudFormation's limit of resources per template (a nested stack's template counts apart). */
const RESOURCE_LIMIT = 500;
/** Resources of each template, and how many more it may take. */
const headroom = (list: { name: string; template: CfnTemplate }[]) =>
  list.map(({ name, template: t }) => {
    const count = Object.keys(t.Resources).length;
    return { name, resources: count, free: RESOURCE_LIMIT - count };
  });

describe('the stack', () => {
  it('synthesizes without an account or region (no lookups, works offline)', () => {
    expect(Token.isUnresolved(stack.account)).toBe(true);
    expect(Token.isUnresolved(stack.region)).toBe(true);
  });

  it('passes CloudFormation schema validation and cdk-nag’s AwsSolutions checks with no finding', () => {
    expect(report).toBeDefined();
    expect(violations(report)).toEqual([]);
  });

  it('keeps every template, the parent and each nested stack, below CloudFormation’s 500 resources, with room to spare', () => {
    expect(templates.map((t) => t.name).sort()).toEqual(['AccountRoutes', 'IssueRoutes', 'PlanningRoutes', 'Test']);
    const counts = headroom(templates);
    // The headroom today: what new routes may take before a template needs splitting.
    console.info(`resources per template (of ${RESOURCE_LIMIT}): ${JSON.stringify(counts)}`);
    for (const t of counts) expect({ name: t.name, below: t.resources < RESOURCE_LIMIT }).toEqual({ name: t.name, below: true });
    // And at least a third of the limit free in each (the parent holds the API's methods, a
    // nested stack four resources per function).
    for (const t of counts) expect({ name: t.name, free: t.free >= RESOURCE_LIMIT / 3 }).toEqual({ name: t.name, free: true });
  });

  it('has room for some 40 more routes, each with a function of its own, with CORS preflights: every template stays below 500', () => {
    // Eight new families of five routes (list, create, get, update, delete), each route a module
    // of its own: families the groups name (workflow states, a board, attachments, trash) and
    // families they do not (those land in OtherRoutes). The handler paths resolve to an existing
    // module: bundling is skipped here, only the templates count.
    const families = ['workflow-states', 'board', 'attachments', 'trash', 'reports', 'automations', 'saved-views', 'teams'];
    const operations = [
      ['GET', ''],
      ['POST', ''],
      ['GET', '/{item_id}'],
      ['PATCH', '/{item_id}'],
      ['DELETE', '/{item_id}'],
    ] as const;
    const like = routes.find((r) => r.handler === 'functions/projects/create.ts')!;
    const extra: Route[] = families.flatMap((family) =>
      operations.map(([method, tail], i) => ({
        ...like,
        method,
        path: `/api/v1/projects/{project_id}/${family}${tail}`,
        handler: `functions/${family}/route-${i}/../../projects/create.ts`,
      })),
    );
    const bigger = synth([...routes, ...extra], { context: { stage: 'prod', corsOrigins: 'https://app.example.com' } });
    const counts = headroom(bigger.templates);
    console.info(`with 40 more routes and CORS: ${JSON.stringify(counts)}`);
    expect(bigger.stack.functions.size).toBe(stack.functions.size + 40);
    expect(counts.map((t) => t.name).sort()).toEqual(['AccountRoutes', 'IssueRoutes', 'OtherRoutes', 'PlanningRoutes', 'Test']);
    for (const t of counts) expect({ name: t.name, below: t.resources < RESOURCE_LIMIT }).toEqual({ name: t.name, below: true });
    expect(violations(bigger.report)).toEqual([]);
  });

  it('puts each route function, with its role, log group and permission, in the nested stack of its family; the rest stays in the parent', () => {
    const inTemplate = (name: string) => new Set(Object.keys(templates.find((t) => t.name === name)!.template.Resources));
    for (const [entry, fn] of stack.functions) {
      const group = routeGroupOf(entry);
      expect(Stack.of(fn).node.id, entry).toBe(group);
      const own = inTemplate(group);
      const props = resources[logicalId(fn)]!.Properties;
      const roleId = JSON.stringify(props.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!;
      const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) =>
        JSON.stringify(p.Properties.FunctionName).includes(logicalId(fn)),
      );
      expect(
        [logicalId(fn), roleId, props.LoggingConfig.LogGroup.Ref, ...permissions.map(([id]) => id)].every((id) => own.has(id)),
      ).toBe(true);
    }
    expect(Object.keys(routeGroups).every((group) => stack.routeStacks.has(group as RouteGroup))).toBe(true);
    // The API with its methods and deployment (a method in another stack would not redeploy it), the
    // table, the authorizer, the stream consumers, the migrations and the monitoring: the parent's.
    const parent = inTemplate('Test');
    for (const type of [
      'AWS::ApiGateway::RestApi',
      'AWS::ApiGateway::Method',
      'AWS::ApiGateway::Resource',
      'AWS::ApiGateway::Deployment',
      'AWS::ApiGateway::Stage',
      'AWS::DynamoDB::Table',
      'AWS::CloudWatch::Alarm',
      'AWS::CloudWatch::Dashboard',
    ]) {
      expect(ofType(type).length, type).toBeGreaterThan(0);
      expect(
        ofType(type).every(([id]) => parent.has(id)),
        type,
      ).toBe(true);
    }
    for (const fn of [
      stack.authorizer,
      stack.cascade.fn,
      stack.importJobs.fn,
      stack.githubEvents.fn,
      stack.changeFeed.consumer,
      stack.changeFeed.deliverer,
      stack.migrations.fn,
    ])
      expect(parent.has(logicalId(fn))).toBe(true);
  });

  it('groups handler modules by their folder under functions/ (or their name at the top); an unnamed family goes to OtherRoutes', () => {
    expect(familyOf('functions/issues/get.ts')).toBe('issues');
    expect(familyOf('functions/mcp.ts')).toBe('mcp');
    expect(routeGroupOf('functions/backlog/update.ts')).toBe('IssueRoutes');
    expect(routeGroupOf('functions/sprints/complete.ts')).toBe('PlanningRoutes');
    expect(routeGroupOf('functions/oauth.ts')).toBe('AccountRoutes');
    expect(routeGroupOf('functions/somewhere-new/list.ts')).toBe('OtherRoutes');
    // No family in two groups.
    const families = Object.values(routeGroups).flat();
    expect(new Set(families).size).toBe(families.length);
  });

  it('outputs the API URL, the table name and the usage plan id', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'UsagePlanId']));
    expect(JSON.stringify(outputs.ApiUrl)).toContain('api/v1');
  });
});

describe('functions', () => {
  it('has one function per handler module, plus the authorizer, the stream consumer, the import jobs, the GitHub deliveries, the change feed and the migrations', () => {
    const modules = handlerModules(routes);
    expect(ofType('AWS::Lambda::Function')).toHaveLength(modules.length + 5 + changeFeedEntries.length);
    expect([...stack.functions.keys()].sort()).toEqual(modules.map((m) => m.entry).sort());
  });

  it('runs every function on Node.js 24, arm64, as an ES module bundle, with its stage (and the table name if it has access)', () => {
    const docs = [...stack.functions]
      .filter(([entry]) => routes.filter((r) => r.handler === entry).every((r) => !r.auth))
      .map(([, fn]) => logicalId(fn));
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect({ id, runtime: fn.Properties.Runtime }).toEqual({ id, runtime: 'nodejs24.x' });
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(fn.Properties.Environment.Variables).toMatchObject({
        ...(docs.includes(id) ? {} : { TABLE_NAME: { Ref: logicalId(stack.table.table) } }),
        POWERTOOLS_SERVICE_NAME: 'sprint-ticketing',
        STAGE: 'prod',
      });
      // Stack traces are mapped on first use by the bundle itself (infra/inject/source-maps.js), not
      // by Node's --enable-source-maps, which reads the map at every cold start.
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
      expect(fn.Properties.LoggingConfig).toMatchObject({ LogFormat: 'JSON' });
    }
  });

  it("gives every route's function the service's base URL (PUBLIC_URL), from which it writes its absolute URLs", () => {
    const naming = new Set(routes.map((r) => r.handler));
    expect(naming.size).toBeGreaterThan(10);
    for (const [entry, fn] of stack.functions) {
      const variables = resources[logicalId(fn)]!.Properties.Environment.Variables;
      if (!naming.has(entry)) {
        expect({ entry, url: variables.PUBLIC_URL }).toEqual({ entry, url: undefined });
        continue;
      }
      // The cursor key: the generated secret, resolved at deploy, the same for every function.
      expect(JSON.stringify(variables.CURSOR_KEY)).toMatch(/\{\{resolve:secretsmanager:.*SecretString/);
      // API Gateway's own host and the stage (prod has no custom domain here), from the API itself.
      const url = JSON.stringify(variables.PUBLIC_URL);
      expect(url).toContain(logicalId(stack.api.api));
      expect(url).toContain('.execute-api.');
      expect(url).toContain('/prod');
    }
  });
});

describe('the REST API', () => {
  it('has a method for every row of the route table, served by that row’s handler module', () => {
    const paths = resourcePaths();
    const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => ({
      method: m.Properties.HttpMethod as string,
      path: paths.get(m.Properties.ResourceId.Ref) ?? '/',
      fn: targetFunction(m.Properties.Integration.Uri ?? null),
      type: m.Properties.Integration.Type,
    }));
    const expected = [
      ...routes.map((r) => ({
        method: r.method,
        path: r.path,
        fn: logicalId(stack.functions.get(r.handler)!),
        type: 'AWS_PROXY',
      })),
      // And the catch-all answering 404 or 405 for the rest (infra/constructs/method-not-allowed.ts).
      { method: 'ANY', path: '/{proxy+}', fn: undefined, type: 'MOCK' },
    ];
    const key = (m: { method: string; path: string }) => `${m.method} ${m.path}`;
    expect(methods.sort((a, b) => key(a).localeCompare(key(b)))).toEqual(expected.sort((a, b) => key(a).localeCompare(key(b))));
  });

  it('answers a method a path does not have with 405 and Allow, and a path it does not have with 404, from one mock without the authorizer', () => {
    const paths = resourcePaths();
    const [, method] = ofType('AWS::ApiGateway::Method').find(([, m]) => m.Properties.HttpMethod === 'ANY')!;
    expect(paths.get(method.Properties.ResourceId.Ref)).toBe('/{proxy+}');
    expect(method.Properties).toMatchObject({ AuthorizationType: 'NONE', ApiKeyRequired: false });
    expect(method.Properties.Integration.Type).toBe('MOCK');
    const [response] = method.Properties.Integration.IntegrationResponses as {
      ResponseTemplates: Record<string, string>;
      ResponseParameters: Record<string, string>;
    }[];
    const vtl = response!.ResponseTemplates['application/json']!;
    expect(vtl).toBe(noRouteTemplate(routes));
    // A branch per path of the route table, most specific first: /me/issues allows GET only, and
    // /issues/search (POST) is tried before /issues/{issue_key}, whose methods it also answers.
    expect(vtl.match(/\$path\.matches\(/g)).toHaveLength(new Set(routes.map((r) => r.path)).size);
    expect(vtl).toContain(`($path.matches('^/api/v1/me/issues$'))#set($allow = 'GET')`);
    expect(vtl.indexOf("'^/api/v1/issues/search$'")).toBeLessThan(vtl.indexOf("'^/api/v1/issues/[^/]+$'"));
    expect(vtl).toContain('#set($context.responseOverride.status = 405)');
    expect(vtl).toContain('#set($context.responseOverride.header.Allow = $allow)');
    expect(vtl).toContain(JSON.stringify(gatewayResponses.MISSING_AUTHENTICATION_TOKEN.message));
    expect(response!.ResponseParameters['method.response.header.Content-Type']).toBe("'application/json; charset=utf-8'");
    expect(response!.ResponseParameters['method.response.header.X-Content-Type-Options']).toBe("'nosniff'");
    const declared = (
      method.Properties.MethodResponses as { StatusCode: string; ResponseParameters: Record<string, boolean> }[]
    ).map((r) => [r.StatusCode, r.ResponseParameters['method.response.header.Allow']]);
    expect(declared).toEqual([
      ['404', true],
      ['405', true],
    ]);
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

  it('compresses answers of MINIMUM_COMPRESSION_SIZE bytes or more, and treats no media type as binary (request bodies reach the functions as text)', () => {
    const apis = ofType('AWS::ApiGateway::RestApi');
    expect(apis).toHaveLength(1);
    const [, api] = apis[0]!;
    expect(api.Properties.MinimumCompressionSize).toBe(MINIMUM_COMPRESSION_SIZE);
    expect(api.Properties).not.toHaveProperty('BinaryMediaTypes');
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
      expect(r.ResponseParameters['gatewayresponse.header.X-Content-Type-Options']).toBe("'nosniff'");
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

  it('points a 401 at /mcp’s protected-resource metadata (WWW-Authenticate), on the stage’s URL or the custom domain', () => {
    const unauthorized = (t: Record<string, any>) =>
      Object.values(t).find((r) => r.Type === 'AWS::ApiGateway::GatewayResponse' && r.Properties.ResponseType === 'UNAUTHORIZED')!
        .Properties.ResponseParameters['gatewayresponse.header.WWW-Authenticate'];
    // API Gateway's host: the API's id, the region and the stage, joined by CloudFormation.
    const joined = JSON.stringify(unauthorized(resources));
    expect(joined).toContain('Bearer resource_metadata=\\"https://');
    expect(joined).toContain('.execute-api.');
    expect(joined).toContain('/prod/.well-known/oauth-protected-resource/mcp\\"');
    const withDomain = synth(routes, {
      context: {
        stage: 'prod',
        domainName: 'api.example.com',
        certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/x',
      },
    }).resources;
    expect(unauthorized(withDomain)).toBe(
      `'Bearer resource_metadata="https://api.example.com/.well-known/oauth-protected-resource/mcp"'`,
    );
  });

  it('answers a body past Lambda’s 6 MB (API Gateway’s 413 "Request Too Long") and past its own 10 MB as 413 {error}', () => {
    const responses = ofType('AWS::ApiGateway::GatewayResponse').map(([, r]) => r.Properties);
    // Lambda's invocation limit surfaces as a 4XX of API Gateway's own: DEFAULT_4XX keeps its status.
    expect(responses.find((r) => r.ResponseType === 'DEFAULT_4XX')?.StatusCode).toBeUndefined();
    expect(responses.find((r) => r.ResponseType === 'REQUEST_TOO_LARGE')?.StatusCode).toBe('413');
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
  it('is the definition the local runtime creates: keys, attributes, local indexes and no global one', () => {
    const local = createTableInput('x');
    const [, table] = ofType('AWS::DynamoDB::Table')[0]!;
    const byName = <T extends { AttributeName?: string; IndexName?: string }>(list: T[]) =>
      [...list].sort((a, b) => String(a.AttributeName ?? a.IndexName).localeCompare(String(b.AttributeName ?? b.IndexName)));
    expect(table.Properties.KeySchema).toEqual(local.KeySchema);
    expect(byName(table.Properties.AttributeDefinitions)).toEqual(byName(local.AttributeDefinitions));
    expect(byName(table.Properties.LocalSecondaryIndexes)).toEqual(byName(local.LocalSecondaryIndexes));
    // A global index is eventually consistent: no read may go through one (lib/db/core/table.ts).
    expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
    expect(local).not.toHaveProperty('GlobalSecondaryIndexes');
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

/** The table actions (item actions, and Query per index) every function holds, as this test states them. */
const reads = ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'];
const writes = [...reads, 'dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'];
const lists = ['LSI1', 'LSI1Keys'];
interface Expected {
  table: string[];
  indexes: string[];
}
const read = (indexes: string[] = []): Expected => ({ table: reads, indexes });
const write = (indexes: string[] = []): Expected => ({ table: writes, indexes });
const noAccess: Expected = { table: [], indexes: [] };

/**
 * Each function's exact grant, from what its code does (lib/db): reads only GetItem, BatchGetItem
 * and Query; writes are transactions (ConditionCheckItem, PutItem, UpdateItem, DeleteItem item by
 * item) and idempotency records; an index only where the function queries it. The local runtime
 * refuses anything beyond (tools/local/permissions.ts), so the e2e tests prove these are enough.
 */
const expectedGrants: Record<string, Expected> = {
  'functions/authorizer.ts': { table: ['dynamodb:UpdateItem'], indexes: [] },
  // Cascades: parents read, children paged and deleted in batches, pending cascades written down;
  // a comment's attachments moved into the trash and back, checking where the comment is; a trashed
  // sprint's or project's issues taken out and put back (their relations' other issues batch-read).
  'functions/cascade.ts': {
    table: [
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ],
    indexes: ['LSI1'],
  },
  // Import jobs: issues, sprints, labels, comments and relations written through the domain, the report in batches.
  'functions/import-jobs.ts': {
    table: [
      'dynamodb:BatchGetItem',
      'dynamodb:BatchWriteItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:Query',
      'dynamodb:UpdateItem',
    ],
    indexes: ['LSI1', 'LSI1Keys'],
  },
  // The OAuth authorization server (public): its clients, codes, grants and the tokens it issues.
  'functions/oauth.ts': write(),
  // GitHub: a project's connection (read, connect, rotate, disconnect), the receiver (public: it reads
  // the connection a delivery names and writes the delivery), an issue's links, and the consumer of
  // the stored deliveries (links, and status moves through the issue write path, which counts the issue's place).
  'functions/github/read.ts': read(),
  'functions/github/connect.ts': write(),
  'functions/github/rotate-secret.ts': write(),
  'functions/github/disconnect.ts': write(),
  'functions/github/receive.ts': write(),
  'functions/issue-keys/links.ts': read(lists),
  'functions/github-events.ts': write(['LSI1Keys']),
  'functions/me/get.ts': read(),
  'functions/me/issues.ts': read(lists),
  'functions/me/regenerate-token.ts': write(),
  'functions/me/revoke-token.ts': write(),
  'functions/me/update.ts': write(),
  // The inbox: its page (LSI1, in order), marks (all of them: the unread found on LSI1), follows, watches.
  'functions/me/notifications.ts': read(lists),
  'functions/me/mark-read.ts': write(['LSI1']),
  'functions/me/follow.ts': write(),
  'functions/me/follows.ts': read(),
  'functions/me/unfollow.ts': write(),
  'functions/issue-keys/watch.ts': write(),
  'functions/issue-keys/unwatch.ts': write(),
  'functions/accounts/list.ts': read(lists),
  'functions/accounts/create.ts': write(),
  // The upload writes its file's parts and its job in one BatchWriteItem (past a transaction's 4 MB).
  'functions/imports.ts': { table: [...writes, 'dynamodb:BatchWriteItem'], indexes: [] },
  'functions/export.ts': read(['LSI1']),
  'functions/projects/read.ts': read(lists),
  'functions/projects/create.ts': write(),
  'functions/projects/update.ts': write(),
  'functions/projects/delete.ts': write(),
  'functions/comments/read.ts': read(lists),
  'functions/comments/create.ts': write(),
  'functions/comments/update.ts': write(),
  'functions/comments/delete.ts': write(),
  'functions/sprints/read.ts': read(lists),
  'functions/sprints/create.ts': write(),
  'functions/sprints/update.ts': write(),
  'functions/sprints/delete.ts': write(),
  'functions/sprints/activate.ts': write(),
  'functions/sprints/complete.ts': write(['LSI1']),
  'functions/labels/read.ts': read(lists),
  'functions/labels/create.ts': write(),
  'functions/labels/update.ts': write(),
  'functions/labels/delete.ts': write(),
  // The workflow: one GetItem or BatchGetItem of the project; a delete also reads the sprints' counters (LSI1).
  'functions/workflow-states/read.ts': read(),
  'functions/workflow-states/create.ts': write(),
  'functions/workflow-states/update.ts': write(),
  'functions/workflow-states/delete.ts': write(['LSI1']),
  'functions/custom-fields/read.ts': read(),
  'functions/custom-fields/create.ts': write(),
  'functions/custom-fields/update.ts': write(),
  'functions/custom-fields/delete.ts': write(),
  // A board: the project and sprint (BatchGetItem) and the list's issues in order (LSI1).
  'functions/board/read.ts': read(['LSI1']),
  'functions/activity/read.ts': read(lists),
  // A revert: the entry with its issue (BatchGetItem), then a PATCH's or a relation's write and the issue's place.
  'functions/activity/revert.ts': write(['LSI1Keys']),
  'functions/webhooks/read.ts': read(lists),
  'functions/webhooks/create.ts': write(),
  'functions/webhooks/update.ts': write(),
  'functions/webhooks/delete.ts': write(),
  'functions/trash/read.ts': read(lists),
  // A restored issue is answered with its place.
  'functions/trash/restore.ts': write(['LSI1Keys']),
  'functions/trash/delete.ts': write(),
  // The organisation: one GetItem of its item; a change, one UpdateItem of it.
  'functions/organisation/read.ts': read(),
  'functions/organisation/update.ts': write(),
  'functions/webhooks/rotate-secret.ts': write(),
  'functions/webhooks/redeliver.ts': write(),
  'functions/change-feed.ts': { table: [...writes, 'dynamodb:BatchWriteItem'], indexes: ['LSI1'] },
  'functions/webhooks/deliver.ts': write(),
  'functions/issues/list.ts': read(lists),
  // Both search routes (a GET and a POST that only reads): the search partition and the projects on LSI1, the sprints by BatchGet.
  'functions/issues/search.ts': read(lists),
  'functions/issues/create.ts': write(),
  'functions/issues/get.ts': read(['LSI1Keys']),
  'functions/issues/update.ts': write(['LSI1Keys']),
  'functions/issues/bulk.ts': write(['LSI1Keys']),
  'functions/issues/delete.ts': write(),
  'functions/backlog/list.ts': read(lists),
  'functions/backlog/create.ts': write(),
  'functions/backlog/get.ts': read(['LSI1Keys']),
  'functions/issue-keys/get.ts': read(['LSI1Keys']),
  'functions/issue-keys/sub-issues.ts': read(lists),
  'functions/issue-keys/update.ts': write(['LSI1Keys']),
  'functions/issue-keys/delete.ts': write(),
  'functions/relations/list.ts': read(),
  'functions/attachments/create.ts': write(),
  'functions/attachments/read.ts': read(),
  'functions/attachments/complete.ts': write(),
  'functions/attachments/delete.ts': write(),
  'functions/relations/create.ts': write(),
  'functions/relations/delete.ts': write(),
  'functions/backlog/update.ts': write(['LSI1Keys']),
  'functions/backlog/delete.ts': write(),
  'functions/mcp.ts': write(['LSI1', 'LSI1Keys']),
  // The data migrations: what the routes write, and the one Scan of the stack (lib/migrations).
  'functions/migrate.ts': { table: [...writes, 'dynamodb:Scan'].sort(), indexes: [] },
};

describe('least privilege', () => {
  /** The IAM statements of a function's role. */
  function statementsOf(fnLogicalId: string) {
    const fn = resources[fnLogicalId]!;
    const roleId = JSON.stringify(fn.Properties.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1];
    return policies()
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .map((st) => ({ actions: [st.Action].flat(), resources: [st.Resource].flat() }));
  }

  /** What a function may do on the table: item actions on the table ARN, Query per index. */
  function grantOf(fnLogicalId: string): Expected {
    const tableId = logicalId(stack.table.table);
    const tableArn = JSON.stringify({ 'Fn::GetAtt': [tableId, 'Arn'] });
    const got: Expected = { table: [], indexes: [] };
    for (const st of statementsOf(fnLogicalId)) {
      const dynamo = st.actions.filter((a) => a.startsWith('dynamodb:'));
      if (dynamo.length === 0) continue;
      for (const resource of st.resources) {
        const text = JSON.stringify(resource);
        if (text === tableArn) got.table.push(...dynamo);
        else if (text.includes(tableId) && text.includes('/index/')) {
          expect(dynamo).toEqual(['dynamodb:Query']);
          got.indexes.push(text.match(/\/index\/([A-Za-z0-9]+)"/)![1]!);
        } else if (!text.includes('StreamArn') && text !== '"*"') throw new Error(`unexpected resource ${text}`);
      }
    }
    return { table: got.table.sort(), indexes: got.indexes.sort() };
  }

  const everyFunction = () => [
    ...[...stack.functions].map(([entry, fn]) => ({ entry, id: logicalId(fn) })),
    { entry: 'functions/authorizer.ts', id: logicalId(stack.authorizer) },
    { entry: 'functions/cascade.ts', id: logicalId(stack.cascade.fn) },
    { entry: 'functions/import-jobs.ts', id: logicalId(stack.importJobs.fn) },
    { entry: 'functions/github-events.ts', id: logicalId(stack.githubEvents.fn) },
    { entry: 'functions/change-feed.ts', id: logicalId(stack.changeFeed.consumer) },
    { entry: 'functions/webhooks/deliver.ts', id: logicalId(stack.changeFeed.deliverer) },
    { entry: 'functions/migrate.ts', id: logicalId(stack.migrations.fn) },
  ];

  it('gives every function exactly the table actions and indexes its code uses', () => {
    for (const { entry, id } of everyFunction()) {
      const module = handlerModules(routes).find((m) => m.entry === entry);
      // A function behind unauthenticated routes only (the documentation) gets nothing.
      const expected = module?.routes.every((r) => !r.auth && !r.authServer && !r.receiver) ? noAccess : expectedGrants[entry];
      expect(expected, `state the grant of ${entry} in this test`).toBeDefined();
      expect({ entry, ...grantOf(id) }).toEqual({ entry, table: [...expected!.table].sort(), indexes: expected!.indexes });
    }
  });

  it('gives the authorizer no PutItem, DeleteItem or BatchWriteItem, and read routes no write', () => {
    const { table } = grantOf(logicalId(stack.authorizer));
    for (const action of ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'])
      expect(table).not.toContain(action);
    for (const module of handlerModules(routes).filter((m) => m.access === 'read')) {
      expect(grantOf(logicalId(stack.functions.get(module.entry)!)).table.every((a) => reads.includes(a))).toBe(true);
    }
  });

  it('gives the documentation routes no table access and not even the table’s name', () => {
    const docs = handlerModules(routes).filter((m) => m.routes.every((r) => r.path.startsWith('/api-docs')));
    expect(docs.length).toBeGreaterThan(0);
    for (const module of docs) {
      const id = logicalId(stack.functions.get(module.entry)!);
      expect(
        statementsOf(id)
          .flatMap((st) => st.actions)
          .filter((a) => a.startsWith('dynamodb:')),
      ).toEqual([]);
      expect(resources[id]!.Properties.Environment.Variables.TABLE_NAME).toBeUndefined();
    }
  });

  it('grants nobody but the data migrations Scan, nobody a wildcard action, or any index but by name', () => {
    const migrationsRole = JSON.stringify(resources[logicalId(stack.migrations.fn)]!.Properties.Role).match(
      /"Fn::GetAtt":\["([^"]+)","Arn"\]/,
    )![1]!;
    for (const [, policy] of policies()) {
      const ofMigrations = (policy.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === migrationsRole);
      for (const st of policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]) {
        const actions = [st.Action].flat();
        if (!ofMigrations) expect(actions).not.toContain('dynamodb:Scan');
        expect(actions.some((a) => a.endsWith('*'))).toBe(false);
        expect(JSON.stringify(st.Resource)).not.toContain('/index/*');
      }
    }
  });

  it('lets each function write only to its own log group (no AWS basic execution policy)', () => {
    for (const { id } of everyFunction()) {
      const fn = resources[id]!;
      const logGroup = fn.Properties.LoggingConfig.LogGroup.Ref as string;
      const logs = statementsOf(id).filter((st) => st.actions.some((a) => a.startsWith('logs:')));
      expect(logs.flatMap((st) => st.resources)).toEqual([{ 'Fn::GetAtt': [logGroup, 'Arn'] }]);
      const roleId = JSON.stringify(fn.Properties.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!;
      expect(resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('lets API Gateway invoke a route function only through this API, with one permission per function', () => {
    // One per function rather than per method: a method each would cost a CloudFormation
    // resource per row, and the CORS preflight methods need the room (infra/constructs/service-api.ts).
    const apiId = logicalId(stack.api.api);
    const permissions = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties);
    for (const [, fn] of stack.functions) {
      const own = permissions.filter((p) => JSON.stringify(p.FunctionName).includes(logicalId(fn)));
      expect(own).toHaveLength(1);
      expect(own[0]!.Principal).toBe('apigateway.amazonaws.com');
      const parts = own[0]!.SourceArn['Fn::Join'][1] as unknown[];
      expect(JSON.stringify(parts)).toContain(apiId);
      expect(parts.at(-1)).toBe('/*/*/*');
    }
    const authorizer = permissions.filter((p) => JSON.stringify(p.FunctionName).includes(logicalId(stack.authorizer)));
    expect(authorizer).toHaveLength(1);
    expect(JSON.stringify(authorizer[0]!.SourceArn)).toContain('/authorizers/');
  });
});

describe('the stream consumer', () => {
  it('receives only REMOVE events of projects, sprints, issues, labels, states, attachments, comments with attachments and trashed labels, issues, comments, sprints and projects, and writes of pending cascades, with bounded retries and a failure queue', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => m.Properties.FunctionName.Ref === logicalId(stack.cascade.fn),
    );
    expect(mappings).toHaveLength(1);
    const [, mapping] = mappings[0]!;
    const p = mapping.Properties;
    expect(p.FunctionName).toEqual({ Ref: logicalId(stack.cascade.fn) });
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['project', 'sprint', 'issue', 'label', 'state'] } } } },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['attachment'] } } } },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['comment'] }, has_attachments: { BOOL: [true] } } } },
      {
        eventName: ['REMOVE'],
        dynamodb: {
          OldImage: { type: { S: ['trash'] }, kind: { S: ['label', 'issue', 'comment', 'attachment', 'sprint', 'project'] } },
        },
      },
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['cascade'] }, status: { S: ['pending'] } } } },
    ]);
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: 5,
      // A cascade's shard in order (its continuations follow its parents' removals).
      ParallelizationFactor: 1,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.cascade.failures), 'Arn'] } } },
    });
  });

  it("runs queued import jobs on a mapping of its own, with bounded retries and the cascade's failure queue, which raises an alarm", () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => m.Properties.FunctionName.Ref === logicalId(stack.importJobs.fn),
    );
    expect(mappings).toHaveLength(1);
    const p = mappings[0]![1].Properties;
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['import_job'] }, status: { S: ['queued'] } } } },
    ]);
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: 5,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.cascade.failures), 'Arn'] } } },
    });
    expect(stack.importJobs.failures).toBe(stack.cascade.failures);
    const queue = logicalId(stack.cascade.failures);
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties.Dimensions ?? []).includes(queue),
    );
    expect(alarms).toHaveLength(1);
  });

  it('announces a cascade given up on the failure queue (its URL, leave to send), which raises an alarm on any message (the monitoring dead-letter alarm)', () => {
    const fn = resources[logicalId(stack.cascade.fn)]!;
    const queue = logicalId(stack.cascade.failures);
    expect(fn.Properties.Environment.Variables.CASCADE_FAILURE_QUEUE_URL).toEqual({ Ref: queue });
    const sends = policies().flatMap(([, policy]) =>
      (policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]).filter(
        (st) => [st.Action].flat().includes('sqs:SendMessage') && JSON.stringify(st.Resource).includes(queue),
      ),
    );
    expect(sends.length).toBeGreaterThan(0);
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties.Dimensions ?? []).includes(queue),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Namespace: 'AWS/SQS',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('runs functions/cascade.ts with the table name', () => {
    const fn = resources[logicalId(stack.cascade.fn)]!;
    expect(fn.Properties.Environment.Variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
    expect(stack.cascade.fn.node.id).toBe('Function');
  });
});

/** The GitHub receiver: public, throttled on its own (lib/routes.ts: `receiver`). */
const receiverEntry = 'functions/github/receive.ts';
/** Its method's path as a stage's method setting names it (`/` escaped as `~1`). */
const receiverResourcePath = '/~1api~1v1~1integrations~1github';

/**
 * What is wrong with the receiver's method in a synthesized stack: an authorizer or an API key in
 * front of it (GitHub sends neither), or no throttle of its own on the stage (rate 50, burst 100,
 * with the stage's logging and metrics).
 */
function receiverProblems(r: Resources): string[] {
  const byId = new Map(Object.entries(r));
  const pathOf = (id: string): string => {
    const resource = byId.get(id)!;
    const parent = resource.Properties.ParentId as { Ref?: string };
    return `${parent.Ref ? pathOf(parent.Ref) : ''}/${resource.Properties.PathPart}`;
  };
  const method = Object.values(r).find(
    (m) =>
      m.Type === 'AWS::ApiGateway::Method' &&
      m.Properties.HttpMethod === 'POST' &&
      m.Properties.ResourceId.Ref !== undefined &&
      pathOf(m.Properties.ResourceId.Ref as string) === '/api/v1/integrations/github',
  );
  if (!method) return ['no method POST /api/v1/integrations/github'];
  const problems: string[] = [];
  if (method.Properties.AuthorizationType !== 'NONE' || method.Properties.AuthorizerId !== undefined)
    problems.push('an authorizer in front of it');
  if (method.Properties.ApiKeyRequired !== false) problems.push('an API key required');
  const [stage] = Object.values(r).filter((x) => x.Type === 'AWS::ApiGateway::Stage');
  const own = (stage!.Properties.MethodSettings as Record<string, unknown>[]).filter(
    (m) => m.HttpMethod === 'POST' && m.ResourcePath === receiverResourcePath,
  );
  const expected = { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100, LoggingLevel: 'ERROR', MetricsEnabled: true };
  if (own.length !== 1 || !Object.entries(expected).every(([k, v]) => own[0]![k] === v)) problems.push('no throttle of its own');
  return problems;
}

describe('the GitHub receiver', () => {
  it('is a receiver row of the route table: public, writing', () => {
    const row = routes.find((r) => r.handler === receiverEntry);
    expect(row).toMatchObject({
      method: 'POST',
      path: '/api/v1/integrations/github',
      auth: false,
      receiver: true,
      access: 'write',
    });
  });

  it('has no authorizer and no API key in front of it, and a throttle of its own on the stage (rate 50, burst 100)', () => {
    expect(receiverProblems(resources)).toEqual([]);
  });

  it('is found out when it gains an authorizer or loses its throttle', () => {
    const guarded = routes.map((r) => {
      if (r.handler !== receiverEntry) return r;
      const { receiver: _receiver, ...rest } = r;
      return { ...rest, auth: true };
    });
    expect(receiverProblems(synth(guarded, { context: { stage: 'prod' } }).resources)).toEqual([
      'an authorizer in front of it',
      'an API key required',
      'no throttle of its own',
    ]);
  });

  it('may write the table and open the secrets (kms:Decrypt on the key, for an endpoint’s context), and nothing more', () => {
    const fn = resources[logicalId(stack.functions.get(receiverEntry)!)]!;
    const roleId = JSON.stringify(fn.Properties.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!;
    const statements = policies()
      .filter(([, p]) => (p.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const actions = statements.flatMap((st) => [st.Action].flat()).filter((a) => !a.startsWith('logs:'));
    expect(actions.sort()).toEqual([...writes, 'kms:Decrypt'].sort());
    const decrypt = statements.find((st) => [st.Action].flat().includes('kms:Decrypt'))!;
    expect(decrypt.Resource).toEqual({ 'Fn::GetAtt': [logicalId(stack.webhookSecretKey.key), 'Arn'] });
    // Told the table and the key; no usage plan key, no CORS preflight, no bucket.
    expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(
      expect.arrayContaining(['TABLE_NAME', 'WEBHOOK_SECRET_KMS_KEY_ID']),
    );
    expect(fn.Properties.Environment.Variables.ATTACHMENTS_BUCKET).toBeUndefined();
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(10);
  });
});

describe('the GitHub deliveries’ consumer', () => {
  it('reads the stream on a mapping of its own, filtered to inserts of GitHub deliveries, with bounded retries and the shared failure queue', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, m]) => m.Properties.FunctionName.Ref === logicalId(stack.githubEvents.fn),
    );
    expect(mappings).toHaveLength(1);
    const p = mappings[0]![1].Properties;
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['github_delivery'] } } } },
    ]);
    expect(p).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      MaximumRetryAttempts: 5,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [logicalId(stack.cascade.failures), 'Arn'] } } },
    });
    expect(stack.githubEvents.failures).toBe(stack.cascade.failures);
  });

  it('runs functions/github-events.ts with the table name, and neither the KMS key nor KMS', () => {
    const fn = resources[logicalId(stack.githubEvents.fn)]!.Properties;
    expect(fn.Environment.Variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
    expect(fn.Environment.Variables.WEBHOOK_SECRET_KMS_KEY_ID).toBeUndefined();
    expect(fn.Description).toMatch(/table stream/);
    const roleId = JSON.stringify(fn.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!;
    const actions = policies()
      .filter(([, pol]) => (pol.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleId))
      .flatMap(([, pol]) => pol.Properties.PolicyDocument.Statement as { Action: string | string[] }[])
      .flatMap((st) => [st.Action].flat());
    expect(actions.filter((a) => a.startsWith('kms:'))).toEqual([]);
  });
});

describe('adding a route', () => {
  it('adds its method, and its function when the module is new, with no other edit', () => {
    const extra: Route[] = [
      { ...routes[0]!, method: 'POST', path: '/api/v1/extra/{id}/spelling' },
      { ...routes[0]!, method: 'GET', path: '/api/v1/extra', handler: 'tools/bench/baseline.ts' },
    ];
    const { template: bigger } = synth([...routes, ...extra], { context: { stage: 'prod' } });
    const count = (t: Template, type: string) => Object.keys(t.findResources(type)).length;
    expect(count(bigger, 'AWS::ApiGateway::Method')).toBe(count(template, 'AWS::ApiGateway::Method') + 2);
    expect(count(bigger, 'AWS::Lambda::Function')).toBe(count(template, 'AWS::Lambda::Function') + 1);
  });
});

describe('cdk-nag', () => {
  it('fails synthesis on a finding nobody acknowledged', () => {
    // An SQS queue that accepts plain HTTP and has no dead-letter queue: AwsSolutions-SQS3 and SQS4.
    const withFinding = () => synth(routes, { extra: (s) => void new Queue(s, 'Careless', { enforceSSL: false }) });
    expect(withFinding).toThrow(/Validation failed|AwsSolutions-SQS[34]/);
  });

  it('checks the nested stacks too: a finding in a route functions stack fails synthesis', () => {
    const inNested = () =>
      synth(routes, { extra: (s) => void new Queue(s.routeStacks.get('IssueRoutes')!, 'Careless', { enforceSSL: false }) });
    expect(inNested).toThrow(/Validation failed|AwsSolutions-SQS[34]/);
  });
});

describe('stages', () => {
  const dev = () => synthOnce('dev', { stage: 'dev' });
  const prod = () => ({ template, resources, report });

  it('defaults to dev', () => {
    expect(stageConfig(() => undefined).stage).toBe('dev');
    expect(() => stageConfig((key) => (key === 'stage' ? 'staging' : undefined))).toThrow(/dev or prod/);
  });

  it.each(['dev', 'prod'] as const)('%s: passes cdk-nag and puts the stage in every name it sets', (stage) => {
    const synthesized = stage === 'dev' ? dev() : prod();
    expect(violations(synthesized.report)).toEqual([]);
    // The names the stack sets; the others CloudFormation derives from the stack's name
    // (SprintTicketing-<stage>, infra/app.ts).
    const nameKeys = ['Name', 'UsagePlanName', 'TopicName', 'DashboardName', 'AlarmName', 'StageName'];
    const named = Object.entries(synthesized.resources).flatMap(([id, r]) =>
      Object.entries(r.Properties ?? {})
        .filter(([key]) => nameKeys.includes(key))
        .map(([key, value]) => ({ id, key, value: value as string })),
    );
    expect(named.length).toBeGreaterThan(4);
    for (const n of named) expect(n, JSON.stringify(n)).toMatchObject({ value: expect.stringContaining(stage) });
    const [, apiStage] = Object.entries(synthesized.resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Stage')!;
    expect(apiStage.Properties.StageName).toBe(stage);
  });

  it('prod keeps the table (RETAIN, deletion protection, PITR) and its logs for a year', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      }),
    });
    const logGroups = ofType('AWS::Logs::LogGroup');
    // One per function (the routes', the authorizer, the cascade, the import jobs, the GitHub deliveries, the change feed's two, the migrations) and the access log.
    expect(logGroups.length).toBe(handlerModules(routes).length + 8);
    for (const [, group] of logGroups) {
      expect(group).toMatchObject({
        DeletionPolicy: 'Retain',
        UpdateReplacePolicy: 'Retain',
        Properties: { RetentionInDays: 365 },
      });
    }
  });

  it('dev destroys cleanly: table and logs go with the stack, no deletion protection', () => {
    const { resources: devResources } = dev();
    const of = (type: string) => Object.values(devResources).filter((r) => r.Type === type);
    const [table] = of('AWS::DynamoDB::Table');
    expect(table).toMatchObject({ DeletionPolicy: 'Delete' });
    expect(table!.Properties.DeletionProtectionEnabled).toBe(false);
    for (const group of of('AWS::Logs::LogGroup')) {
      expect(group).toMatchObject({ DeletionPolicy: 'Delete', Properties: { RetentionInDays: 7 } });
    }
    // Nothing else is kept but API Gateway's account-wide log role (and its account setting),
    // which the account's other APIs share.
    const kept = Object.entries(devResources).filter(([, r]) => r.DeletionPolicy === 'Retain');
    expect(kept.map(([, r]) => r.Type).sort()).toEqual(['AWS::ApiGateway::Account', 'AWS::IAM::Role']);
  });
});

/** One synthesis per distinct context, shared by the tests that read it. */
const synthesized = new Map<string, ReturnType<typeof synth>>();
function synthOnce(key: string, context: Record<string, string>) {
  let found = synthesized.get(key);
  if (!found) {
    found = synth(routes, { context });
    synthesized.set(key, found);
  }
  return found;
}
const typed = (r: Resources, type: string) => Object.values(r).filter((x) => x.Type === type);

describe('abuse resistance', () => {
  it('throttles every method of the stage by default, before the authorizer (named constants, overridable)', () => {
    const [, apiStage] = ofType('AWS::ApiGateway::Stage')[0]!;
    // And the GitHub receiver's own (its describe below).
    expect(apiStage.Properties.MethodSettings).toEqual([
      expect.objectContaining({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 }),
      expect.objectContaining({ HttpMethod: 'POST', ResourcePath: receiverResourcePath }),
    ]);
    const { resources: custom } = synthOnce('throttle', {
      stageThrottleRate: '50',
      stageThrottleBurst: '80',
      throttleRate: '20',
      throttleBurst: '40',
    });
    expect(typed(custom, 'AWS::ApiGateway::Stage')[0]!.Properties.MethodSettings[0]).toMatchObject({
      ThrottlingRateLimit: 50,
      ThrottlingBurstLimit: 80,
    });
    expect(typed(custom, 'AWS::ApiGateway::UsagePlan')[0]!.Properties.Throttle).toEqual({ RateLimit: 20, BurstLimit: 40 });
  });

  it('bounds the authorizer’s and the unauthenticated functions’ concurrency (the GitHub receiver’s a little more), and no other', () => {
    const unauthenticated = [...stack.functions]
      .filter(([entry]) => routes.filter((r) => r.handler === entry).every((r) => !r.auth))
      .map(([, fn]) => logicalId(fn));
    const receiver = logicalId(stack.functions.get(receiverEntry)!);
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const expected =
        id === logicalId(stack.authorizer) ? 50 : id === receiver ? 10 : unauthenticated.includes(id) ? 5 : undefined;
      expect({ id, reserved: fn.Properties.ReservedConcurrentExecutions }).toEqual({ id, reserved: expected });
    }
    const { resources: unreserved } = synthOnce('unreserved', { authorizerConcurrency: 'none', stage: 'prod' });
    const authorizerId = logicalId(stack.authorizer);
    expect(unreserved[authorizerId]!.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('prod has a WAF web ACL on its stage: AWS common rules, and per-IP rate limits answered 429', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    const [, acl] = ofType('AWS::WAFv2::WebACL')[0]!;
    expect(acl.Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} }, Name: 'sprint-ticketing-prod' });
    const rules = acl.Properties.Rules as Record<string, any>[];
    expect(rules.find((r) => r.Name === 'aws-common-rule-set')!.Statement.ManagedRuleGroupStatement).toMatchObject({
      VendorName: 'AWS',
      Name: 'AWSManagedRulesCommonRuleSet',
    });
    const unauthenticated = rules.find((r) => r.Name === 'unauthenticated-per-ip')!;
    expect(unauthenticated.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', Limit: 100 });
    // Scoped to requests with no well-formed token in either header.
    const scope = JSON.stringify(unauthenticated.Statement.RateBasedStatement.ScopeDownStatement);
    expect(scope).toContain('NotStatement');
    expect(scope).toContain('authorization');
    expect(scope).toContain('x-api-token');
    // Both kinds of bearer token are well-formed (an assistant's OAuth token too); junk is not.
    const bearer = new RegExp(
      JSON.stringify(unauthenticated.Statement.RateBasedStatement.ScopeDownStatement)
        .match(/"RegexString":"(\^\[Bb\]earer[^"]+)"/)![1]!
        .replace(/\\\\/g, '\\'),
    );
    expect(bearer.test(`Bearer stk_${'a'.repeat(43)}`)).toBe(true);
    expect(bearer.test(`Bearer stk_oat_${'a'.repeat(43)}`)).toBe(true);
    expect(bearer.test(`Bearer stk_ort_${'a'.repeat(43)}`)).toBe(false);
    expect(bearer.test(`Bearer junk`)).toBe(false);
    // But for GitHub's deliveries: they carry no token, and come from GitHub's few addresses for every
    // repository; the limit on everything still counts them, and their method's throttle bounds them.
    expect(unauthenticated.Statement.RateBasedStatement.ScopeDownStatement.AndStatement.Statements[1]).toEqual({
      NotStatement: {
        Statement: {
          ByteMatchStatement: {
            FieldToMatch: { UriPath: {} },
            PositionalConstraint: 'ENDS_WITH',
            SearchString: '/api/v1/integrations/github',
            TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
          },
        },
      },
    });
    const all = rules.find((r) => r.Name === 'all-per-ip')!;
    expect(all.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', Limit: 6000, EvaluationWindowSec: 300 });
    // OAuth client registration (open to anyone): 20 per address per 10 minutes, POSTs to it only.
    const register = rules.find((r) => r.Name === 'oauth-register-per-ip')!;
    expect(register.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', Limit: 20, EvaluationWindowSec: 600 });
    expect(register.Statement.RateBasedStatement.ScopeDownStatement.AndStatement.Statements).toEqual([
      {
        ByteMatchStatement: expect.objectContaining({
          FieldToMatch: { Method: {} },
          PositionalConstraint: 'EXACTLY',
          SearchString: 'POST',
        }),
      },
      {
        ByteMatchStatement: expect.objectContaining({
          FieldToMatch: { UriPath: {} },
          PositionalConstraint: 'ENDS_WITH',
          SearchString: '/oauth/register',
        }),
      },
    ]);
    expect(rules.map((r) => r.Priority)).toEqual([0, 1, 2, 3]);
    for (const rule of [register, unauthenticated, all]) expect(rule.Action.Block.CustomResponse.ResponseCode).toBe(429);
    const [, association] = ofType('AWS::WAFv2::WebACLAssociation')[0]!;
    expect(JSON.stringify(association.Properties.ResourceArn)).toContain(logicalId(stack.api.api.deploymentStage));
  });

  it('dev has no WAF unless asked for; prod can turn it off', () => {
    expect(typed(synthOnce('dev', { stage: 'dev' }).resources, 'AWS::WAFv2::WebACL')).toHaveLength(0);
    const devWaf = synthOnce('dev-waf', { stage: 'dev', waf: 'true' });
    expect(typed(devWaf.resources, 'AWS::WAFv2::WebACL')).toHaveLength(1);
    expect(typed(devWaf.resources, 'AWS::WAFv2::WebACL')[0]!.Properties.Name).toBe('sprint-ticketing-dev');
    expect(violations(devWaf.report)).toEqual([]);
    expect(typed(synthOnce('prod-nowaf', { stage: 'prod', waf: 'false' }).resources, 'AWS::WAFv2::WebACL')).toHaveLength(0);
  });
});

describe('CORS', () => {
  const origins = 'https://app.example.com,https://admin.example.com';

  it('answers preflights on every authenticated path without the authorizer, only when origins are configured', () => {
    const {
      resources: withCors,
      templates: corsTemplates,
      report: corsReport,
    } = synthOnce('cors', { stage: 'prod', corsOrigins: origins });
    expect(violations(corsReport)).toEqual([]);
    const ids = new Map(Object.entries(withCors));
    const pathOf = (id: string): string => {
      const r = ids.get(id)!;
      const parent = r.Properties.ParentId as { Ref?: string };
      return `${parent.Ref ? pathOf(parent.Ref) : ''}/${r.Properties.PathPart}`;
    };
    const preflights = Object.values(withCors).filter(
      (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.HttpMethod === 'OPTIONS',
    );
    const expected = [...new Set(routes.filter((r) => r.auth).map((r) => r.path))].sort();
    expect(preflights.map((m) => pathOf(m.Properties.ResourceId.Ref)).sort()).toEqual(expected);
    for (const m of preflights) {
      expect(m.Properties.AuthorizationType).toBe('NONE');
      expect(m.Properties.ApiKeyRequired ?? false).toBe(false);
      expect(m.Properties.Integration.Type).toBe('MOCK');
      const headers = m.Properties.Integration.IntegrationResponses[0].ResponseParameters as Record<string, string>;
      expect(headers['method.response.header.Access-Control-Allow-Headers']).toContain('If-Match');
      expect(headers['method.response.header.Access-Control-Allow-Methods']).toContain('PATCH');
    }
    expect(ofType('AWS::ApiGateway::Method').filter(([, m]) => m.Properties.HttpMethod === 'OPTIONS')).toHaveLength(0);
    // The preflight methods are the parent's (the API's): every template still below the limit.
    for (const t of headroom(corsTemplates)) expect({ name: t.name, below: t.free > 0 }).toEqual({ name: t.name, below: true });
  });

  it("puts the CORS headers on API Gateway's own error responses, and the origins on every function with table access", () => {
    const { resources: withCors } = synthOnce('cors', { stage: 'prod', corsOrigins: origins });
    const responses = Object.values(withCors).filter((r) => r.Type === 'AWS::ApiGateway::GatewayResponse');
    expect(responses.map((r) => r.Properties.ResponseType).sort()).toEqual(Object.keys(gatewayResponses).sort());
    for (const r of responses) {
      const headers = r.Properties.ResponseParameters as Record<string, string>;
      expect(headers['gatewayresponse.header.Access-Control-Allow-Origin']).toBe("'*'");
      const exposed = headers['gatewayresponse.header.Access-Control-Expose-Headers'];
      for (const name of ['Link', 'X-Total-Count', 'X-Page', 'X-Per-Page', 'X-RateLimit-Remaining', 'Retry-After', 'ETag']) {
        expect(exposed).toContain(name);
      }
    }
    // And so does the catch-all's 404 or 405.
    const catchAll = Object.values(withCors).find(
      (r) => r.Type === 'AWS::ApiGateway::Method' && r.Properties.HttpMethod === 'ANY',
    )!;
    const catchAllHeaders = catchAll.Properties.Integration.IntegrationResponses[0].ResponseParameters as Record<string, string>;
    expect(catchAllHeaders['method.response.header.Access-Control-Allow-Origin']).toBe("'*'");
    expect(catchAllHeaders['method.response.header.Access-Control-Expose-Headers']).toContain('Retry-After');
    const single = synthOnce('cors-one', { corsOrigins: 'https://app.example.com' }).resources;
    for (const r of Object.values(single).filter((x) => x.Type === 'AWS::ApiGateway::GatewayResponse')) {
      expect(r.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBe(
        "'https://app.example.com'",
      );
    }
    const fns = Object.values(withCors).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment.Variables.TABLE_NAME,
    );
    const routeFns = fns.filter((r) => r.Properties.Environment.Variables.CORS_ORIGINS !== undefined);
    expect(routeFns.length).toBeGreaterThan(40);
    for (const r of routeFns) expect(r.Properties.Environment.Variables.CORS_ORIGINS).toBe(origins);
    // none by default
    for (const [, r] of ofType('AWS::ApiGateway::GatewayResponse')) {
      expect(r.Properties.ResponseParameters['gatewayresponse.header.Access-Control-Allow-Origin']).toBeUndefined();
    }
    for (const [, r] of ofType('AWS::Lambda::Function')) expect(r.Properties.Environment.Variables.CORS_ORIGINS).toBeUndefined();
  });

  it('refuses an origin that is not an exact origin', () => {
    for (const bad of ['*', 'app.example.com', 'https://app.example.com/path']) {
      expect(() => stageConfig((key) => (key === 'corsOrigins' ? bad : undefined)), bad).toThrow(/exact origin/);
    }
  });
});

describe('custom domain', () => {
  const certificateArn = 'arn:aws:acm:us-east-1:123456789012:certificate/abc';

  it('maps a domain name with its certificate to the stage, when both are given', () => {
    const { resources: withDomain, template: t } = synthOnce('domain', {
      stage: 'prod',
      domainName: 'api.example.com',
      certificateArn,
    });
    const [domain] = typed(withDomain, 'AWS::ApiGateway::DomainName');
    expect(domain!.Properties).toMatchObject({
      DomainName: 'api.example.com',
      RegionalCertificateArn: certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    expect(typed(withDomain, 'AWS::ApiGateway::BasePathMapping')).toHaveLength(1);
    const outputs = t.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ApiUrl!.Value).toBe('https://api.example.com/api/v1');
    expect(outputs.DomainTarget).toBeDefined();
    expect(typed(resources, 'AWS::ApiGateway::DomainName')).toHaveLength(0);
    // The OAuth issuer, /mcp's own origin and every link a list writes are the domain's.
    const urls = typed(withDomain, 'AWS::Lambda::Function')
      .map((r) => r.Properties.Environment.Variables.PUBLIC_URL)
      .filter((url) => url !== undefined);
    expect(urls.length).toBeGreaterThan(10);
    expect(new Set(urls)).toEqual(new Set(['https://api.example.com']));
  });

  it('refuses half a domain', () => {
    expect(() => stageConfig((key) => (key === 'domainName' ? 'api.example.com' : undefined))).toThrow(/both/);
  });
});

describe('alarms and dashboard', () => {
  const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties);
  const alarm = (suffix: string) => alarms().find((a) => a.AlarmName === `sprint-ticketing-prod-${suffix}`)!;
  const topicId = () => logicalId(stack.monitoring.topic as never);

  it('alarms on the API’s 5xx rate, p99 latency and 429 rate, with named thresholds', () => {
    const fiveXx = alarm('Api5xxRate');
    expect(fiveXx).toMatchObject({ Threshold: 0.01, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    expect(JSON.stringify(fiveXx.Metrics)).toContain('5XXError');
    expect(alarm('ApiP99Latency')).toMatchObject({
      Threshold: 1500,
      ExtendedStatistic: 'p99',
      MetricName: 'Latency',
      EvaluationPeriods: 3,
    });
    const tooMany = alarm('Api429Rate');
    expect(tooMany.Threshold).toBe(0.05);
    expect(JSON.stringify(tooMany.Metrics)).toContain('Http429-prod');
    // API Gateway has no 429 metric: the access log's 429 lines are counted.
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = "429" }',
      MetricTransformations: [Match.objectLike({ MetricName: 'Http429-prod', MetricNamespace: 'SprintTicketing' })],
    });
  });

  it('alarms on authorizer failures and throttles, and on every function’s errors and throttles', () => {
    expect(alarm('AuthorizerFailures')).toMatchObject({
      MetricName: 'AuthorizerFailures',
      Namespace: 'SprintTicketing',
      Threshold: 1,
    });
    expect(alarm('AuthorizerThrottles')).toMatchObject({ MetricName: 'Throttles', Threshold: 1 });
    for (const fn of [
      ...stack.functions.values(),
      stack.cascade.fn,
      stack.importJobs.fn,
      stack.githubEvents.fn,
      stack.migrations.fn,
    ]) {
      const own = alarms().filter((a) => JSON.stringify(a.Metrics ?? []).includes(logicalId(fn)));
      expect(own, logicalId(fn)).toHaveLength(1);
      expect(JSON.stringify(own[0]!.Metrics)).toMatch(/Errors.*Throttles|Throttles.*Errors/);
    }
    // CloudWatch refuses an alarm whose math reads more than 10 metrics.
    for (const a of alarms())
      expect((a.Metrics ?? []).filter((m: { MetricStat?: unknown }) => m.MetricStat).length).toBeLessThanOrEqual(10);
  });

  it('alarms on any failed data migration (the MigrationFailures metric the runner counts)', () => {
    expect(alarm('MigrationFailures')).toMatchObject({
      MetricName: 'MigrationFailures',
      Namespace: 'SprintTicketing',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Dimensions: expect.arrayContaining([
        { Name: 'service', Value: 'sprint-ticketing' },
        { Name: 'stage', Value: 'prod' },
      ]) as unknown,
    });
  });

  it('alarms when the cascade’s dead-letter queue is not empty and when the stream falls behind', () => {
    expect(alarm('CascadeDeadLetters')).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 1 });
    expect(alarm('CascadeIteratorAge')).toMatchObject({ MetricName: 'IteratorAge', Threshold: 600_000 });
  });

  it('notifies one topic from every alarm; an e-mail address or an existing topic come from context', () => {
    for (const a of alarms()) expect(a.AlarmActions).toEqual([{ Ref: topicId() }]);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const mail = synthOnce('mail', { stage: 'prod', alarmEmail: 'ops@example.com' });
    expect(typed(mail.resources, 'AWS::SNS::Subscription')[0]!.Properties).toMatchObject({
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    const existing = 'arn:aws:sns:us-east-1:123456789012:pager';
    const shared = synthOnce('topic', { stage: 'prod', alarmTopicArn: existing });
    expect(typed(shared.resources, 'AWS::SNS::Topic')).toHaveLength(0);
    for (const a of typed(shared.resources, 'AWS::CloudWatch::Alarm')) expect(a.Properties.AlarmActions).toEqual([existing]);
  });

  it('has one dashboard with the same signals and the service’s own counters', () => {
    const dashboards = ofType('AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const [, dashboard] = dashboards[0]!;
    expect(dashboard.Properties.DashboardName).toBe('sprint-ticketing-prod');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const signal of [
      '5XXError',
      'Latency',
      'Http429-prod',
      'RefusedTokens',
      'RateLimited',
      'AuthorizerFailures',
      'Throttles',
      'Errors',
      'IteratorAge',
      'ApproximateNumberOfMessagesVisible',
      'CascadeItemsRemoved',
      'MigrationSteps',
      'MigrationFailures',
      'MetricName=\\\\\\"Requests\\\\\\"',
      'BlockedRequests',
    ]) {
      expect(body, signal).toContain(signal);
    }
  });
});

describe('data migrations on deploy', () => {
  const fnId = () => logicalId(stack.migrations.fn);
  const runs = () => ofType('AWS::CloudFormation::CustomResource');

  it('runs the migration function from one custom resource, on create and whenever the migration list or its code changes', () => {
    expect(runs()).toHaveLength(1);
    const [, run] = runs()[0]!;
    // CloudFormation calls the function itself: no provider framework (its functions, roles and permission).
    expect(run.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [fnId(), 'Arn'] });
    expect(run.Properties.Migrations).toBe(migrationsVersion);
    expect(run.Properties.Migrations).toBe(migrations.map((m) => m.name).join(','));
    expect(run.Properties.Code).toBe(resources[fnId()]!.Properties.Code.S3Key);
    template.resourceCountIs('Custom::Trigger', 0);
    template.resourceCountIs('Custom::AWS', 0);
  });

  it('starts them once this release serves the API: after the API’s stage is deployed', () => {
    const [id] = runs()[0]!;
    const dependsOn = (template.toJSON().Resources[id] as { DependsOn?: string[] }).DependsOn ?? [];
    expect(dependsOn).toContain(logicalId(stack.api.api.deploymentStage));
  });

  it('gives the function 15 minutes, a fixed name, and leave to invoke only itself (to continue its run)', () => {
    const fn = resources[fnId()]!.Properties;
    expect(fn.Timeout).toBe(900);
    expect(fn.FunctionName).toBe('sprint-ticketing-prod-migrations');
    const roleId = JSON.stringify(fn.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!;
    const statements = (resources[roleId]!.Properties.Policies as { PolicyDocument: { Statement: any[] } }[]).flatMap(
      (p) => p.PolicyDocument.Statement,
    );
    const invoke = statements.filter((st) => [st.Action].flat().some((a: string) => a.startsWith('lambda:')));
    expect(invoke).toHaveLength(1);
    expect(invoke[0].Action).toBe('lambda:InvokeFunction');
    expect(JSON.stringify(invoke[0].Resource)).toContain(':function:sprint-ticketing-prod-migrations"');
    expect(JSON.stringify(invoke[0].Resource)).not.toContain('*');
    expect(fn.Environment.Variables.TABLE_NAME).toEqual({ Ref: logicalId(stack.table.table) });
  });
});

describe('the change feed', () => {
  const mappingOf = (fnId: string) =>
    ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === fnId);

  it('reads the stream on a mapping of its own, ten batches of a shard at once: every write of projects, sprints, issues, comments and notifications, attachments becoming ready or removed, trash items removed, import jobs ending, and redelivery requests', () => {
    const mappings = mappingOf(logicalId(stack.changeFeed.consumer));
    expect(mappings).toHaveLength(1);
    const p = mappings[0]![1].Properties;
    expect(p.EventSourceArn).toEqual({ 'Fn::GetAtt': [logicalId(stack.table.table), 'StreamArn'] });
    const types = ['project', 'sprint', 'issue', 'comment'];
    expect(p.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual([
      { dynamodb: { NewImage: { type: { S: [...types, 'notification'] } } } },
      { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: [...types, 'attachment', 'trash', 'notification'] } } } },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['attachment'] }, status: { S: ['ready'] } } } },
      { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['import_job'] }, status: { S: ['succeeded', 'failed'] } } } },
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
      ParallelizationFactor: 10,
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

  it('feeds the delivery function from the fast and the slow lane, each on a mapping with its own maximum concurrency', () => {
    const mappings = mappingOf(logicalId(stack.changeFeed.deliverer)).map(([, m]) => m.Properties);
    expect(mappings).toHaveLength(2);
    const of = (queue: Queue) =>
      mappings.find((m) => JSON.stringify(m.EventSourceArn) === JSON.stringify({ 'Fn::GetAtt': [logicalId(queue), 'Arn'] }));
    const common = { BatchSize: 10, FunctionResponseTypes: ['ReportBatchItemFailures'] };
    expect(of(stack.changeFeed.deliveries)).toMatchObject({ ...common, ScalingConfig: { MaximumConcurrency: 50 } });
    expect(of(stack.changeFeed.slowDeliveries)).toMatchObject({ ...common, ScalingConfig: { MaximumConcurrency: 10 } });
    // The deliverer derives each lane's per-organisation cap (a fifth) from the same numbers.
    const env = resources[logicalId(stack.changeFeed.deliverer)]!.Properties.Environment.Variables;
    expect(env).toMatchObject({ WEBHOOK_CONCURRENCY: '50', WEBHOOK_SLOW_CONCURRENCY: '10' });
    expect(orgInFlightCap(Number(env.WEBHOOK_CONCURRENCY))).toBe(10);
  });

  it('gives the slow lane a queue like the fast one: encrypted, TLS only, the same dead-letter queue, which raises an alarm on any message', () => {
    const fast = resources[logicalId(stack.changeFeed.deliveries)]!.Properties;
    const slow = resources[logicalId(stack.changeFeed.slowDeliveries)]!.Properties;
    expect(slow).toEqual(fast);
    const tlsOnly = ofType('AWS::SQS::QueuePolicy').filter(([, p]) =>
      JSON.stringify(p.Properties.Queues).includes(logicalId(stack.changeFeed.slowDeliveries)),
    );
    expect(JSON.stringify(tlsOnly)).toContain('aws:SecureTransport');
    const dlq = logicalId(stack.changeFeed.deadLetters);
    const alarms = ofType('AWS::CloudWatch::Alarm').filter(([, a]) =>
      JSON.stringify(a.Properties.Dimensions ?? []).includes(dlq),
    );
    expect(alarms).toHaveLength(1);
    expect(alarms[0]![1].Properties).toMatchObject({
      AlarmName: 'sprint-ticketing-prod-DeliveryDeadLetters',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
    });
  });

  it('grants least privilege: the consumer and the deliverer may send to the delivery queue, only the deliverer receive', () => {
    const queueArn = { 'Fn::GetAtt': [logicalId(stack.changeFeed.deliveries), 'Arn'] };
    const sqsActionsOf = (fn: { role?: unknown }) => {
      const roleId = logicalId(fn.role as { node: { defaultChild: never } });
      return policies()
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
    // The slow lane: both may send to it (fan-out to an endpoint already there, moves, retries), the deliverer receive.
    const slowArn = { 'Fn::GetAtt': [logicalId(stack.changeFeed.slowDeliveries), 'Arn'] };
    const on = (fn: { role?: unknown }, arn: unknown) =>
      sqsActionsOf(fn)
        .filter((st) => JSON.stringify(st.resource) === JSON.stringify(arn))
        .flatMap((st) => st.actions);
    expect(on(stack.changeFeed.consumer, slowArn)).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
    expect(on(stack.changeFeed.deliverer, slowArn)).toEqual(
      expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:SendMessage']),
    );
    for (const fn of [stack.changeFeed.consumer, stack.changeFeed.deliverer]) {
      expect(env(fn).SLOW_DELIVERY_QUEUE_URL).toEqual({ Ref: logicalId(stack.changeFeed.slowDeliveries) });
    }
    // No route function can send to the queue: a redelivery goes through the table's stream.
    for (const fn of stack.functions.values()) expect(sqsActionsOf(fn)).toEqual([]);
  });
});

/** Every function of the stack, by its entry, with the logical id of its role. */
const functionRoles = () => {
  const fns = [
    ...[...stack.functions].map(([entry, fn]) => ({ entry, fn })),
    { entry: 'functions/authorizer.ts', fn: stack.authorizer },
    { entry: 'functions/cascade.ts', fn: stack.cascade.fn },
    { entry: 'functions/import-jobs.ts', fn: stack.importJobs.fn },
    { entry: 'functions/github-events.ts', fn: stack.githubEvents.fn },
    { entry: 'functions/change-feed.ts', fn: stack.changeFeed.consumer },
    { entry: 'functions/webhooks/deliver.ts', fn: stack.changeFeed.deliverer },
    { entry: 'functions/migrate.ts', fn: stack.migrations.fn },
  ];
  return fns.map(({ entry, fn }) => ({
    entry,
    id: logicalId(fn),
    role: JSON.stringify(resources[logicalId(fn)]!.Properties.Role).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/)![1]!,
  }));
};

describe("attachments' bucket", () => {
  const bucketId = () => logicalId(stack.attachments.bucket);

  it('is one private bucket: public access blocked, encrypted, TLS only, unversioned, incomplete uploads removed', () => {
    const buckets = ofType('AWS::S3::Bucket');
    expect(buckets.map(([id]) => id)).toEqual([bucketId()]);
    const p = buckets[0]![1].Properties;
    expect(p.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(p.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
    expect(p.VersioningConfiguration).toBeUndefined();
    expect(p.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
      // Files posted with a form that nothing took (docs/attachments.md).
      expect.objectContaining({ Prefix: 'staging/', ExpirationInDays: 1, Status: 'Enabled' }),
    ]);
    // No CORS without configured origins (the CORS stage test checks the rule with them).
    expect(p.CorsConfiguration).toBeUndefined();
    const [, policy] = ofType('AWS::S3::BucketPolicy').find(([, b]) => JSON.stringify(b.Properties.Bucket).includes(bucketId()))!;
    expect(policy.Properties.PolicyDocument.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    );
  });

  it('lets the upload-form functions (REST create, /mcp) put under staging/ only, complete (REST, /mcp) copy from there to o/, the readers get, the cascade delete: each on its prefix alone', () => {
    const roleEntry = new Map(functionRoles().map((r) => [r.role, r.entry]));
    const uses: Record<string, string[]> = {};
    const under = (prefix: string) => ({ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, `/${prefix}*`]] });
    for (const [, policy] of policies()) {
      for (const st of policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]) {
        const actions = [st.Action].flat();
        if (!JSON.stringify(st.Resource).includes(bucketId()) && !actions.some((a) => a.startsWith('s3:'))) continue;
        for (const resource of [st.Resource].flat()) {
          const prefix = ['o/', 'staging/'].find((p) => JSON.stringify(resource) === JSON.stringify(under(p)));
          expect(prefix, JSON.stringify(resource)).toBeDefined();
          for (const role of policy.Properties.Roles as { Ref: string }[]) {
            const entry = roleEntry.get(role.Ref) ?? `role ${role.Ref}`;
            (uses[entry] ??= []).push(...actions.map((a) => `${a} ${prefix}`));
          }
        }
      }
    }
    for (const list of Object.values(uses)) list.sort();
    expect(uses).toEqual({
      'functions/attachments/create.ts': ['s3:PutObject staging/'],
      'functions/attachments/read.ts': ['s3:GetObject o/'],
      'functions/attachments/complete.ts': [
        's3:DeleteObject o/',
        's3:DeleteObject staging/',
        's3:GetObject o/',
        's3:GetObject staging/',
        's3:PutObject o/',
      ],
      'functions/mcp.ts': [
        's3:DeleteObject o/',
        's3:DeleteObject staging/',
        's3:GetObject o/',
        's3:GetObject staging/',
        's3:PutObject o/',
        's3:PutObject staging/',
      ],
      'functions/cascade.ts': ['s3:DeleteObject o/'],
    });
  });

  it('names the bucket (ATTACHMENTS_BUCKET) to those functions and to no other', () => {
    const told = functionRoles()
      .filter((r) => resources[r.id]!.Properties.Environment.Variables.ATTACHMENTS_BUCKET !== undefined)
      .map((r) => {
        expect(resources[r.id]!.Properties.Environment.Variables.ATTACHMENTS_BUCKET).toEqual({ Ref: bucketId() });
        return r.entry;
      });
    expect(told.sort()).toEqual([
      'functions/attachments/complete.ts',
      'functions/attachments/create.ts',
      'functions/attachments/read.ts',
      'functions/cascade.ts',
      'functions/mcp.ts',
    ]);
  });
});

describe('webhook signing secrets', () => {
  const keyId = () => logicalId(stack.webhookSecretKey.key);

  it('are sealed under one customer-managed KMS key with yearly rotation, kept with the table in prod', () => {
    const keys = ofType('AWS::KMS::Key');
    expect(keys.map(([id]) => id)).toEqual([keyId()]);
    const key = keys[0]![1];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    // The key policy names no function and no service: only the account, which delegates through IAM.
    const principals = (key.Properties.KeyPolicy.Statement as { Principal: unknown }[]).map((st) => JSON.stringify(st.Principal));
    expect(principals).toHaveLength(1);
    expect(principals[0]).toMatch(/:root"/);
  });

  it('may be sealed (Encrypt) by webhook and GitHub create and rotate-secret only, opened (Decrypt) by the delivery function and the GitHub receiver only: no other role mentions the key or KMS', () => {
    const roleEntry = new Map(functionRoles().map((r) => [r.role, r.entry]));
    const uses: Record<string, string[]> = {};
    for (const [, policy] of policies()) {
      for (const st of policy.Properties.PolicyDocument.Statement as {
        Action: string | string[];
        Resource: unknown;
        Condition?: unknown;
      }[]) {
        const actions = [st.Action].flat();
        const mentionsKey = JSON.stringify(st.Resource).includes(keyId());
        if (!mentionsKey && !actions.some((a) => a.startsWith('kms:'))) continue;
        // Only the key, by its ARN, and only with an encryption context naming an owner of the
        // function's kind: a webhook endpoint, or a GitHub-connected project.
        expect(st.Resource).toEqual({ 'Fn::GetAtt': [keyId(), 'Arn'] });
        for (const role of policy.Properties.Roles as { Ref: string }[]) {
          const entry = roleEntry.get(role.Ref) ?? `role ${role.Ref}`;
          const owner = entry.startsWith('functions/github/') ? 'github_project_id' : 'webhook_id';
          expect({ entry, condition: st.Condition }).toEqual({
            entry,
            condition: { Null: { 'kms:EncryptionContext:org_id': 'false', [`kms:EncryptionContext:${owner}`]: 'false' } },
          });
          (uses[entry] ??= []).push(...actions);
        }
      }
    }
    expect(uses).toEqual({
      'functions/webhooks/create.ts': ['kms:Encrypt'],
      'functions/webhooks/rotate-secret.ts': ['kms:Encrypt'],
      'functions/webhooks/deliver.ts': ['kms:Decrypt'],
      // A GitHub repository's secret: sealed when connected or rotated, opened to check a delivery.
      'functions/github/connect.ts': ['kms:Encrypt'],
      'functions/github/rotate-secret.ts': ['kms:Encrypt'],
      'functions/github/receive.ts': ['kms:Decrypt'],
    });
  });

  it('names in those conditions the encryption context the secret box binds each kind of secret to', () => {
    expect(Object.keys(encryptionContext({ orgId: 1, webhookId: 2 }))).toEqual(['org_id', 'webhook_id']);
    expect(Object.keys(encryptionContext({ orgId: 1, githubProjectId: 2 }))).toEqual(['org_id', 'github_project_id']);
  });

  it('names the key (WEBHOOK_SECRET_KMS_KEY_ID) to those six functions and to no other', () => {
    const told = functionRoles()
      .filter((r) => resources[r.id]!.Properties.Environment.Variables.WEBHOOK_SECRET_KMS_KEY_ID !== undefined)
      .map((r) => {
        expect(resources[r.id]!.Properties.Environment.Variables.WEBHOOK_SECRET_KMS_KEY_ID).toEqual({
          'Fn::GetAtt': [keyId(), 'Arn'],
        });
        return r.entry;
      });
    expect(told.sort()).toEqual([
      'functions/github/connect.ts',
      'functions/github/receive.ts',
      'functions/github/rotate-secret.ts',
      'functions/webhooks/create.ts',
      'functions/webhooks/deliver.ts',
      'functions/webhooks/rotate-secret.ts',
    ]);
  });

  it('outputs the key ARN for the admin CLI', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.WebhookSecretKeyArn?.Value).toEqual({ 'Fn::GetAtt': [keyId(), 'Arn'] });
  });
});

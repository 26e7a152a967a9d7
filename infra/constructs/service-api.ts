import { Aws, Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  AwsIntegration,
  type CfnAuthorizer,
  type DomainName,
  EndpointType,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bearerChallenge, gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { NOSNIFF } from '../../lib/http/nosniff.ts';
import {
  ALLOWED_HEADERS,
  ALLOWED_METHODS,
  EXPOSED_HEADERS,
  PREFLIGHT_MAX_AGE,
  gatewayResponseOrigin,
} from '../../lib/http/cors.ts';
import { MINIMUM_COMPRESSION_SIZE } from '../../lib/http/gateway-compression.ts';
import type { Route } from '../../lib/routes.ts';
import { MethodNotAllowed } from './method-not-allowed.ts';

export interface ServiceApiProps {
  routes: Route[];
  /** The function serving each handler module of `routes`. */
  functionFor: (handlerModule: string) => IFunction;
  /** The REQUEST authorizer (functions/authorizer.ts). */
  authorizer: IFunction;
  /** Gateway throttle per organisation (its API key in the usage plan). */
  organisationThrottle: { rateLimit: number; burstLimit: number };
  /** Default throttle of every method of the stage, whoever calls (before the authorizer). */
  stageThrottle: { rateLimit: number; burstLimit: number };
  /** The throttle of each receiver's method (`receiver` rows), in place of the stage's default. */
  receiverThrottle: { rateLimit: number; burstLimit: number };
  /** The stage: the deployment's stage name and part of every name. */
  stageName: string;
  /** A custom domain name (its ACM certificate in the stack's region) mapped to the stage. */
  domain?: { domainName: string; certificateArn: string } | undefined;
  /** The access log group's retention and removal. */
  logs: { retention: RetentionDays; removalPolicy: RemovalPolicy };
  /** Web origins allowed to call from a browser (lib/http/cors.ts); none: no preflight methods. */
  corsOrigins?: string[] | undefined;
}

/** One line per request in the access log: who (organisation), what, how it ended, how long. */
const accessLogFields = {
  requestId: '$context.requestId',
  extendedRequestId: '$context.extendedRequestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  resource: '$context.resourcePath',
  path: '$context.path',
  status: '$context.status',
  responseLength: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  orgId: '$context.authorizer.orgId',
  principalId: '$context.authorizer.principalId',
  apiKeyId: '$context.identity.apiKeyId',
  error: '$context.error.message',
  errorType: '$context.error.responseType',
};

/**
 * The REST API: one method per row of the route table (both spellings of an update or a
 * transition are rows of their own), the token authorizer in front of every authenticated row, a
 * usage plan keyed per organisation, API Gateway's own errors in the service's JSON shape, and an
 * access log.
 */
export class ServiceApi extends Construct {
  readonly api: RestApi;
  readonly usagePlan: UsagePlan;
  readonly accessLogs: LogGroup;
  /** The custom domain, when one was given: its DNS record points at `domainNameAliasDomainName`. */
  readonly domain?: DomainName;
  /** Root URL of the deployed API (`.../<stage>/api/v1`). */
  readonly url: string;
  /**
   * The API's base URL as clients reach it (the custom domain, or API Gateway's host and the
   * stage): `PUBLIC_URL` of the functions that name the service (lib/config.ts).
   */
  readonly publicUrl: string;
  private readonly integrations = new Map<IFunction, AwsIntegration>();

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', props.logs);
    this.accessLogs = accessLogs;
    this.api = new RestApi(this, 'Api', {
      restApiName: `sprint-ticketing-${props.stageName}`,
      description: 'Sprint Ticketing Service REST API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The authorizer names the organisation's API key; clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // API Gateway compresses every answer of 1 KiB or more (gzip or deflate) for a client whose
      // first choice is one of them; the functions answer text (lib/http/gateway-compression.ts).
      minCompressionSize: Size.bytes(MINIMUM_COMPRESSION_SIZE),
      // Access logging needs API Gateway's account-level CloudWatch role; kept if the stack goes.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
        loggingLevel: MethodLoggingLevel.ERROR,
        metricsEnabled: true,
        // Every method of the stage ('*/*'); checked before the authorizer runs, so junk tokens
        // and unauthenticated floods are shed before they cost an invocation.
        throttlingRateLimit: props.stageThrottle.rateLimit,
        throttlingBurstLimit: props.stageThrottle.burstLimit,
        // A receiver of another service's webhooks (no token, no usage plan): a throttle of its own,
        // with the stage's logging and metrics.
        methodOptions: Object.fromEntries(
          props.routes
            .filter((route) => route.receiver)
            .map((route) => [
              `${route.path}/${route.method}`,
              {
                loggingLevel: MethodLoggingLevel.ERROR,
                metricsEnabled: true,
                throttlingRateLimit: props.receiverThrottle.rateLimit,
                throttlingBurstLimit: props.receiverThrottle.burstLimit,
              },
            ]),
        ),
      },
    });

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions-COG4',
        reason: 'Callers are organisations with API tokens of this service (functions/authorizer.ts), not Cognito users',
      },
      {
        id: 'AwsSolutions-APIG2',
        reason: 'Every handler validates its input with zod (lib/schemas) and answers 422 {errors} in the contract shape',
      },
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason: "API Gateway's account-wide log role takes AWS's managed policy: it writes the logs of every API of the account",
      },
    );

    // No identity sources and no caching: either token header works (a REQUEST authorizer with
    // identity sources refuses a request lacking them before running), and a regenerated or
    // revoked token is refused on the very next request.
    const authorizer = new RequestAuthorizer(this, 'TokenAuthorizer', {
      authorizerName: `sprint-ticketing-${props.stageName}-token`,
      handler: props.authorizer,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK writes the empty list as IdentitySource: ""; without caching the property is optional,
    // so it is left out rather than sent empty.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    const corsOrigins = props.corsOrigins ?? [];
    const preflighted = new Set<string>();
    for (const route of props.routes) {
      const resource = this.api.root.resourceForPath(route.path);
      const integration = this.integrationOf(props.functionFor(route.handler));
      // A preflight answered by API Gateway itself (a mock integration, no authorizer) on every
      // path a browser script calls with its token; the documentation is read without one.
      if (corsOrigins.length > 0 && route.auth && !preflighted.has(route.path)) {
        preflighted.add(route.path);
        const preflight = resource.addCorsPreflight({
          allowOrigins: corsOrigins,
          allowMethods: [...ALLOWED_METHODS],
          allowHeaders: [...ALLOWED_HEADERS],
          exposeHeaders: [...EXPOSED_HEADERS],
          maxAge: Duration.seconds(PREFLIGHT_MAX_AGE),
          statusCode: 204,
        });
        Validations.of(preflight).acknowledge(
          {
            id: 'AwsSolutions-APIG4',
            reason: 'A CORS preflight: browsers send it without credentials; API Gateway answers it (mock), nothing runs',
          },
          {
            id: 'AwsSolutions-COG4',
            reason: 'A CORS preflight: browsers send it without credentials; API Gateway answers it (mock), nothing runs',
          },
        );
      }
      const method = resource.addMethod(
        route.method,
        integration,
        route.auth
          ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true, operationName: route.operation.id }
          : { authorizationType: AuthorizationType.NONE, apiKeyRequired: false, operationName: route.operation.id },
      );
      if (!route.auth) {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: route.authServer
            ? 'A public route by design (the OAuth authorization server of /mcp: discovery, registration, approval with an API token, token exchange, revocation)'
            : route.receiver
              ? "A public route by design (receiver: true in lib/routes.ts: GitHub's webhook deliveries, which carry no token): its handler authenticates each delivery by its HMAC signature (X-Hub-Signature-256) with the repository's secret before it writes anything; throttled on its own"
              : 'A public route by design (auth: false in lib/routes.ts: the API documentation); its function has no table access',
        });
      }
    }

    const gatewayOrigin = gatewayResponseOrigin(corsOrigins);
    new MethodNotAllowed(this, 'MethodNotAllowed', { api: this.api, routes: props.routes, origin: gatewayOrigin });
    // The API's base URL as clients see it: the custom domain, or API Gateway's host and the stage.
    const baseUrl = props.domain
      ? `https://${props.domain.domainName}`
      : `https://${this.api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${props.stageName}`;
    this.publicUrl = baseUrl;
    for (const [type, response] of Object.entries(gatewayResponses)) {
      // The DEFAULT_* responses stand for every other 4XX/5XX: their status stays API Gateway's
      // and the message is its own, in the same `{error}` shape.
      const isDefault = type.startsWith('DEFAULT_');
      this.api.addGatewayResponse(`Response${type}`, {
        type: ResponseType.of(type),
        ...(isDefault ? {} : { statusCode: String(response.status) }),
        responseHeaders: {
          'Content-Type': "'application/json; charset=utf-8'",
          ...Object.fromEntries(Object.entries(NOSNIFF).map(([name, value]) => [name, `'${value}'`])),
          ...(response.status === 429 || response.status === 503 ? { 'Retry-After': "'1'" } : {}),
          // A refused token: where an MCP client learns how to get one (OAuth, docs/mcp.md).
          ...(type === 'UNAUTHORIZED' ? { 'WWW-Authenticate': `'${bearerChallenge(baseUrl)}'` } : {}),
          // A browser script reads these errors too (lib/http/cors.ts: `gatewayResponseOrigin`).
          ...(gatewayOrigin
            ? {
                'Access-Control-Allow-Origin': `'${gatewayOrigin}'`,
                'Access-Control-Expose-Headers': `'${EXPOSED_HEADERS.join(',')}'`,
              }
            : {}),
        },
        templates: {
          'application/json': isDefault ? '{"error":$context.error.messageString}' : JSON.stringify({ error: response.message }),
        },
      });
    }

    this.usagePlan = this.api.addUsagePlan('UsagePlan', {
      name: `sprint-ticketing-${props.stageName}-per-organisation`,
      description: 'Gateway throttle per organisation (API key org-<id>); the exact per-token limit lives in DynamoDB',
      throttle: props.organisationThrottle,
    });
    this.usagePlan.addApiStage({ stage: this.api.deploymentStage });

    if (props.domain) {
      this.domain = this.api.addDomainName('Domain', {
        domainName: props.domain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'Certificate', props.domain.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      });
    }
    this.url = props.domain ? `https://${props.domain.domainName}/api/v1` : `${this.api.url}api/v1`;
  }

  /**
   * The proxy integration of a route function, and its one permission: API Gateway may invoke it
   * through this API only (its methods are those of the route table). One per method would cost a
   * CloudFormation resource per row. The permission is the function's own resource, in the
   * function's stack (a route function's nested stack), named there with this API's id.
   */
  private integrationOf(fn: IFunction): AwsIntegration {
    const known = this.integrations.get(fn);
    if (known) return known;
    const integration = new AwsIntegration({
      proxy: true,
      service: 'lambda',
      path: `2015-03-31/functions/${fn.functionArn}/invocations`,
    });
    fn.addPermission('ApiGatewayInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: this.api.arnForExecuteApi(),
    });
    this.integrations.set(fn, integration);
    return integration;
  }
}

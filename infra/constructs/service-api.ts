import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  type CfnAuthorizer,
  EndpointType,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gatewayResponses } from '../../lib/http/gateway-responses.ts';
import type { Route } from '../../lib/routes.ts';

export interface ServiceApiProps {
  routes: Route[];
  /** The function serving each handler module of `routes`. */
  functionFor: (handlerModule: string) => IFunction;
  /** The REQUEST authorizer (functions/authorizer.ts). */
  authorizer: IFunction;
  /** Gateway throttle per organisation (its API key in the usage plan). */
  throttle: { rateLimit: number; burstLimit: number };
  stageName: string;
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
  /** Root URL of the deployed API (`.../<stage>/api/v1`). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.THREE_MONTHS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.api = new RestApi(this, 'Api', {
      restApiName: 'sprint-ticketing',
      description: 'Sprint Ticketing Service REST API',
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // The authorizer names the organisation's API key; clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Access logging needs API Gateway's account-level CloudWatch role; kept if the stack goes.
      cloudWatchRole: true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
        loggingLevel: MethodLoggingLevel.ERROR,
        metricsEnabled: true,
      },
    });

    // No identity sources and no caching: either token header works (a REQUEST authorizer with
    // identity sources refuses a request lacking them before running), and a regenerated or
    // revoked token is refused on the very next request.
    const authorizer = new RequestAuthorizer(this, 'TokenAuthorizer', {
      handler: props.authorizer,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK writes the empty list as IdentitySource: ""; without caching the property is optional,
    // so it is left out rather than sent empty.
    (authorizer.node.defaultChild as CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');

    for (const route of props.routes) {
      const resource = this.api.root.resourceForPath(route.path);
      // One API-scoped invoke permission per function instead of one per method keeps the stack
      // far below CloudFormation's resource limit as routes are added.
      const integration = new LambdaIntegration(props.functionFor(route.handler), { scopePermissionToMethod: false });
      resource.addMethod(
        route.method,
        integration,
        route.auth
          ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true, operationName: route.operation.id }
          : { authorizationType: AuthorizationType.NONE, apiKeyRequired: false, operationName: route.operation.id },
      );
    }

    for (const [type, response] of Object.entries(gatewayResponses)) {
      // The DEFAULT_* responses stand for every other 4XX/5XX: their status stays API Gateway's
      // and the message is its own, in the same `{error}` shape.
      const isDefault = type.startsWith('DEFAULT_');
      this.api.addGatewayResponse(`Response${type}`, {
        type: ResponseType.of(type),
        ...(isDefault ? {} : { statusCode: String(response.status) }),
        responseHeaders: {
          'Content-Type': "'application/json; charset=utf-8'",
          ...(response.status === 429 || response.status === 503 ? { 'Retry-After': "'1'" } : {}),
        },
        templates: {
          'application/json': isDefault ? '{"error":$context.error.messageString}' : JSON.stringify({ error: response.message }),
        },
      });
    }

    this.usagePlan = this.api.addUsagePlan('UsagePlan', {
      name: 'sprint-ticketing-per-organisation',
      description: 'Gateway throttle per organisation (API key org-<id>); the exact per-token limit lives in DynamoDB',
      throttle: props.throttle,
    });
    this.usagePlan.addApiStage({ stage: this.api.deploymentStage });
    this.url = `${this.api.url}api/v1`;
  }
}

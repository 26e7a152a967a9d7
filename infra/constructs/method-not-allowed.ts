import { Validations } from 'aws-cdk-lib';
import { AuthorizationType, MockIntegration, PassthroughBehavior, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { EXPOSED_HEADERS } from '../../lib/http/cors.ts';
import { gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { allowTable, methodNotAllowedMessage, type RouteShape } from '../../lib/http/method-not-allowed.ts';

export interface MethodNotAllowedProps {
  api: RestApi;
  routes: readonly RouteShape[];
  /** The origin API Gateway's own answers carry (lib/http/cors.ts: `gatewayResponseOrigin`). */
  origin?: string | undefined;
}

/**
 * The mapping template of the catch-all's answer: the request's path is tried against each route
 * template, most specific first; one that matches makes it 405 with that path's `Allow`, none 404
 * (the same `{error}` as API Gateway's own answer for a path it does not have).
 */
export function noRouteTemplate(routes: readonly RouteShape[]): string {
  const branches = allowTable(routes).map(
    ({ pattern, allow }, i) => `#${i === 0 ? 'if' : 'elseif'}($path.matches('${pattern}'))#set($allow = '${allow}')`,
  );
  return [
    `#set($path = "/$input.params('proxy')")`,
    "#set($allow = '')",
    ...branches,
    '#end',
    "#if($allow == '')",
    '#set($context.responseOverride.status = 404)',
    JSON.stringify({ error: gatewayResponses.MISSING_AUTHENTICATION_TOKEN.message }),
    '#else',
    '#set($context.responseOverride.status = 405)',
    '#set($context.responseOverride.header.Allow = $allow)',
    JSON.stringify({ error: methodNotAllowedMessage('$context.httpMethod', '$allow') }),
    '#end',
  ].join('\n');
}

/**
 * 405 with `Allow` for a method a path does not have. API Gateway resolves a request on the pair
 * of resource and method, and sends one that matches no method to a `{proxy+}` resource's `ANY`
 * (otherwise it answers 403 MISSING_AUTHENTICATION_TOKEN): one mock method there answers every
 * such request, instead of a method per resource and missing verb.
 */
export class MethodNotAllowed extends Construct {
  constructor(scope: Construct, id: string, props: MethodNotAllowedProps) {
    super(scope, id);
    const headers: Record<string, string> = {
      'method.response.header.Content-Type': "'application/json; charset=utf-8'",
      ...(props.origin
        ? {
            'method.response.header.Access-Control-Allow-Origin': `'${props.origin}'`,
            'method.response.header.Access-Control-Expose-Headers': `'${EXPOSED_HEADERS.join(',')}'`,
          }
        : {}),
    };
    const integration = new MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 200}' },
      passthroughBehavior: PassthroughBehavior.WHEN_NO_MATCH,
      integrationResponses: [
        {
          statusCode: '404',
          responseParameters: headers,
          responseTemplates: { 'application/json': noRouteTemplate(props.routes) },
        },
      ],
    });
    const declared = Object.fromEntries([...Object.keys(headers), 'method.response.header.Allow'].map((h) => [h, true]));
    const method = props.api.root.addResource('{proxy+}').addMethod('ANY', integration, {
      authorizationType: AuthorizationType.NONE,
      apiKeyRequired: false,
      methodResponses: ['404', '405'].map((statusCode) => ({ statusCode, responseParameters: declared })),
    });
    const reason = 'API Gateway answers it (mock) for a method or path the API does not have: 404 or 405, nothing runs';
    Validations.of(method).acknowledge({ id: 'AwsSolutions-APIG4', reason }, { id: 'AwsSolutions-COG4', reason });
  }
}

import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { OAUTH_REGISTRATIONS_PER_ADDRESS } from '../../lib/config.ts';
import { TOKEN_PREFIX } from '../../lib/model/tokens.ts';
import { gatewayResponses } from '../../lib/http/gateway-responses.ts';
import { NOSNIFF } from '../../lib/http/nosniff.ts';

export interface WebAclProps {
  /** Part of every name (the stage). */
  name: string;
  /** ARN of the API Gateway stage to protect. */
  stageArn: string;
  /** Requests per client IP per 5 minutes. */
  limits: { unauthenticatedPer5Min: number; perIpPer5Min: number };
  /**
   * The paths of the receivers of other services' webhooks (`receiver` rows of lib/routes.ts), left
   * out of the limit on requests without a token: they never carry one.
   */
  receiverPaths?: readonly string[];
}

const tooManyRequests = 'too-many-requests';
/** WAF's block, answered as the API's 429; a rate-based block lasts until the 5-minute rate drops. */
const rateLimited: CfnWebACL.RuleActionProperty = {
  block: {
    customResponse: {
      responseCode: 429,
      customResponseBodyKey: tooManyRequests,
      responseHeaders: [
        { name: 'Retry-After', value: '60' },
        ...Object.entries(NOSNIFF).map(([name, value]) => ({ name, value })),
      ],
    },
  },
};

/**
 * A well-formed API token (lib/model/tokens.ts) or OAuth access token (`stk_oat_`, lib/model/oauth.ts):
 * anything else fails authentication for sure. (An assistant's `/mcp` calls carry the latter: left
 * out, they would count against the tight limit of requests without a token.)
 */
const tokenShape = `${TOKEN_PREFIX}(oat_)?[A-Za-z0-9_-]{43}`;

/**
 * An AWS WAF web ACL in front of the API stage: AWS's managed common rule set, a per-IP rate limit
 * on OAuth client registrations, a tight per-IP rate limit on requests that carry no well-formed token (the authorizer would refuse them: junk, or
 * the unauthenticated documentation routes) and a looser per-IP limit on everything. WAF runs
 * before API Gateway, so what it blocks costs neither an authorizer invocation nor a DynamoDB call.
 * A receiver's deliveries (GitHub's) carry no token and come from the sender's few addresses, for
 * every repository at once: they count only towards the limit on everything, and their method's
 * own throttle bounds them (infra/stage.ts: RECEIVER_THROTTLE).
 */
export class WebAcl extends Construct {
  readonly acl: CfnWebACL;

  constructor(scope: Construct, id: string, props: WebAclProps) {
    super(scope, id);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName: `${props.name}-${metricName}`,
    });
    const header = (name: string, pattern: string): CfnWebACL.StatementProperty => ({
      regexMatchStatement: {
        fieldToMatch: { singleHeader: { Name: name } },
        regexString: pattern,
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    // A receiver's path, with or without the stage's prefix (API Gateway's own host): a literal one.
    const receivers: CfnWebACL.StatementProperty[] = (props.receiverPaths ?? []).map((path) => {
      if (path.includes('{')) throw new Error(`a receiver's path must be literal for WAF to match it: ${path}`);
      return {
        byteMatchStatement: {
          fieldToMatch: { uriPath: {} },
          positionalConstraint: 'ENDS_WITH',
          searchString: path.toLowerCase(),
          textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
        },
      };
    });
    const withoutToken: CfnWebACL.StatementProperty = {
      notStatement: {
        statement: {
          orStatement: {
            statements: [
              header('authorization', `^[Bb]earer\\s+${tokenShape}\\s*$`),
              header('x-api-token', `^\\s*${tokenShape}\\s*$`),
            ],
          },
        },
      },
    };
    const notToReceivers: CfnWebACL.StatementProperty[] =
      receivers.length === 0
        ? []
        : [{ notStatement: { statement: receivers.length === 1 ? receivers[0]! : { orStatement: { statements: receivers } } } }];
    this.acl = new CfnWebACL(this, 'Acl', {
      name: props.name,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('web-acl'),
      // Rate-limited requests get the service's own 429 (lib/http/gateway-responses.ts), not WAF's 403.
      customResponseBodies: {
        [tooManyRequests]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ error: gatewayResponses.THROTTLED.message }),
        },
      },
      rules: [
        {
          name: 'aws-common-rule-set',
          priority: 0,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // The API takes JSON bodies up to 1 MiB (lib/http/stack.ts); the rule set blocks
              // bodies over 8 KB, so that one rule only counts.
              ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
            },
          },
          visibilityConfig: visibility('aws-common-rule-set'),
        },
        {
          // Anyone may register an OAuth client: a handful an hour per address is what people do
          // (lib/model/oauth.ts), the function counts the hour, and this cuts a flood short first.
          name: 'oauth-register-per-ip',
          priority: 1,
          action: rateLimited,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: OAUTH_REGISTRATIONS_PER_ADDRESS,
              evaluationWindowSec: 600,
              scopeDownStatement: {
                andStatement: {
                  statements: [
                    {
                      byteMatchStatement: {
                        fieldToMatch: { method: {} },
                        positionalConstraint: 'EXACTLY',
                        searchString: 'POST',
                        textTransformations: [{ priority: 0, type: 'NONE' }],
                      },
                    },
                    {
                      // With or without the stage's prefix (API Gateway's own host).
                      byteMatchStatement: {
                        fieldToMatch: { uriPath: {} },
                        positionalConstraint: 'ENDS_WITH',
                        searchString: '/oauth/register',
                        textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
                      },
                    },
                  ],
                },
              },
            },
          },
          visibilityConfig: visibility('oauth-register-per-ip'),
        },
        {
          name: 'unauthenticated-per-ip',
          priority: 2,
          action: rateLimited,
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.limits.unauthenticatedPer5Min,
              evaluationWindowSec: 300,
              // Requests with no well-formed token, but for a receiver's deliveries.
              scopeDownStatement:
                notToReceivers.length === 0 ? withoutToken : { andStatement: { statements: [withoutToken, ...notToReceivers] } },
            },
          },
          visibilityConfig: visibility('unauthenticated-per-ip'),
        },
        {
          name: 'all-per-ip',
          priority: 3,
          action: rateLimited,
          statement: {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: props.limits.perIpPer5Min, evaluationWindowSec: 300 },
          },
          visibilityConfig: visibility('all-per-ip'),
        },
      ],
    });
    new CfnWebACLAssociation(this, 'Association', { resourceArn: props.stageArn, webAclArn: this.acl.attrArn });
  }
}

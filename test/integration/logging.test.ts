import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler as authorizer } from '../../functions/authorizer.ts';
import { handler as cascade } from '../../functions/cascade.ts';
import { logger } from '../../lib/http/logger.ts';
import { lambdaContext } from '../../tools/local/gateway.ts';

afterEach(() => vi.restoreAllMocks());

/** What `logger` carries while a handler runs: the Lambda context and keys it was given. */
function recordLoggerContext() {
  const contexts: string[] = [];
  const keys: Record<string, unknown>[] = [];
  vi.spyOn(logger, 'addContext').mockImplementation((context) => void contexts.push(context.awsRequestId));
  const append = logger.appendKeys.bind(logger);
  vi.spyOn(logger, 'appendKeys').mockImplementation((attributes) => {
    keys.push(attributes);
    append(attributes);
  });
  return { contexts, keys };
}

describe('logging on every function', () => {
  it('gives the authorizer the Lambda context and the route, as the routes have', async () => {
    const seen = recordLoggerContext();
    const event = {
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:local:0:api/v1/GET/api/v1/me',
      resource: '/api/v1/me',
      httpMethod: 'GET',
      headers: { Authorization: 'Bearer stk_not-a-real-token' },
      requestContext: { requestId: 'api-request-1' },
    } as unknown as APIGatewayRequestAuthorizerEvent;
    await expect(authorizer(event, lambdaContext('authorizer', '00000000-0000-4000-8000-000000000001'))).rejects.toThrow(
      'Unauthorized',
    );
    expect(seen.contexts).toEqual(['00000000-0000-4000-8000-000000000001']);
    expect(seen.keys).toContainEqual({ route: 'GET /api/v1/me', apiRequestId: 'api-request-1' });
  });

  it('gives the stream consumer the Lambda context', async () => {
    const seen = recordLoggerContext();
    await cascade({ Records: [] }, lambdaContext('cascade', '00000000-0000-4000-8000-000000000002'));
    expect(seen.contexts).toEqual(['00000000-0000-4000-8000-000000000002']);
  });
});

import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorResponse, json } from '../../lib/http/errors.ts';
import { logger } from '../../lib/http/logger.ts';
import { unknownQueryAnswer } from '../../lib/http/strict-query.ts';
import { MAX_DELIVERY_BYTES, receiveDelivery } from '../../lib/services/github-receiver.ts';

const header = (event: APIGatewayProxyEvent, name: string) =>
  Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1] ?? undefined;

/**
 * GitHub's deliveries (docs/github.md): public, no token; each is authenticated by its signature
 * (lib/services/github-receiver.ts) before anything is written, and answered at once: the work
 * follows on the table's stream (functions/github-events.ts).
 */
async function receive(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const unknown = unknownQueryAnswer(event);
  if (unknown) return unknown;
  try {
    const raw = event.body ?? '';
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
    if (body.length > MAX_DELIVERY_BYTES) return json(413, { error: 'A delivery is at most 25 MB (GitHub’s own cap)' });
    if (!/^application\/json\s*(;|$)/i.test(header(event, 'content-type') ?? '')) {
      return json(415, { error: 'Content-Type must be application/json (choose it in GitHub’s webhook settings)' });
    }
    const status = await receiveDelivery({
      event: header(event, 'x-github-event'),
      id: header(event, 'x-github-delivery'),
      signature: header(event, 'x-hub-signature-256'),
      body,
    });
    return json(202, { status });
  } catch (err) {
    return errorResponse(err);
  }
}

export const handler = middy(receive).use(injectLambdaContext(logger, { resetKeys: true }));

import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { RateDecision } from '../../model/ratelimit.ts';

/** The event as the stack's steps see it: the JSON body parser replaces `body` with what it parsed. */
export type StackEvent = APIGatewayProxyEvent & { body: unknown };

/** What the steps keep for each other during one invocation. */
export interface StackInternal extends Record<string, unknown> {
  /** The authorizer's rate-limit decision: its headers go on every response, errors included. */
  rate?: RateDecision;
  startedAt?: number;
}

/** One named step of the stack (lib/http/stack.ts). */
export type StackMiddleware = MiddlewareObj<StackEvent, APIGatewayProxyResult, Error, Context, StackInternal>;

/** What a step is handed: the event, the response so far, and the internal state. */
export interface StackRequest {
  event: StackEvent;
  response: APIGatewayProxyResult | null | undefined;
  internal: StackInternal;
}

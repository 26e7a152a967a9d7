import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  BadRequestError,
  DomainError,
  IssueElsewhereError,
  PreconditionFailedError,
  RateLimitedError,
  RequestInProgressError,
  RevertConflictError,
  SprintBusyError,
  TrashBusyError,
  UnavailableError,
  ValidationError,
} from '../vocabulary/errors.ts';
import { ConfigurationError } from '../config.ts';
import { isRetryableDbError } from '../db/core/errors.ts';
import { PRECONDITION } from '../db/core/versions.ts';
import { logger } from './logger.ts';
import { NOSNIFF } from './nosniff.ts';

const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', ...NOSNIFF };

/** middy's HttpError from its body parser: a client error whose text we replace with our own. */
interface MiddyHttpError {
  statusCode?: number;
  expose?: boolean;
  message: string;
  cause?: { package?: string };
}

/**
 * THE error mapper: typed domain errors to status and error body shape. 422 validation is
 * `{errors:[...]}`; everything else `{error}`. Unknown errors are logged once here and answered as
 * 500 without internals.
 */
export function errorResponse(err: unknown): APIGatewayProxyResult {
  const problem = misconfiguration(err);
  if (problem) {
    logger.error('misconfigured', err as Error);
    return json(500, { error: problem });
  }
  const mapped = toDomainError(err);
  if (!mapped) {
    logger.error('unhandled error', err as Error);
    return json(500, { error: 'Internal server error' });
  }
  const headers: Record<string, string> = {};
  if (
    mapped instanceof RateLimitedError ||
    mapped instanceof UnavailableError ||
    mapped instanceof RequestInProgressError ||
    mapped instanceof SprintBusyError ||
    mapped instanceof TrashBusyError
  ) {
    headers['Retry-After'] = String(mapped.retryAfterSeconds);
  }
  if (mapped instanceof ValidationError) return json(422, { errors: mapped.errors }, headers);
  if (mapped instanceof IssueElsewhereError) {
    return json(404, { error: mapped.message, issue_key: mapped.issueKey, location: mapped.location }, headers);
  }
  if (mapped instanceof RevertConflictError) return json(409, { error: mapped.message, changed: mapped.changed }, headers);
  return json(mapped.status, { error: mapped.message }, headers);
}

/**
 * What is missing when the service cannot run as configured (a setting, credentials, a region),
 * said plainly: such a failure is never "busy", since no retry can succeed. Undefined for any
 * other error.
 */
export function misconfiguration(err: unknown): string | undefined {
  const e = err as Error | undefined;
  if (e instanceof ConfigurationError) return `The service is misconfigured: ${e.message}`;
  if (e?.name === 'CredentialsProviderError') {
    return 'The service is misconfigured: no AWS credentials for DynamoDB (locally, set DYNAMODB_ENDPOINT to a DynamoDB Local)';
  }
  if (e instanceof Error && /^Region is missing/.test(e.message)) {
    return 'The service is misconfigured: no AWS region for DynamoDB (set AWS_REGION, or DYNAMODB_ENDPOINT for a DynamoDB Local)';
  }
  return undefined;
}

function toDomainError(err: unknown): DomainError | undefined {
  if (err instanceof DomainError) return err;
  // The one refusal every write shares: its resource is not at a version the request expects.
  // (Matched by its reason, so that this module stays free of the data layer's client.)
  if (err instanceof Error && (err as { reason?: unknown }).reason === PRECONDITION) return new PreconditionFailedError();
  if (isRetryableDbError(err)) return new UnavailableError();
  const http = err as MiddyHttpError;
  if (http && typeof http.statusCode === 'number' && http.cause?.package === '@middy/http-json-body-parser') {
    return new BadRequestError(400, 'Request body is not valid JSON');
  }
  return undefined;
}

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyResult, Context } from 'aws-lambda';
import { isRetryableDbError } from '../db/core/errors.ts';
import { holdInProgress, idempotencyStore, type IdempotencyRecordKey } from '../db/organisation/idempotency.ts';
import type { JSONValue } from '@aws-lambda-powertools/commons/types';
import {
  BadRequestError,
  NotRecordedError,
  RequestInProgressError,
  UnavailableError,
  ValidationError,
} from '../vocabulary/errors.ts';
import { logger } from './logger.ts';

/** The request header (lower case: the header normalizer runs first). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key is remembered: 24 hours, as Stripe does. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** Added to a replayed response, so that clients (and logs) can tell a replay from a first answer. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** 1 to 255 visible ASCII characters (a UUID fits; Stripe's limit). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The JMESPath expressions of the records: field paths only, which is all that the bundles' JMESPath
 * evaluates (infra/shims/jmespath-paths.ts).
 */
export const jmesPaths = {
  eventKey:
    '[requestContext.authorizer.orgId, requestContext.authorizer.accountId, httpMethod, resource, pathParameters, headers."idempotency-key"]',
  payload: 'body',
} as const;

/**
 * A key is scoped to the calling account and to the request's route and path: two accounts, or
 * one account on two paths, never share a record. What must match on reuse is the JSON body, on
 * routes that take one (a body-less route ignores any body, so there is nothing to compare).
 */
function configFor(takesBody: boolean) {
  return new IdempotencyConfig({
    eventKeyJmesPath: jmesPaths.eventKey,
    ...(takesBody ? { payloadValidationJmesPath: jmesPaths.payload } : {}),
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
    hashFunction: 'sha256',
    responseHook: (response) => {
      const stored = response as unknown as APIGatewayProxyResult;
      return { ...stored, headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' } };
    },
  });
}

const KEY_PREFIX = 'api';

/** The table key of the record a request maps to (operations and tests: find or expire a record). */
export function idempotencyRecordKey(event: JSONValue): IdempotencyRecordKey {
  const store = idempotencyStore();
  store.configure({ config: configFor(false), keyPrefix: KEY_PREFIX });
  return store.recordKey(event);
}

const OWNED = 'idempotency.owned';

type AnyRequest = Request<unknown, unknown, Error, Context, Record<string, unknown>>;

interface IdempotencyOptions {
  /** The route takes a JSON body: reusing a key with another body is refused. */
  takesBody: boolean;
  /** Called with a replayed response before it is returned (the stack's `after` steps do not run on an early return). */
  onReplay: (request: AnyRequest) => void;
}

/**
 * `Idempotency-Key` on POST requests, Stripe's semantics, with Powertools' middy middleware and its
 * DynamoDB persistence layer: the first successful response is stored for 24 h and replayed (status,
 * body and headers, plus `Idempotent-Replayed: true`) for the same key and body, without running the
 * handler again; the same key with another body is 422 `{errors}`; while the first request still
 * runs, 409 `{error}` with Retry-After. Failed requests are not stored: a retry runs again.
 *
 * The record is only completed or released by the request that acquired it. Powertools 2.35's
 * middleware would also delete it from `onError` when its own `before` refused a duplicate or a
 * mismatched body (aws-powertools/powertools-lambda-typescript#5675), letting a third request run.
 */
export function idempotency(
  options: IdempotencyOptions,
): MiddlewareObj<unknown, unknown, Error, Context, Record<string, unknown>> {
  // Built by the first request that carries a key: its store holds the table's name and client,
  // which come from the configuration of the first call (lib/config.ts), not of the module's load.
  let powertools: ReturnType<typeof makeHandlerIdempotent> | undefined;
  const middleware = () =>
    (powertools ??= makeHandlerIdempotent({
      persistenceStore: idempotencyStore(),
      config: configFor(options.takesBody),
      keyPrefix: KEY_PREFIX,
    }));
  const before = (request: AnyRequest) => (middleware().before as (request: AnyRequest) => Promise<unknown>)(request);
  const after = (request: AnyRequest) => (middleware().after as (request: AnyRequest) => Promise<void>)(request);
  const onError = (request: AnyRequest) => (middleware().onError as (request: AnyRequest) => Promise<void>)(request);

  return {
    before: async (request) => {
      request.internal[OWNED] = false;
      if (!guarded(request.event)) return;
      let replay: unknown;
      try {
        replay = await before(request);
      } catch (err) {
        throw translate(err);
      }
      if (replay !== undefined) {
        request.response = replay;
        options.onReplay(request);
        return request.response;
      }
      request.internal[OWNED] = true;
    },
    after: async (request) => {
      if (request.internal[OWNED] !== true) return;
      request.internal[OWNED] = false;
      try {
        await after(request);
      } catch (err) {
        await notRecorded(request, err);
      }
    },
    onError: async (request) => {
      if (request.internal[OWNED] !== true) return;
      request.internal[OWNED] = false;
      try {
        await onError(request);
      } catch (err) {
        // The in-progress record then expires with the Lambda's remaining time.
        logger.error('idempotency record not released', err as Error);
      }
    },
  };
}

/**
 * Whether a request is one to guard: a POST carrying an `Idempotency-Key`, not a dry run (the bulk
 * routes' `?dry_run=true` writes nothing: nothing to guard, nothing kept to replay). A malformed key
 * is refused.
 */
function guarded(request: unknown): boolean {
  const event = request as {
    httpMethod?: string;
    headers?: Record<string, string | undefined>;
    queryStringParameters?: Record<string, string | undefined> | null;
  };
  const key = event.headers?.[IDEMPOTENCY_HEADER];
  if (event.httpMethod !== 'POST' || key === undefined) return false;
  if (event.queryStringParameters?.dry_run === 'true') return false;
  if (!KEY_PATTERN.test(key)) throw new BadRequestError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters');
  return true;
}

/**
 * A write done whose record could not be completed: it cannot be replayed. Never answered as a plain
 * success (a retry after the in-progress window would run it again): the record is held in progress
 * (a retry is then 409, not a second write) and the client is told what happened.
 */
async function notRecorded(request: AnyRequest, err: unknown): Promise<never> {
  logger.error('idempotency record not completed', err as Error);
  await holdInProgress(idempotencyRecordKey(request.event as JSONValue)).catch((held: unknown) =>
    logger.error('idempotency record not held in progress', held as Error),
  );
  throw new NotRecordedError();
}

/** Powertools' errors to the service's typed errors (status and error body shape). */
function translate(err: unknown): unknown {
  const name = (err as Error)?.name;
  if (name === 'IdempotencyValidationError') {
    return new ValidationError(['Idempotency-Key has already been used with a different request body']);
  }
  if (name === 'IdempotencyAlreadyInProgressError') return new RequestInProgressError();
  if (name === 'IdempotencyInconsistentStateError') return new UnavailableError();
  const cause = (err as { cause?: unknown })?.cause;
  if (isRetryableDbError(err) || isRetryableDbError(cause)) return new UnavailableError();
  return err;
}

/**
 * Typed errors thrown by the domain. `lib/http/errors.ts` maps them to statuses and the error
 * body shapes (docs/api.md: Errors) in exactly one place; the MCP server maps them to tool errors with the same messages.
 */
export abstract class DomainError extends Error {
  abstract readonly status: number;
}

/** 404 `{error}`: the thing does not exist, or belongs to another organisation. */
export class NotFoundError extends DomainError {
  override readonly name: string = 'NotFoundError';
  readonly status = 404;
  constructor(what: string, why?: string) {
    super(why ? `${what} not found: ${why}` : `${what} not found`);
  }
}

/**
 * 404 `{error, issue_key, location}`: a path names an issue of its project that lives in another
 * list now (another sprint, or the backlog); the answer says where to find it, by its key.
 */
export class IssueElsewhereError extends NotFoundError {
  override readonly name: string = 'IssueElsewhereError';
  readonly issueKey: string;
  readonly location: string;
  /** Its list now (null: the backlog), for a route by key that read a pointer just before the issue moved. */
  readonly sprintId: number | null;
  constructor(issueKey: string, sprintId: number | null) {
    const location = `/api/v1/issues/${issueKey}`;
    super('Issue', `it is ${issueKey}, now ${sprintId === null ? 'in the backlog' : `in sprint ${sprintId}`}: ${location}`);
    this.issueKey = issueKey;
    this.location = location;
    this.sprintId = sprintId;
  }
}

/** 422 `{errors:[...]}`: input that fails validation; each message names its field. */
export class ValidationError extends DomainError {
  override readonly name: string = 'ValidationError';
  readonly status = 422;
  readonly errors: string[];
  constructor(errors: string[]) {
    super(errors.join('; '));
    this.errors = errors;
  }
}

/** 422 `{error}`: a state transition that is not allowed (e.g. activating an active sprint). */
export class TransitionError extends DomainError {
  override readonly name: string = 'TransitionError';
  readonly status = 422;
}

/**
 * 412 `{error}`: the request named the versions it expects (`If-Match`, an MCP tool's
 * `expected_version`) and the resource is at none of them, or is gone. Nothing was written.
 */
export class PreconditionFailedError extends DomainError {
  override readonly name: string = 'PreconditionFailedError';
  readonly status = 412;
  constructor(message = 'The resource has changed since the ETag given in If-Match (or the expected version); read it again') {
    super(message);
  }
}

/** 403 `{error}`: authenticated, but not allowed to do this. */
export class ForbiddenError extends DomainError {
  override readonly name: string = 'ForbiddenError';
  readonly status = 403;
}

/** 401 `{error}`: missing, invalid or revoked token. */
export class UnauthorizedError extends DomainError {
  override readonly name: string = 'UnauthorizedError';
  readonly status = 401;
}

/** 409-class conflicts surfaced as 422 `{errors}` (e.g. a prefix already taken), answered like validation failures (docs/api.md: Errors). */
export class ConflictError extends ValidationError {
  override readonly name: string = 'ConflictError';
}

/** 429 `{error}` with Retry-After. */
export class RateLimitedError extends DomainError {
  override readonly name: string = 'RateLimitedError';
  readonly status = 429;
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, message = 'Rate limit exceeded: 600 requests per minute per token') {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 503 `{error}` with Retry-After: DynamoDB refused for now (throttling, contention). Nothing was applied. */
export class UnavailableError extends DomainError {
  override readonly name: string = 'UnavailableError';
  readonly status = 503;
  readonly retryAfterSeconds: number;
  constructor(message = 'The service is busy, please retry', retryAfterSeconds = 1) {
    super(message);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** 409 `{error}`: another account of the organisation has the handle (lib/model/handles.ts). */
export class HandleTakenError extends DomainError {
  override readonly name: string = 'HandleTakenError';
  readonly status = 409;
  constructor(handle: string) {
    super(`handle "${handle}" is already taken by another account of the organisation`);
  }
}

/**
 * 409 `{error}` with Retry-After: a request with the same Idempotency-Key is still being processed.
 * Retrying after it finishes replays its response.
 */
export class RequestInProgressError extends DomainError {
  override readonly name: string = 'RequestInProgressError';
  readonly status = 409;
  readonly retryAfterSeconds = 1;
  constructor() {
    super('A request with this Idempotency-Key is still being processed; retry shortly');
  }
}

/**
 * 409 `{error}` with Retry-After: a trashed sprint or project whose issues are still being moved
 * into the trash (docs/trash.md); it can be restored or purged once that ends, in seconds.
 */
export class TrashBusyError extends DomainError {
  override readonly name: string = 'TrashBusyError';
  readonly status = 409;
  readonly retryAfterSeconds = 2;
}

/**
 * 409 `{error}`: the sprint is being completed (or is receiving the open issues of a sprint being
 * completed); its issues are frozen until that ends. Completing it again finishes it.
 */
export class SprintBusyError extends DomainError {
  override readonly name: string = 'SprintBusyError';
  readonly status = 409;
  readonly retryAfterSeconds = 1;
  constructor(message = 'The sprint is being completed; its issues change again once it is completed') {
    super(message);
  }
}

/**
 * 409 `{error, changed}`: a revert whose entry's fields were changed again since: each such field
 * with its value now (docs/activity.md). Nothing was written.
 */
export class RevertConflictError extends DomainError {
  override readonly name: string = 'RevertConflictError';
  readonly status = 409;
  readonly changed: { field: string; value: unknown }[];
  constructor(changed: { field: string; value: unknown }[]) {
    super(`Changed since this entry: ${[...new Set(changed.map((c) => c.field))].join(', ')}; nothing was reverted`);
    this.changed = changed;
  }
}

/**
 * 500 `{error}`: the request was applied, but its Idempotency-Key record could not be saved, so a
 * replay cannot be promised. Said plainly rather than answered as a success that a retry with the
 * same key could repeat.
 */
export class NotRecordedError extends DomainError {
  override readonly name: string = 'NotRecordedError';
  readonly status = 500;
  constructor() {
    super('The request was applied, but its Idempotency-Key record could not be saved: check the result before sending it again');
  }
}

/** 400/413/415 `{error}`: the request itself is unusable (malformed JSON, too large, wrong media type). */
export class BadRequestError extends DomainError {
  override readonly name: string = 'BadRequestError';
  readonly status: 400 | 413 | 415;
  constructor(status: 400 | 413 | 415, message: string) {
    super(message);
    this.status = status;
  }
}

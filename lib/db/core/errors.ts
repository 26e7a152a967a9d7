const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'InternalServerError',
  'ServiceUnavailable',
  // A single-item write refused because a transaction was in progress on the item: nothing applied.
  'TransactionConflictException',
]);

/** Cancellation reasons that mean "try again", not "your condition failed". */
const RETRYABLE_REASONS = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

interface AwsError {
  name?: string;
  CancellationReasons?: { Code?: string; Item?: unknown }[];
}

/** True when DynamoDB refused for load or contention: the caller may retry; nothing was applied. */
export function isRetryableDbError(err: unknown): boolean {
  const e = err as AwsError;
  if (!e || typeof e !== 'object') return false;
  if (e.name && THROTTLING.has(e.name)) return true;
  if (e.name === 'TransactionInProgressException') return true;
  if (e.name === 'TransactionCanceledException') {
    return (e.CancellationReasons ?? []).some((r) => r.Code !== undefined && RETRYABLE_REASONS.has(r.Code));
  }
  return false;
}

/** The cancellation reason codes of a TransactionCanceledException, index-aligned with the items. */
export function cancellationCodes(err: unknown): (string | undefined)[] | undefined {
  const e = err as AwsError;
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((r) => (r.Code === 'None' ? undefined : r.Code));
}

/**
 * Whether the item at `index` of a cancelled transaction was there when its condition failed: its
 * write asked for it back (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), and DynamoDB returns
 * it only when it exists.
 */
export function cancelledItemWasThere(err: unknown, index: number): boolean {
  return (err as AwsError)?.CancellationReasons?.[index]?.Item !== undefined;
}

export function isConditionFailed(err: unknown): boolean {
  return (err as AwsError)?.name === 'ConditionalCheckFailedException';
}

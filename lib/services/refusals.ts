import type { RefusalReason } from '../db/core/refusals.ts';
import { Refused } from '../db/core/transactions.ts';
import { getTrashed } from '../db/core/trash.ts';

/**
 * What each reason of a refused write means to a client, for one kind of write. The data layer
 * names why a transaction was refused (`Refused.reason`, lib/db/core/transactions.ts); the domain alone
 * decides what that is: a 404, a 422, a 503. A record over the reasons of one kind of write
 * (`satisfies Meanings<CommentRefusal>`, lib/db/core/refusals.ts) must name each of them.
 */
export type Meanings<R extends RefusalReason = RefusalReason> = Record<R, () => Error>;

/** The domain error a refused write stands for; anything else (unknown reasons too) passes through. */
export function explainRefusal(err: unknown, meanings: Partial<Meanings>): unknown {
  if (err instanceof Refused) {
    const meaning = meanings[err.reason];
    if (meaning) return meaning();
  }
  return err;
}

/** Runs a data-layer write and throws what its refusal means. */
export async function refusedAs<T>(meanings: Partial<Meanings>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw explainRefusal(err, meanings);
  }
}

/**
 * Why project `projectId`, which something coming back from the trash needs, is not there, as its
 * 422 says it: in the trash (restore it first), or gone for good. One read of its trash item.
 */
export async function projectNotThere(orgId: number, projectId: number): Promise<string> {
  return (await getTrashed(orgId, 'project', projectId))
    ? `its project ${projectId} is in the trash (restore the project first)`
    : `its project ${projectId} no longer exists`;
}

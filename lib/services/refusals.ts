import { Refused } from '../db/transactions.ts';

/**
 * What each reason of a refused write means to a client, for one kind of write. The data layer
 * names why a transaction was refused (`Refused.reason`, lib/db/transactions.ts); the domain alone
 * decides what that is: a 404, a 422, a 503.
 */
export type Meanings = Record<string, () => Error>;

/** The domain error a refused write stands for; anything else (unknown reasons too) passes through. */
export function explainRefusal(err: unknown, meanings: Meanings): unknown {
  if (err instanceof Refused) {
    const meaning = meanings[err.reason];
    if (meaning) return meaning();
  }
  return err;
}

/** Runs a data-layer write and throws what its refusal means. */
export async function refusedAs<T>(meanings: Meanings, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    throw explainRefusal(err, meanings);
  }
}

/**
 * An account's handle, the name an @mention uses (`@ana`): 1 to 39 characters of `a-z` and `0-9`,
 * with `-`, `_` and `.` allowed inside (never first or last). It is stored lower-case and is unique
 * in its organisation in any case, so `Ana` and `ana` are one handle. Pure: the uniqueness guard is
 * lib/db/organisation/accounts.ts.
 */
import { handleRule as handleWords } from '../schemas/accounts.ts';
import { limits } from '../schemas/common.ts';

/** The longest handle (GitHub's length for a login). */
export const maxHandleLength = limits.handle;

/** A handle as stored: lower-case, letters and digits at both ends, `-`, `_` and `.` only inside. */
export const handlePattern = new RegExp(`^[a-z0-9](?:[a-z0-9._-]{0,${maxHandleLength - 2}}[a-z0-9])?$`);

/** The rule in words, for the message that refuses a handle. */
export const handleRule = `must be ${handleWords}`;

/** The handle as stored and compared: lower-case. */
export const normaliseHandle = (s: string): string => s.toLowerCase();

/** Whether `s` is a handle in any case (`Ana` is, as `ana`). */
export const isHandle = (s: string): boolean => handlePattern.test(normaliseHandle(s));

import * as z from 'zod';
import { dateTime, limits, nameField, wrapped } from './common.ts';

export const Role = z.enum(['admin', 'member'], { error: 'must be one of: admin, member' }).meta({ id: 'Role' });
export type Role = z.infer<typeof Role>;

export const emailField = () =>
  z
    .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .max(limits.email, { error: `is too long (maximum is ${limits.email} characters)` })
    .pipe(z.email({ error: 'must be an e-mail address' }))
    .transform((v) => v.toLowerCase())
    // The pipe hides the check from the document: stated as the pattern it applies (spaces around trimmed).
    .meta({ format: 'email', pattern: `^\\s*(?:${z.regexes.email.source.replace(/^\^|\$$/g, '')})\\s*$`, minLength: 6 });

export const AccountCreateFields = z
  .object(
    { name: nameField(), email: emailField(), role: Role.default('member') },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  )
  .meta({ id: 'AccountCreate' });
export type AccountCreate = z.output<typeof AccountCreateFields>;

export const Account = z
  .object({ id: z.number().int(), name: z.string(), email: z.string(), role: Role, created_at: dateTime() })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof Account>;

export const AccountCreateBody = wrapped('account', AccountCreateFields, Account);

export const Organisation = z
  .object({ id: z.number().int(), name: z.string(), created_at: dateTime() })
  .meta({ id: 'Organisation' });
export type Organisation = z.infer<typeof Organisation>;

export const Me = z.object({ account: Account, organisation: Organisation }).meta({ id: 'Me' });
export const TokenBody = z
  .object({ token: z.string().meta({ description: 'Shown once; store it safely.', example: 'stk_...' }) })
  .meta({ id: 'Token' });
export const AccountWithToken = z.object({ account: Account, token: z.string() }).meta({ id: 'AccountWithToken' });

import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, limits, nameField, wrapped } from './common.ts';

export const Role = meta(z.enum(['admin', 'member'], { error: 'must be one of: admin, member' }), { id: 'Role' });
export type Role = z.infer<typeof Role>;

export const emailField = () =>
  meta(
    z.pipe(
      z.pipe(
        z
          .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
          .check(z.trim())
          .check(z.maxLength(limits.email, { error: `is too long (maximum is ${limits.email} characters)` })),
        z.email({ error: 'must be an e-mail address' }),
      ),
      z.transform((v) => v.toLowerCase()),
    ),
    { format: 'email', pattern: `^\\s*(?:${z.regexes.email.source.replace(/^\^|\$$/g, '')})\\s*$`, minLength: 6 },
  );

export const AccountCreateFields = meta(
  z.object(
    { name: nameField(), email: emailField(), role: z._default(Role, 'member') },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  ),
  { id: 'AccountCreate' },
);
export type AccountCreate = z.output<typeof AccountCreateFields>;

export const Account = meta(
  z.object({ id: z.number().check(z.int()), name: z.string(), email: z.string(), role: Role, created_at: dateTime() }),
  { id: 'Account' },
);
export type Account = z.infer<typeof Account>;

export const AccountCreateBody = wrapped('account', AccountCreateFields, Account);

export const Organisation = meta(z.object({ id: z.number().check(z.int()), name: z.string(), created_at: dateTime() }), {
  id: 'Organisation',
});
export type Organisation = z.infer<typeof Organisation>;

export const Me = meta(z.object({ account: Account, organisation: Organisation }), { id: 'Me' });
export const TokenBody = meta(
  z.object({ token: meta(z.string(), { description: 'Shown once; store it safely.', example: 'stk_...' }) }),
  { id: 'Token' },
);
export const AccountWithToken = meta(z.object({ account: Account, token: z.string() }), { id: 'AccountWithToken' });

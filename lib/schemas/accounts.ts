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

/** The rule of a handle in words (lib/model/handles.ts holds it as a pattern): the field's description and its 422. */
export const handleRule = `1 to ${limits.handle} letters (a-z) or digits, with "-", "_" or "." allowed inside (not first, not last)`;

export const Account = meta(
  z.object({
    id: z.number().check(z.int()),
    name: z.string(),
    email: z.string(),
    handle: meta(z.nullable(z.string()), {
      description: 'The name an @mention uses (`@ana`), lower-case and unique in the organisation; null until one is set.',
      example: 'ana',
    }),
    role: Role,
    created_at: dateTime(),
  }),
  { id: 'Account' },
);
export type Account = z.infer<typeof Account>;

export const AccountCreateBody = wrapped('account', AccountCreateFields, Account);

/** What the caller may change of its own account (`PATCH /me`): its handle. */
export const AccountUpdateFields = meta(
  z.object(
    {
      handle: meta(
        z.optional(
          z.nullable(z.string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string or null') })),
        ),
        {
          description: `${handleRule}; stored lower-case and unique in the organisation in any case (\`Ana\` and \`ana\` are one handle). null clears it.`,
          minLength: 1,
          maxLength: limits.handle,
          example: 'ana',
        },
      ),
    },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  ),
  { id: 'AccountUpdate' },
);
export type AccountUpdate = z.output<typeof AccountUpdateFields>;
export const AccountUpdateBody = wrapped('account', AccountUpdateFields, Account);

export const Organisation = meta(z.object({ id: z.number().check(z.int()), name: z.string(), created_at: dateTime() }), {
  id: 'Organisation',
});
export type Organisation = z.infer<typeof Organisation>;

export const Me = meta(
  z.object({
    account: Account,
    organisation: Organisation,
    unread_notifications: meta(z.number().check(z.int()), {
      description: "How many of the caller's notifications are unread (`GET /me/notifications?unread=true`).",
    }),
  }),
  { id: 'Me' },
);
export type Me = z.infer<typeof Me>;
export const TokenBody = meta(
  z.object({ token: meta(z.string(), { description: 'Shown once; store it safely.', example: 'stk_...' }) }),
  { id: 'Token' },
);
export const AccountWithToken = meta(z.object({ account: Account, token: z.string() }), { id: 'AccountWithToken' });

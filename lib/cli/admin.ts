/**
 * `npm run admin -- <command> [--flags]`: organisations, accounts and tokens on any table.
 * stdout carries exactly one JSON document; messages go to stderr; bad arguments exit 2.
 *
 * Target: DYNAMODB_ENDPOINT if set; else AWS (default credential chain) when AWS_REGION or
 * AWS_DEFAULT_REGION is set; else the local DynamoDB of `npm start` (localhost:DYNAMODB_PORT).
 * TABLE_NAME selects the table (default sprint-ticketing).
 */
import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run -s admin -- <command> [options]

Commands:
  org:create --name NAME --admin-name NAME --admin-email EMAIL
  account:create --org ID --name NAME --email EMAIL --role admin|member
  token:regenerate --org ID --account ID
  token:revoke --org ID --account ID

Environment: DYNAMODB_ENDPOINT, TABLE_NAME, AWS_REGION (and AWS credentials) — see README.`;

class UsageError extends Error {}

const commands: Record<string, string[]> = {
  'org:create': ['name', 'admin-name', 'admin-email'],
  'account:create': ['org', 'name', 'email', 'role'],
  'token:regenerate': ['org', 'account'],
  'token:revoke': ['org', 'account'],
};

function parse(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') throw new UsageError('a command is required');
  const required = commands[command];
  if (!required) throw new UsageError(`unknown command "${command}"`);
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(required.map((name) => [name, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Record<string, string | undefined>;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  for (const name of required) {
    if (values[name] === undefined || values[name]?.trim() === '') throw new UsageError(`--${name} is required for ${command}`);
  }
  return { command, values: values as Record<string, string> };
}

function positiveInt(value: string, flag: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new UsageError(`--${flag} must be a positive integer`);
  return Number(value);
}

async function main() {
  const { command, values } = parse(process.argv.slice(2));
  const explicit = process.env.DYNAMODB_ENDPOINT;
  const useAws = !explicit && Boolean(process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION);
  if (!explicit && !useAws) process.env.DYNAMODB_ENDPOINT = `http://localhost:${process.env.DYNAMODB_PORT ?? 8000}`;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME ?? 'sprint-ticketing';
  if (endpoint) {
    const { ensureTable } = await import('../local/table.ts');
    await ensureTable(endpoint, tableName).catch((err: Error) => {
      throw new Error(`cannot reach DynamoDB at ${endpoint} (${err.message}); is \`npm start\` running?`);
    });
  }
  const { Role, emailField } = await import('../schemas/accounts.ts');
  const { nameField } = await import('../schemas/common.ts');
  const domain = await import('../domain/accounts.ts');
  const check = <T>(schema: { safeParse(v: unknown): { success: boolean; data?: T } }, value: string, flag: string): T => {
    const r = schema.safeParse(value);
    if (!r.success) throw new UsageError(`--${flag} is not valid`);
    return r.data as T;
  };
  switch (command) {
    case 'org:create':
      return domain.createOrganisation(check(nameField(), values.name!, 'name'), {
        name: check(nameField(), values['admin-name']!, 'admin-name'),
        email: check(emailField(), values['admin-email']!, 'admin-email'),
      });
    case 'account:create':
      return domain.createAccountInOrg(positiveInt(values.org!, 'org'), {
        name: check(nameField(), values.name!, 'name'),
        email: check(emailField(), values.email!, 'email'),
        role: check(Role, values.role!, 'role'),
      });
    case 'token:regenerate':
      return { token: await domain.regenerateToken(positiveInt(values.org!, 'org'), positiveInt(values.account!, 'account')) };
    case 'token:revoke':
      await domain.revokeToken(positiveInt(values.org!, 'org'), positiveInt(values.account!, 'account'));
      return { revoked: true };
  }
  throw new UsageError(`unknown command "${command}"`);
}

try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  if (err instanceof UsageError) {
    process.stderr.write(`admin: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  const e = err as Error & { errors?: string[] };
  process.stderr.write(`admin: ${e.errors ? e.errors.join('; ') : e.message}\n`);
  process.exit(1);
}

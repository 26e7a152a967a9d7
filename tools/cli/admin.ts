/**
 * `npm run admin -- <command> [--flags]`: organisations, accounts and tokens on any table.
 * stdout carries exactly one JSON document; messages go to stderr; bad arguments exit 2.
 *
 * Target: DYNAMODB_ENDPOINT if set; else AWS (default credential chain) when AWS_REGION or
 * AWS_DEFAULT_REGION is set; else the local DynamoDB of `npm start` (127.0.0.1:DYNAMODB_PORT).
 * TABLE_NAME selects the table (default sprint-ticketing). The attachments' files (`export` and
 * `import` with `--files`): S3_ENDPOINT if set; else the bucket ATTACHMENTS_BUCKET on AWS, or the
 * local S3-compatible server of `npm start` (127.0.0.1:S3_PORT). On AWS, USAGE_PLAN_ID (the stack's
 * `UsagePlanId` output) makes `org:create` put the organisation's API key in the API's usage plan
 * (tools/cli/usage-plan.ts); `org:api-key` does it for an existing organisation.
 */
import { parseArgs } from 'node:util';
import type { CascadeParent } from '../../lib/jobs/cascade.ts';

const USAGE = `Usage: npm run -s admin -- <command> [options]

Commands:
  org:create --name NAME --admin-name NAME --admin-email EMAIL
  org:api-key --org ID            (AWS: put the organisation's API key in the usage plan)
  account:create --org ID --name NAME --email EMAIL --role admin|member
  account:handle --org ID --account ID (--handle HANDLE | --clear)
                                  (sets the account's handle for @mentions, or clears it; see docs/api.md)
  token:regenerate --org ID --account ID
  token:revoke --org ID --account ID
  cascade:resume [--org ID --project ID [--sprint ID | --issue ID | --label ID | --state ID | --field ID]]
                                  (finish one cascade now, or every pending one; see docs/limits.md)
  cascade:sweep [--dry-run]       (find and finish orphaned partitions; reads the table with a Scan)
  comments:pointers [--org ID]    (also a data migration: the pointer of every comment written before
                                  GET /comments/{id} read pointers, and the comment's fields and body
                                  on older pointers; reads the table with a Scan)
  tokens:names [--org ID]         (also a data migration: the account's name on every token issued
                                  before token items carried it; reads the table with a Scan)
  issues:reindex [--org ID]       (also a data migration; by hand, with no writes running: compares every
                                  derived count and index (lists, issue numbers, assignees, sub-issues,
                                  search, attachment bytes and files) with its rebuild from the issues and
                                  attachments, and writes only what differs; prints what it checked and
                                  repaired; reads the table with a Scan, one organisation's part with a
                                  Query of each of its partitions)
  migrations:status               (every data migration, pending, running, done or failed, with its counts;
                                  upgrades run the three commands above as data migrations)
  migrations:run [--steps N]      (runs the pending data migrations now, as deploys and npm start do;
                                  reads the table with a Scan; see docs/deploying.md)
  webhooks:encrypt-secrets [--org ID]
                                  (once after upgrading: seals every webhook signing secret stored in
                                  plaintext; AWS: WEBHOOK_SECRET_KMS_KEY_ID, the stack output
                                  WebhookSecretKeyArn; reads the table with a Scan)
  import --org ID --format jira-csv|github-json|export --file PATH [--project ID] [--dry-run]
         [--keep-numbers] [--mapping FILE] [--files DIR]
                                  (issues from another tracker into a project, or an export file into an
                                  organisation; --keep-numbers: DI-127 stays DI-127 where it is free;
                                  --files: an export's attachment files, re-uploaded; see
                                  docs/import-export.md)
  export --org ID [--out FILE] [--files DIR] [--include-trash]
                                  (the organisation as JSON Lines, to the file or to stdout; --files: each
                                  attachment's file too, into DIR, named as its line's "file" says;
                                  --include-trash: the trash too, as "trash" and "trash_content" lines an import skips)

Environment: DYNAMODB_ENDPOINT, TABLE_NAME, AWS_REGION (and AWS credentials), USAGE_PLAN_ID,
WEBHOOK_SECRET_KMS_KEY_ID — see docs/configuration.md.`;

class UsageError extends Error {}

/** The optional `--org` of the upgrade commands: one organisation's part of the table. */
const orgFlag = (value: string | undefined) => (value === undefined ? undefined : positiveInt(value, 'org'));

const commands: Record<string, string[]> = {
  'org:create': ['name', 'admin-name', 'admin-email'],
  'org:api-key': ['org'],
  'account:create': ['org', 'name', 'email', 'role'],
  'account:handle': ['org', 'account'],
  'token:regenerate': ['org', 'account'],
  'token:revoke': ['org', 'account'],
  'cascade:resume': [],
  'cascade:sweep': [],
  'comments:pointers': [],
  'tokens:names': [],
  'issues:reindex': [],
  'webhooks:encrypt-secrets': [],
  'migrations:status': [],
  'migrations:run': [],
  import: ['org', 'format', 'file'],
  export: ['org'],
};

/** Flags a command may take beside its required ones; `dry-run` is a boolean. */
const optionalFlags: Record<string, string[]> = {
  'account:handle': ['handle', 'clear'],
  'cascade:resume': ['org', 'project', 'sprint', 'issue', 'label', 'state', 'field'],
  'cascade:sweep': ['dry-run'],
  'issues:reindex': ['org'],
  'comments:pointers': ['org'],
  'tokens:names': ['org'],
  'webhooks:encrypt-secrets': ['org'],
  'migrations:run': ['steps'],
  import: ['project', 'dry-run', 'keep-numbers', 'mapping', 'files'],
  export: ['out', 'files', 'include-trash'],
};
const booleanFlags = new Set(['dry-run', 'keep-numbers', 'include-trash', 'clear']);

function parse(argv: string[]) {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h') throw new UsageError('a command is required');
  const required = commands[command];
  if (!required) throw new UsageError(`unknown command "${command}"`);
  let values: Record<string, string | undefined>;
  try {
    const parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        [...required, ...(optionalFlags[command] ?? [])].map((name) => [
          name,
          { type: booleanFlags.has(name) ? ('boolean' as const) : ('string' as const) },
        ]),
      ),
      strict: true,
      allowPositionals: false,
    });
    values = Object.fromEntries(Object.entries(parsed.values).map(([k, v]) => [k, v === true ? 'true' : (v as string)]));
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
  if (!explicit && !useAws) process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${process.env.DYNAMODB_PORT || 8000}`;
  // The attachments' files (export/import --files): the local S3-compatible server of `npm start` unless on AWS.
  if (!useAws && !process.env.S3_ENDPOINT) process.env.S3_ENDPOINT = `http://127.0.0.1:${process.env.S3_PORT || 4569}`;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const tableName = process.env.TABLE_NAME ?? 'sprint-ticketing';
  if (endpoint) {
    const { ensureTable } = await import('../local/table.ts');
    await ensureTable(endpoint, tableName).catch((err: Error) => {
      throw new Error(`cannot reach DynamoDB at ${endpoint} (${err.message}); is \`npm start\` running?`);
    });
  }
  const { Role, emailField } = await import('../../lib/schemas/accounts.ts');
  const { nameField } = await import('../../lib/schemas/common.ts');
  const domain = await import('../../lib/services/accounts.ts');
  const check = <T>(schema: { safeParse(v: unknown): { success: boolean; data?: T } }, value: string, flag: string): T => {
    const r = schema.safeParse(value);
    if (!r.success) throw new UsageError(`--${flag} is not valid`);
    return r.data as T;
  };
  const usagePlanId = process.env.USAGE_PLAN_ID;
  const apiGateway = async () => new (await import('@aws-sdk/client-api-gateway')).APIGatewayClient({});
  switch (command) {
    case 'org:create': {
      const created = await domain.createOrganisation(check(nameField(), values.name!, 'name'), {
        name: check(nameField(), values['admin-name']!, 'admin-name'),
        email: check(emailField(), values['admin-email']!, 'admin-email'),
      });
      if (!useAws) return created;
      if (!usagePlanId) {
        process.stderr.write(
          `admin: USAGE_PLAN_ID is not set, so organisation ${created.organisation.id} has no API key in the usage plan and ` +
            `the deployed API refuses its requests (403); run org:api-key --org ${created.organisation.id} with USAGE_PLAN_ID set\n`,
        );
        return created;
      }
      // stdout stays exactly the documented {organisation, account, token} (scripts depend on it), and
      // is printed even if the usage plan step fails: the token is shown only once.
      const orgId = created.organisation.id;
      try {
        const { ensureUsagePlanKey } = await import('./usage-plan.ts');
        const key = await ensureUsagePlanKey(await apiGateway(), usagePlanId, orgId);
        process.stderr.write(`admin: API key ${key.api_key_id} of organisation ${orgId} is in usage plan ${key.usage_plan_id}\n`);
      } catch (err) {
        process.stderr.write(
          `admin: organisation ${orgId} was created, but its API key could not be put in usage plan ${usagePlanId} ` +
            `(${(err as Error).message}); run org:api-key --org ${orgId}\n`,
        );
        process.exitCode = 1;
      }
      return created;
    }
    case 'org:api-key': {
      if (!useAws || !usagePlanId)
        throw new UsageError('org:api-key needs AWS_REGION and USAGE_PLAN_ID (the stack output UsagePlanId)');
      const orgId = positiveInt(values.org!, 'org');
      const { getOrganisation } = await import('../../lib/db/organisation/organisation.ts');
      if (!(await getOrganisation(orgId))) throw new Error(`organisation ${orgId} does not exist in ${tableName}`);
      const { ensureUsagePlanKey } = await import('./usage-plan.ts');
      return { usage_plan_key: await ensureUsagePlanKey(await apiGateway(), usagePlanId, orgId) };
    }
    case 'account:create':
      return domain.createAccountInOrg(positiveInt(values.org!, 'org'), {
        name: check(nameField(), values.name!, 'name'),
        email: check(emailField(), values.email!, 'email'),
        role: check(Role, values.role!, 'role'),
      });
    case 'account:handle': {
      if ((values.handle === undefined) === (values.clear === undefined))
        throw new UsageError('account:handle takes either --handle HANDLE or --clear');
      const { account } = await domain.setHandle(
        positiveInt(values.org!, 'org'),
        positiveInt(values.account!, 'account'),
        values.handle ?? null,
      );
      return { account };
    }
    case 'token:regenerate':
      return { token: await domain.regenerateToken(positiveInt(values.org!, 'org'), positiveInt(values.account!, 'account')) };
    case 'token:revoke':
      await domain.revokeToken(positiveInt(values.org!, 'org'), positiveInt(values.account!, 'account'));
      return { revoked: true };
    case 'cascade:resume':
      return resumeCascades(values);
    case 'cascade:sweep':
      return sweepCascades(values['dry-run'] === 'true');
    case 'comments:pointers':
      return (await import('../../lib/jobs/comment-pointers.ts')).writeMissingCommentPointers(orgFlag(values.org));
    case 'tokens:names':
      return (await import('../../lib/jobs/token-names.ts')).writeMissingTokenNames(orgFlag(values.org));
    case 'issues:reindex': {
      const result = await (await import('../../lib/jobs/reindex.ts')).rebuildIssueIndexes(orgFlag(values.org));
      // The one line a person reads on standard error; standard output carries the counts.
      process.stderr.write(`admin: issues:reindex ${result.summary}\n`);
      return result;
    }
    case 'migrations:status': {
      const { migrationStatus } = await import('../../lib/migrations/runner.ts');
      const { readMigrationLease } = await import('../../lib/db/core/migrations.ts');
      return { migrations: await migrationStatus(), lease: (await readMigrationLease()) ?? null };
    }
    case 'migrations:run': {
      const { runMigrations } = await import('../../lib/migrations/runner.ts');
      const steps = values.steps === undefined ? undefined : positiveInt(values.steps, 'steps');
      // Progress on standard error: standard output carries only the outcome.
      const say = (line: string) => process.stderr.write(`admin: ${line}\n`);
      const reporter = {
        started: (r: { name: string; cursor?: unknown }) => say(`${r.name} ${r.cursor ? 'resumed' : 'started'}`),
        stepped: (r: { name: string; steps: number }) => say(`${r.name}: step ${r.steps}`),
        finished: (r: { name: string; counts: unknown }) => say(`${r.name} done ${JSON.stringify(r.counts)}`),
        failed: (r: { name: string; error?: string | undefined }) => say(`${r.name} failed: ${r.error}`),
      };
      return runMigrations({ reporter, ...(steps === undefined ? {} : { maxSteps: steps }) });
    }
    case 'import':
      return (await import('./port.ts')).runImport(values, positiveInt);
    case 'export':
      return (await import('./port.ts')).runExport(values, positiveInt);
    case 'webhooks:encrypt-secrets': {
      if (useAws && !process.env.WEBHOOK_SECRET_KMS_KEY_ID)
        throw new UsageError(
          'webhooks:encrypt-secrets on AWS needs WEBHOOK_SECRET_KMS_KEY_ID (the stack output WebhookSecretKeyArn)',
        );
      if (!useAws) {
        // DynamoDB Local: the key `npm start` keeps beside its data (tools/local/secret-key.ts).
        const { useLocalSecretKey } = await import('../local/secret-key.ts');
        useLocalSecretKey(process.env.DATA_DIR ?? '.data');
      }
      return (await import('../../lib/services/webhook-secrets.ts')).sealPlaintextSecrets(orgFlag(values.org));
    }
  }
  throw new UsageError(`unknown command "${command}"`);
}

/**
 * `cascade:resume`: finishes one cascade now (the flags name its parent, which must be gone), from
 * where its pending entry stopped if it has one; without flags, every pending cascade (those given
 * up first in the list). The failure queue's messages carry the exact command.
 */
async function resumeCascades(values: Record<string, string | undefined>) {
  const cascades = await import('../../lib/jobs/cascade.ts');
  const pending = await cascades.listPendingCascades();
  let targets: { parent: CascadeParent; after?: Record<string, unknown> | undefined }[];
  if (values.org === undefined && values.project === undefined) {
    if ([values.sprint, values.issue, values.label, values.state, values.field].some((v) => v !== undefined))
      throw new UsageError('--sprint, --issue, --label, --state and --field need --org and --project');
    targets = [...pending].sort((a, b) => (a.status === b.status ? 0 : a.status === 'failed' ? -1 : 1));
  } else {
    if (values.org === undefined || values.project === undefined) throw new UsageError('--org and --project go together');
    if ([values.sprint, values.issue, values.label, values.state, values.field].filter((v) => v !== undefined).length > 1)
      throw new UsageError('one of --sprint, --issue, --label, --state and --field, not more');
    const orgId = positiveInt(values.org, 'org');
    const projectId = positiveInt(values.project, 'project');
    const parent: CascadeParent =
      values.sprint !== undefined
        ? { kind: 'sprint', orgId, projectId, sprintId: positiveInt(values.sprint, 'sprint') }
        : values.issue !== undefined
          ? { kind: 'issue', orgId, projectId, issueId: positiveInt(values.issue, 'issue') }
          : values.label !== undefined
            ? { kind: 'label', orgId, projectId, labelId: positiveInt(values.label, 'label') }
            : values.state !== undefined
              ? { kind: 'state', orgId, projectId, stateId: positiveInt(values.state, 'state') }
              : values.field !== undefined
                ? { kind: 'field', orgId, projectId, fieldId: positiveInt(values.field, 'field') }
                : { kind: 'project', orgId, projectId };
    if (!(await cascades.parentIsGone(parent))) {
      throw new Error(`the ${parent.kind} still exists: a cascade only removes what lived under a deleted ${parent.kind}`);
    }
    const known = pending.find((p) => JSON.stringify(p.parent) === JSON.stringify(parent));
    targets = [{ parent, after: known?.after }];
  }
  const resumed = [];
  for (const target of targets) {
    const deleted = await cascades.resumeCascade(target.parent, target.after);
    process.stderr.write(`admin: ${target.parent.kind} cascade finished: ${deleted} item(s) removed\n`);
    resumed.push({ cascade: target.parent, deleted });
  }
  return { resumed };
}

/** `cascade:sweep`: finds the cascades nobody finished (a Scan of keys: an operator's command) and finishes them. */
async function sweepCascades(dryRun: boolean) {
  const cascades = await import('../../lib/jobs/cascade.ts');
  const orphans = await cascades.findOrphanedCascades();
  if (dryRun) return { orphans, finished: [] };
  const finished = [];
  for (const parent of orphans) finished.push({ cascade: parent, deleted: await cascades.resumeCascade(parent) });
  return { orphans, finished };
}

try {
  const result = await main();
  // `export` without --out has written its lines to stdout already.
  if (result !== undefined) process.stdout.write(`${JSON.stringify(result)}\n`);
} catch (err) {
  if (err instanceof UsageError || err instanceof (await import('./port.ts')).UsageError) {
    process.stderr.write(`admin: ${err.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  const e = err as Error & { errors?: string[]; report?: unknown };
  // An import that failed part-way: what it created, on stdout as a run's report is.
  if (e.report !== undefined) process.stdout.write(`${JSON.stringify(e.report)}\n`);
  process.stderr.write(`admin: ${e.errors ? e.errors.join('; ') : e.message}\n`);
  process.exit(1);
}

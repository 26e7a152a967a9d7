import * as z from 'zod';
import { bulkWrite, type BulkItem, type BulkOutcome } from '../../services/bulk.ts';
import type { BulkOp } from '../../schemas/bulk.ts';
import { ValidationError } from '../../vocabulary/errors.ts';
import type { Principal } from '../../model/principal.ts';
import { answeredVersion } from '../../model/versions.ts';
import { Issue } from '../../schemas/issues.ts';
import { issueMessages } from '../../schemas/validate.ts';
import { withinBudget } from '../../http/bulk.ts';
import { mcpItemBytes } from '../../http/byte-budget.ts';
import { locateIssue } from '../locate.ts';
import { nameResolver, type NameResolver } from '../resolve.ts';
import { annotations, defineTool, errorText, type Tool } from '../tool.ts';
import { issueTools } from './issues.ts';

/** Items per batch call: what one tool call should hold for an agent to read its answer back. */
export const BATCH_MAX_ITEMS = 50;

/** The single tools' own input schemas: an item is exactly what create_issue or update_issue takes (an unknown argument refused). */
const singleInput = (name: string) => {
  const tool = issueTools.find((t) => t.name === name);
  if (!tool) throw new Error(`no ${name} tool`);
  return tool.takes;
};
const createInput = singleInput('create_issue');
const updateInput = singleInput('update_issue');

/**
 * One item's arguments, parsed as the single tool parses its own (the same messages), with its
 * names and "me" turned into ids as the single tools' are (lib/mcp/resolve.ts): one resolver per
 * call, so a name many items share is looked up once.
 */
async function parseItem(schema: z.core.$ZodType, item: unknown, resolve: NameResolver): Promise<Record<string, unknown>> {
  const parsed = z.safeParse(schema, item);
  if (!parsed.success) throw new ValidationError(issueMessages(parsed.error, false));
  return resolve(parsed.data as Record<string, unknown>);
}

/** A create_issue item as a bulk op (lib/services/bulk.ts). */
async function createOp(_caller: Principal, item: unknown, resolve: NameResolver): Promise<BulkOp> {
  const { project_id, sprint_id, ...fields } = await parseItem(createInput, item, resolve);
  return {
    kind: 'create',
    at: { projectId: project_id as number, sprintId: (sprint_id as number | null | undefined) ?? null },
    fields: fields as never,
  };
}

/** An update_issue item as a bulk op: the issue located as update_issue locates it. */
async function updateOp(caller: Principal, item: unknown, resolve: NameResolver): Promise<BulkOp> {
  const { issue_number, project_id, issue_id, sprint_id, expected_version, ...changes } = await parseItem(
    updateInput,
    item,
    resolve,
  );
  const { at, issueId } = await locateIssue(caller, { issue_number, project_id, issue_id, sprint_id } as never);
  return { kind: 'update', at, issueId, changes, version: expected_version as number | undefined };
}

/** Each item's answer: its issue and version, or the error the single tool would give (with its REST status). */
const results = (outcomes: BulkOutcome[]) =>
  withinBudget(
    outcomes.map((o): { status: number; issue?: Issue; version?: number | undefined; error?: string } => {
      if (o.ok) return { status: o.status, issue: o.issue, version: answeredVersion(o.issue) };
      const { status, text } = errorText(o.error);
      return { status, error: text };
    }),
    mcpItemBytes,
  );

/**
 * An item is `single`'s arguments, said on the item's schema where an agent reads it (the single
 * tool's schema, next to it in the list, has them: a copy here would cost the list 1.6 KB).
 */
const batchInput = (single: string) =>
  z.object({
    items: z
      .array(z.looseObject({}).describe(`${single}'s arguments`))
      .min(1)
      .max(BATCH_MAX_ITEMS),
    dry_run: z.boolean().optional(),
  });

const batchOutput = {
  dry_run: z.boolean(),
  results: z.array(
    z.object({
      status: z.number().int(),
      issue: z.optional(Issue),
      version: z.number().int().optional(),
      error: z.string().optional(),
    }),
  ),
};

/**
 * A batch tool: each item made an op by `toOp` (a failure there is its answer), in order; `lazy`:
 * when its turn comes, after the items before it ran (an update locates its issue then). Creates
 * are made up front, so that a run of them into one list is written together (lib/services/bulk.ts).
 */
const batchTool = (
  name: string,
  single: string,
  description: string,
  hints: typeof annotations.create | typeof annotations.update,
  toOp: (caller: Principal, item: unknown, resolve: NameResolver) => Promise<BulkOp>,
  lazy: boolean,
): Tool =>
  defineTool(
    name,
    // A copy of the hints: the batch takes `expected_version` per item, not for the whole call.
    { description, input: batchInput(single), output: batchOutput, annotations: { ...hints } },
    async (caller, { items, dry_run }) => {
      const ops: BulkItem[] = [];
      const resolve = nameResolver(caller);
      for (const item of items) {
        const make = () => toOp(caller, item, resolve);
        ops.push(lazy ? make : await make().catch((error: unknown): BulkOp => ({ kind: 'invalid', error })));
      }
      return { dry_run: dry_run ?? false, results: results(await bulkWrite(caller, ops, { dryRun: dry_run })) };
    },
  );

export const batchTools: Tool[] = [
  batchTool(
    'create_issues',
    'create_issue',
    `Create up to ${BATCH_MAX_ITEMS} issues in order, each answered alone; dry_run writes nothing.`,
    annotations.create,
    createOp,
    false,
  ),
  batchTool(
    'update_issues',
    'update_issue',
    `Change up to ${BATCH_MAX_ITEMS} issues in order, each answered alone; dry_run writes nothing.`,
    annotations.update,
    updateOp,
    true,
  ),
];

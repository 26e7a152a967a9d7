import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, ErrorBody, idField, integer, IssueElsewhereBody, wrapped } from './common.ts';
import {
  Issue,
  IssueCreateBodyFields,
  IssueUpdateBodyFields,
  IssueUpdateFields,
  type IssueCreate,
  type IssueLocation,
  type IssueUpdate,
} from './issues.ts';
import { parseOrThrow } from './validate.ts';

/** Items of one bulk request (docs/api.md: Bulk writes): one transaction-sized batch of issues. */
export const BULK_MAX_ITEMS = 100;

/**
 * A create item: the single create's body, with `position` (its place in the list, as an update's)
 * besides. Validated item by item (lib/services/bulk.ts), so that a bad item fails alone.
 */
export const BulkCreateItem = wrapped(
  'issue',
  meta(z.extend(IssueCreateBodyFields, { position: IssueUpdateFields.shape.position }), { id: 'BulkIssueCreate' }),
  Issue,
);
export type BulkCreateItem = z.output<typeof BulkCreateItem>;

/** An update item: the single update's body, with the issue's `id` and the `version` it expects (optional). */
export const BulkUpdateItem = z.extend(wrapped('issue', IssueUpdateBodyFields, Issue), {
  id: idField(),
  version: z.optional(integer().check(z.minimum(0, { error: 'must be 0 or more' }))),
});
export type BulkUpdateItem = z.output<typeof BulkUpdateItem>;

/** The request: items in order, each checked on its own (the array alone is checked here); nothing beside them. */
export const IssueBulkBody = closed(
  meta(
    z.object({
      items: z
        .array(
          meta(z.unknown(), {
            description:
              'A create `{"issue": {...}}` (`position` honoured), or an update `{"id": 12, "version": 3, "issue": {...}}` ' +
              '(the single PATCH; `version` optional, as `If-Match`).',
          }),
          { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an array') },
        )
        .check(z.minLength(1, { error: `must hold 1 to ${BULK_MAX_ITEMS} items` }))
        .check(z.maxLength(BULK_MAX_ITEMS, { error: `must hold 1 to ${BULK_MAX_ITEMS} items` })),
    }),
    { id: 'IssueBulk' },
  ),
  undefined,
  { notAnObject: 'body must be a JSON object' },
);
export type IssueBulkBody = z.output<typeof IssueBulkBody>;

export const BulkQuery = z.object({
  dry_run: meta(z.optional(z.enum(['true', 'false'], { error: 'must be true or false' })), {
    description: '`true`: validate and answer what the request would do, writing nothing.',
  }),
});

/** One item's answer: the status and body the single route would give. */
export const BulkResult = meta(
  z.object({
    status: meta(z.number().check(z.int()), {
      description: '201 created, 200 updated, or the error status of the single route.',
    }),
    issue: z.optional(Issue),
    errors: meta(z.optional(z.array(z.string())), { description: 'A 422: one message per problem.' }),
    error: z.optional(ErrorBody.shape.error),
    // A 404 for an issue that lives in another list now says where, as the single route's does.
    issue_key: z.optional(IssueElsewhereBody.shape.issue_key),
    location: z.optional(IssueElsewhereBody.shape.location),
    description_omitted: meta(z.optional(z.boolean()), {
      description: 'true: the answer reached 5 MiB and this issue comes without its description (GET it).',
    }),
  }),
  { id: 'BulkResult' },
);

export const IssueBulkResults = meta(
  z.object({
    dry_run: z.boolean(),
    results: meta(z.array(BulkResult), { description: 'One per item, in order.' }),
  }),
  { id: 'IssueBulkResults' },
);

/** One item, parsed and located by its caller (the REST body, an MCP tool's arguments). */
export type BulkOp =
  | { kind: 'create'; at: IssueLocation; fields: IssueCreate; position?: number | undefined }
  | { kind: 'update'; at: IssueLocation; issueId: number; changes: IssueUpdate; version?: number | undefined }
  /** An item its caller could not parse or locate: answered with that error, nothing tried. */
  | { kind: 'invalid'; error: unknown };

/**
 * The ops of a bulk request's items, for the list `at` (lib/services/bulk.ts): each item validated on
 * its own, with the very messages of the single route's body; a bad item becomes an `invalid` op.
 */
export function bulkOps(at: IssueLocation, items: unknown[]): BulkOp[] {
  return items.map((item): BulkOp => {
    try {
      if (typeof item === 'object' && item !== null && 'id' in item) {
        const { id, version, issue } = parseOrThrow(BulkUpdateItem, item);
        return { kind: 'update', at, issueId: id, changes: issue, version };
      }
      const { issue } = parseOrThrow(BulkCreateItem, item);
      const { position, ...fields } = issue;
      return { kind: 'create', at, fields, position };
    } catch (error) {
      return { kind: 'invalid', error };
    }
  });
}

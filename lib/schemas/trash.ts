import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { CONTAINER_STATES, TRASH_KINDS } from '../vocabulary/trash.ts';
import { Sprint } from './sprints.ts';
import { Project } from './projects.ts';
import { dateTime } from './common.ts';
import { Label } from './labels.ts';
import { Webhook } from './webhooks.ts';
import { Comment } from './comments.ts';
import { Issue } from './issues.ts';
import { Attachment } from './attachments.ts';

/** An item of the organisation's trash (docs/trash.md). */
export const TrashEntry = meta(
  z.object({
    id: meta(z.string(), {
      description: 'The trash item, such as `webhook-12`: its kind and the id it had (and has again when restored).',
    }),
    kind: z.enum(TRASH_KINDS),
    item_id: z.number().check(z.int()),
    title: meta(z.string(), {
      description:
        "What the item was: a webhook's URL, a label's name, a comment's first line, an attachment's file name, an issue's number and title (80 characters at most).",
    }),
    deleted_by: meta(z.number().check(z.int()), { description: 'The account that deleted it.' }),
    deleted_at: dateTime(),
    expires_at: meta(dateTime(), { description: 'When it is purged for good (the retention period after its delete).' }),
    state: z.optional(
      meta(z.enum(CONTAINER_STATES), {
        description:
          'A sprint or a project: `withdrawing` while its issues are being moved into the trash (it can be restored or purged once that ends, in seconds), `held` in the trash, `restoring` while its issues are being put back (docs/trash.md).',
      }),
    ),
    issues_total: z.optional(
      meta(z.number().check(z.int()), { description: 'A restoring sprint or project: the issues its restore puts back.' }),
    ),
    issues_returned: z.optional(
      meta(z.number().check(z.int()), { description: 'A restoring sprint or project: the issues put back so far.' }),
    ),
    restore_error: z.optional(
      meta(z.string(), {
        description: 'A sprint or a project whose last restore could not finish (it is `held` again): why.',
      }),
    ),
  }),
  { id: 'TrashEntry' },
);

/** Query parameters of `GET /trash`. */
export const TrashQuery = z.object({
  kind: z.optional(z.enum(TRASH_KINDS, { error: `must be one of ${TRASH_KINDS.join(', ')}` })),
});

/** The answer of a restore: the kind of item and the item, whole, as its own route answers it. */
export const Restored = meta(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('webhook'), item: Webhook }),
    z.object({ kind: z.literal('label'), item: Label }),
    z.object({ kind: z.literal('comment'), item: Comment }),
    z.object({ kind: z.literal('attachment'), item: Attachment }),
    z.object({
      kind: z.literal('issue'),
      item: Issue,
      placed: meta(z.enum(['as_before', 'backlog_end']), {
        description:
          'Where the issue came back: `as_before`, at its own place in its sprint or backlog; `backlog_end`, at the end of the backlog, its sprint being gone.',
      }),
    }),
  ]),
  { id: 'Restored' },
);
export type Restored = z.infer<typeof Restored>;

/**
 * The answer of a sprint's or a project's restore (202): its issues are being put back; it answers
 * again once they all are, and its trash item (`Location`) shows the progress until then.
 */
export const RestoreStarted = meta(
  z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('sprint'), item: Sprint, restore: TrashEntry }),
    z.object({ kind: z.literal('project'), item: Project, restore: TrashEntry }),
  ]),
  { id: 'RestoreStarted' },
);
export type RestoreStarted = z.infer<typeof RestoreStarted>;

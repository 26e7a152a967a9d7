import * as z from 'zod';
import { TRASH_KINDS } from '../vocabulary/trash.ts';
import { dateTime } from './common.ts';
import { Label } from './labels.ts';
import { Webhook } from './webhooks.ts';

/** An item of the organisation's trash (docs/trash.md). */
export const TrashEntry = z
  .object({
    id: z
      .string()
      .meta({ description: 'The trash item, such as `webhook-12`: its kind and the id it had (and has again when restored).' }),
    kind: z.enum(TRASH_KINDS),
    item_id: z.number().int(),
    title: z.string().meta({ description: "What the item was: a webhook's URL, a label's name." }),
    deleted_by: z.number().int().meta({ description: 'The account that deleted it.' }),
    deleted_at: dateTime(),
    expires_at: dateTime().meta({ description: 'When it is purged for good (the retention period after its delete).' }),
  })
  .meta({ id: 'TrashEntry' });

/** Query parameters of `GET /trash`. */
export const TrashQuery = z.object({
  kind: z.enum(TRASH_KINDS, { error: `must be one of ${TRASH_KINDS.join(', ')}` }).optional(),
});

/** The answer of a restore: the kind of item and the item, whole, as its own route answers it. */
export const Restored = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('webhook'), item: Webhook }),
    z.object({ kind: z.literal('label'), item: Label }),
  ])
  .meta({ id: 'Restored' });
export type Restored = z.infer<typeof Restored>;

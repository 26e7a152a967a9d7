import type { PageRequest } from '../db/list.ts';
import * as store from '../db/trash.ts';
import { restoreWebhook } from '../db/webhooks.ts';
import type { Principal } from '../model/principal.ts';
import { isExpired, parseTrashId, trashId } from '../model/trash.ts';
import { ForbiddenError, NotFoundError, TransitionError } from '../vocabulary/errors.ts';
import { refusedAs } from './refusals.ts';
import { refusals as webhookRefusals } from './webhooks.ts';
import { toWebhook } from '../db/webhooks.ts';
import { restoreTrashedLabel } from './labels.ts';
import { restoreTrashedComment } from './comments.ts';
import { restoreTrashedIssue } from './issue-trash.ts';
import type { Restored } from '../schemas/trash.ts';

/** An item of the trash as answered. */
export interface TrashEntry {
  id: string;
  kind: store.TrashFields['kind'];
  item_id: number;
  title: string;
  deleted_by: number;
  deleted_at: string;
  expires_at: string;
}

const entryOf = (f: store.TrashFields): TrashEntry => ({
  id: trashId(f.kind, f.itemId),
  kind: f.kind,
  item_id: f.itemId,
  title: f.title,
  deleted_by: f.deletedBy,
  deleted_at: f.deletedAt,
  expires_at: new Date(f.expiresAt * 1000).toISOString(),
});

/** Purging for good is for admins: 403 for members. */
function requireAdmin(caller: Principal) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may empty the trash');
}

/** Whether the caller sees a trashed item: admins every one, members those they deleted themselves. */
const seenBy = (caller: Principal, f: store.TrashFields): boolean => caller.role === 'admin' || f.deletedBy === caller.accountId;

/**
 * A page of the organisation's trash, newest deletion first: all of it for admins, what they deleted
 * for members; items past their retention are not shown.
 */
export async function listTrash(caller: Principal, page: PageRequest, kind?: string) {
  const { page: result, items } = await store.listTrash(caller.orgId, page);
  const now = Date.now();
  const shown = items.filter((f) => !isExpired(f.expiresAt, now) && (kind === undefined || f.kind === kind) && seenBy(caller, f));
  return { page: result, items: shown.map(entryOf) };
}

/**
 * The trashed item `id` of the caller's organisation, still within its retention and seen by the
 * caller (a member's own), or 404.
 */
async function trashed(caller: Principal, id: string): Promise<store.TrashFields> {
  const parsed = parseTrashId(id);
  if (!parsed) throw new NotFoundError('Trash item');
  const found = await store.getTrashed(caller.orgId, parsed.kind, parsed.itemId);
  if (!found || isExpired(found.expiresAt, Date.now()) || !seenBy(caller, found)) throw new NotFoundError('Trash item');
  return found;
}

/** One item of the trash (a member's own), with the ETag that a purge's `If-Match` names. */
export async function getTrashEntry(caller: Principal, id: string): Promise<TrashEntry> {
  const found = await trashed(caller, id);
  return store.trashAnswer(caller.orgId, found, entryOf(found));
}

/** Brings trash item `id` (a member's own) back whole, with its own id, and answers it as its own route would. */
export async function restore(caller: Principal, id: string): Promise<Restored> {
  const found = await trashed(caller, id);
  if (found.kind === 'label') return { kind: 'label', item: await restoreTrashedLabel(caller, found.stored, found.deletedAt) };
  if (found.kind === 'comment')
    return { kind: 'comment', item: await restoreTrashedComment(caller, found.stored, found.deletedAt) };
  if (found.kind === 'issue') {
    const { issue, placed } = await restoreTrashedIssue(caller, found.stored, found.deletedAt);
    return { kind: 'issue', item: issue, placed };
  }
  const gone = () => new NotFoundError('Trash item');
  await refusedAs(
    {
      ...webhookRefusals,
      limit: () =>
        new TransitionError(
          `The organisation already has the most endpoints it may have; delete one to restore webhook ${found.itemId}`,
        ),
      trashed: gone,
      condition: () => new TransitionError(`Webhook ${found.itemId} exists again`),
    },
    () => restoreWebhook(caller.orgId, found.stored, found.deletedAt),
  );
  return { kind: 'webhook', item: toWebhook(found.stored) };
}

/**
 * Deletes trash item `id` for good (admins); in the background, a label's purge takes it off its
 * issues, an issue's removes what lived under it and releases its children (lib/db/cascade.ts).
 */
export async function purge(caller: Principal, id: string): Promise<void> {
  requireAdmin(caller);
  const found = await trashed(caller, id);
  await refusedAs({ trashed: () => new NotFoundError('Trash item') }, () =>
    store.purgeTrashed(caller.orgId, found.kind, found.itemId, found.deletedAt),
  );
}

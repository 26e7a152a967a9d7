import type { PageRequest } from '../db/list.ts';
import * as store from '../db/trash.ts';
import { restoreWebhook } from '../db/webhooks.ts';
import type { Principal } from '../model/principal.ts';
import { isExpired, parseTrashId, trashId } from '../model/trash.ts';
import { ForbiddenError, NotFoundError, TransitionError } from '../vocabulary/errors.ts';
import { refusedAs } from './refusals.ts';
import { refusals as webhookRefusals } from './webhooks.ts';
import { toWebhook } from '../db/webhooks.ts';

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

/** The trash holds only what admins delete so far (webhooks): admins only, 403 for members. */
function requireAdmin(caller: Principal) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may see or empty the trash');
}

/** A page of the organisation's trash, newest deletion first; items past their retention are not shown. */
export async function listTrash(caller: Principal, page: PageRequest, kind?: string) {
  requireAdmin(caller);
  const { page: result, items } = await store.listTrash(caller.orgId, page);
  const now = Date.now();
  const shown = items.filter((f) => !isExpired(f.expiresAt, now) && (kind === undefined || f.kind === kind));
  return { page: result, items: shown.map(entryOf) };
}

/** The trashed item `id` of the caller's organisation, still within its retention, or 404. */
async function trashed(caller: Principal, id: string): Promise<store.TrashFields> {
  const parsed = parseTrashId(id);
  if (!parsed) throw new NotFoundError('Trash item');
  const found = await store.getTrashed(caller.orgId, parsed.kind, parsed.itemId);
  if (!found || isExpired(found.expiresAt, Date.now())) throw new NotFoundError('Trash item');
  return found;
}

/** One item of the trash (admins), with the ETag that a purge's `If-Match` names. */
export async function getTrashEntry(caller: Principal, id: string): Promise<TrashEntry> {
  requireAdmin(caller);
  const found = await trashed(caller, id);
  return store.trashAnswer(caller.orgId, found, entryOf(found));
}

/** Brings trash item `id` back whole, with its own id, and answers it as its own route would. */
export async function restore(caller: Principal, id: string) {
  requireAdmin(caller);
  const found = await trashed(caller, id);
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
    () => restoreWebhook(caller.orgId, found.stored),
  );
  return { kind: found.kind, item: toWebhook(found.stored) };
}

/** Deletes trash item `id` for good (admins). */
export async function purge(caller: Principal, id: string): Promise<void> {
  requireAdmin(caller);
  const found = await trashed(caller, id);
  await refusedAs({ trashed: () => new NotFoundError('Trash item') }, () =>
    store.purgeTrashed(caller.orgId, found.kind, found.itemId),
  );
}

import type { PageRequest } from '../db/core/list.ts';
import * as store from '../db/core/trash.ts';
import { restoreWebhook } from '../db/webhooks/webhooks.ts';

import type { Principal } from '../model/principal.ts';
import { isExpired, parseTrashId, trashId } from '../model/trash.ts';

import { ForbiddenError, NotFoundError, TransitionError, TrashBusyError } from '../vocabulary/errors.ts';

import { refusedAs } from './refusals.ts';

import { refusals as webhookRefusals } from './webhooks.ts';

import { restoreTrashedLabel } from './labels.ts';

import { restoreTrashedComment } from './comments.ts';

import { restoreTrashedAttachment } from './attachments.ts';

import { restoreTrashedIssue } from './issue-trash.ts';

import type { Restored, RestoreStarted } from '../schemas/trash.ts';
import type { ContainerState } from '../vocabulary/trash.ts';
import { beginRestore, projectIssueCount, restoreObstacle } from '../db/cascades/container-steps.ts';

import type { Container } from '../model/cascades.ts';
import { sprintItem } from '../db/projects/sprints.ts';
import { toWebhook } from '../../lib/resources/organisation.ts';
import { toProject, toSprint } from '../../lib/resources/projects.ts';

/** An item of the trash as answered. */
export interface TrashEntry {
  id: string;
  kind: store.TrashFields['kind'];
  item_id: number;
  title: string;
  deleted_by: number;
  deleted_at: string;
  expires_at: string;
  /** A sprint's or a project's (docs/trash.md). */
  state?: ContainerState;
  issues_total?: number;
  issues_returned?: number;
  restore_error?: string;
}

const isContainer = (kind: store.TrashFields['kind']): kind is 'sprint' | 'project' => kind === 'sprint' || kind === 'project';

const entryOf = (f: store.TrashFields): TrashEntry => ({
  id: trashId(f.kind, f.itemId),
  kind: f.kind,
  item_id: f.itemId,
  title: f.title,
  deleted_by: f.deletedBy,
  deleted_at: f.deletedAt,
  expires_at: new Date(f.expiresAt * 1000).toISOString(),
  ...(isContainer(f.kind) ? { state: f.state } : {}),
  ...(isContainer(f.kind) && f.state === 'restoring'
    ? { issues_total: f.total, issues_returned: Math.min(f.returned, f.total) }
    : {}),
  ...(isContainer(f.kind) && f.restoreError ? { restore_error: f.restoreError } : {}),
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

/**
 * Brings trash item `id` (a member's own) back whole, with its own id, and answers it as its own
 * route would; a sprint or a project begins to come back (`restoreContainer`).
 */
export async function restore(caller: Principal, id: string): Promise<Restored | RestoreStarted> {
  const found = await trashed(caller, id);
  if (isContainer(found.kind)) return restoreContainer(caller, found);
  if (found.kind === 'label') return { kind: 'label', item: await restoreTrashedLabel(caller, found.stored, found.deletedAt) };
  if (found.kind === 'comment')
    return { kind: 'comment', item: await restoreTrashedComment(caller, found.stored, found.deletedAt) };
  if (found.kind === 'attachment')
    return { kind: 'attachment', item: await restoreTrashedAttachment(caller, found.stored, found.deletedAt) };
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
 * issues, an issue's removes what lived under it and releases its children, an attachment's
 * removes it with its file and its bytes (lib/jobs/cascade.ts).
 */
export async function purge(caller: Principal, id: string): Promise<void> {
  requireAdmin(caller);
  const found = await trashed(caller, id);
  // Purged while its issues are put back, a sprint or project would leave them half back.
  if (isContainer(found.kind) && found.state === 'restoring') {
    throw new TrashBusyError(`${found.title} is being restored; purge it, if still wanted, once it is back and deleted again`);
  }
  await refusedAs({ trashed: () => new NotFoundError('Trash item') }, () =>
    store.purgeTrashed(caller.orgId, found.kind, found.itemId, found.deletedAt),
  );
}

/**
 * Begins to bring back a trashed sprint or project (docs/trash.md): its issues are put back by the
 * cascade consumer, a page at a time, and it answers again once they all are; until then its
 * trash item shows the progress. Refused: while its issues are still being moved into the trash
 * (409, Retry-After); a sprint whose project is in the trash or gone, a project whose prefix
 * another project took meanwhile (422). A restore already under way answers its progress again.
 */
async function restoreContainer(caller: Principal, found: store.TrashFields): Promise<RestoreStarted> {
  const { orgId } = caller;
  const c: Container =
    found.kind === 'sprint'
      ? { kind: 'sprint', orgId, projectId: Number(found.stored.project_id), sprintId: found.itemId }
      : { kind: 'project', orgId, projectId: found.itemId };
  const started = (f: store.TrashFields): RestoreStarted =>
    found.kind === 'sprint'
      ? { kind: 'sprint', item: toSprint(found.stored), restore: entryOf(f) }
      : { kind: 'project', item: toProject(found.stored), restore: entryOf(f) };
  if (found.state === 'restoring') return started(found);
  if (found.state === 'withdrawing') {
    throw new TrashBusyError(`The issues of ${found.title} are still being moved into the trash; restore it in a few seconds`);
  }
  const total = await refusedRestore(c, found);
  await refusedAs(
    {
      trashed: () => new TrashBusyError(`${found.title} changed in the trash meanwhile; read it again`),
      busy: () =>
        new TrashBusyError(`The issues of ${found.title} are still being moved into the trash; restore it in a few seconds`),
    },
    () => beginRestore(c, found.deletedAt, caller.accountId, total),
  );
  return started({ ...found, state: 'restoring', total, returned: 0, restoreError: null });
}

/**
 * What keeps a trashed sprint or project from coming back (422), checked before its restore
 * begins (and again by its last write); else the issues it will put back (its progress's total).
 */
async function refusedRestore(c: Container, found: store.TrashFields): Promise<number> {
  // In parallel: a project's issues are counted while its prefix is checked.
  const [why, total] = await Promise.all([
    restoreObstacle(c, found.stored),
    c.kind === 'sprint' ? sprintItem.field(found.stored, 'issuesCount') : projectIssueCount(c.orgId, c.projectId, found.stored),
  ]);
  if (why) throw new TransitionError(why);
  return total;
}

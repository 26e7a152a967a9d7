import { accountIdsOfHandles } from '../db/organisation/accounts.ts';
import { deliverNotifications } from '../jobs/inbox-writes.ts';
import { notifiedAccounts, settleExpiredNotification, type NotifiedChange } from '../db/organisation/inbox.ts';
import { deleteIssueNotifications, setIssueNotificationsHidden } from '../jobs/notification-trips.ts';
import { readIssueHeads, type IssueHead } from '../db/issues/issue-refs.ts';
import { mentionedHandles, newMentions } from '../model/mentions.ts';
import { recipientsOf, type Concern } from '../model/notifications.ts';
import type { DynamoDBRecord } from 'aws-lambda';
import type { ChangeEvent } from './events.ts';
import { GroupFailure } from './group-failure.ts';
import { itemOfImage } from '../db/core/stream-images.ts';

/**
 * The change feed's notifications (docs/notifications.md): for one project's events, in stream
 * order, who each concerns and why (lib/model/notifications.ts), written to their inboxes
 * (lib/db/organisation/inbox.ts); an issue's trip to the trash and back hides and shows what was
 * written about it. Reads per group of events, at once: one BatchGetItem of the issues commented
 * on, one of the handles mentioned, one of who was notified about the issues that went to the trash
 * or came back; writes per event: one transaction per 49 recipients.
 */

/** What an event says of who it concerns, before handles are resolved. */
interface Facts {
  concern: Omit<Concern, 'mentioned'>;
  /** Handles newly mentioned. */
  handles: string[];
  /** Its issue's head, when the event's own resource shows it (issue events). */
  head?: IssueHead | undefined;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const text = (v: unknown) => (typeof v === 'string' ? v : null);

/** An issue event's issue as its resource shows it. */
function headOf(resource: Record<string, unknown>): IssueHead {
  const watchers =
    isRecord(resource.watchers) && Array.isArray(resource.watchers.account_ids) ? resource.watchers.account_ids : [];
  return {
    issueKey: String(resource.issue_number),
    title: String(resource.title),
    watcherIds: watchers.filter((id): id is number => typeof id === 'number'),
  };
}

/** What an event tells: undefined for one that concerns nobody. */
export function factsOf(event: ChangeEvent): Facts | undefined {
  const actorId = event.actorId;
  const resource = event.resource;
  switch (event.type) {
    case 'issue.created': {
      const assigned = typeof resource.assignee_id === 'number' ? resource.assignee_id : null;
      return { concern: { actorId, assigned }, handles: mentionedHandles(text(resource.description)), head: headOf(resource) };
    }
    case 'issue.updated': {
      const assignee = event.changes.find((c) => c.field === 'assignee_id');
      const assigned = typeof assignee?.to === 'number' ? assignee.to : null;
      const stateChanged = event.changes.some((c) => c.field === 'state_id' || c.field === 'status_category');
      const handles = event.description ? newMentions(event.description.before, event.description.after) : [];
      const head = headOf(resource);
      return { concern: { actorId, assigned, stateChanged, watchers: head.watcherIds }, handles, head };
    }
    case 'comment.created':
      return { concern: { actorId, commented: true }, handles: mentionedHandles(text(resource.body)) };
    case 'comment.updated':
      return { concern: { actorId }, handles: newMentions(event.bodyBefore, text(resource.body)) };
    default:
      return undefined;
  }
}

/** What a group's events need read: the issues commented on, the handles mentioned, who was notified about trashed issues. */
interface Reads {
  heads: Map<number, IssueHead | undefined>;
  accounts: Map<string, number>;
  notified: Map<number, number[]>;
}

/** An issue into the trash, back, or gone for good: what was written about it is hidden, shown or deleted. */
const isTrashTrip = (event: ChangeEvent) =>
  event.type === 'issue.deleted' || event.type === 'issue.restored' || event.type === 'issue.purged';
const refOf = (event: ChangeEvent) => ({ projectId: event.projectId, issueId: event.issueId! });

/** The group's reads, each one BatchGetItem (of up to 100 keys), all at once. */
async function readsOf(orgId: number, told: Told[], trips: { index: number; event: ChangeEvent }[]): Promise<Reads> {
  const commented = told.filter((t) => t.facts.head === undefined);
  const handles = [...new Set(told.flatMap((t) => t.facts.handles))];
  const lookups = [];
  for (let i = 0; i < handles.length; i += HANDLES_AT_ONCE) lookups.push(handles.slice(i, i + HANDLES_AT_ONCE));
  const [heads, found, notified] = await Promise.all([
    readIssueHeads(
      orgId,
      commented.map((t) => refOf(t.event)),
    ),
    Promise.all(lookups.map((chunk) => accountIdsOfHandles(orgId, chunk))),
    notifiedAccounts(
      orgId,
      trips.map((t) => refOf(t.event)),
    ),
  ]);
  return {
    heads: new Map(commented.map((t, i) => [t.index, heads[i]])),
    accounts: new Map(found.flatMap((m) => [...m])),
    notified: new Map(trips.map((t, i) => [t.index, notified[i]!])),
  };
}

interface Told {
  index: number;
  event: ChangeEvent;
  facts: Facts;
}

/** The most handles one lookup takes. */
const HANDLES_AT_ONCE = 100;

/** The notifications of one project's events, in stream order; throws with the index of the event that failed. */
export async function notifyGroup(group: readonly { index: number; event: ChangeEvent }[]): Promise<void> {
  const withIssue = group.filter(({ event }) => event.issueId !== undefined);
  const told = withIssue.flatMap(({ index, event }) => {
    const facts = factsOf(event);
    return facts ? [{ index, event, facts }] : [];
  });
  const trips = withIssue.filter(({ event }) => isTrashTrip(event));
  if (told.length === 0 && trips.length === 0) return;
  let reads: Reads;
  try {
    reads = await readsOf(group[0]!.event.orgId, told, trips);
  } catch (err) {
    throw new GroupFailure(group[0]!.index, err);
  }
  const factsAt = new Map(told.map((t) => [t.index, t.facts]));
  for (const { index, event } of withIssue) {
    try {
      const facts = factsAt.get(index);
      const notified = reads.notified.get(index);
      if (notified?.length) {
        await settleTrip(event, notified);
      } else if (facts) {
        const head = facts.head ?? reads.heads.get(index);
        if (head) await notify(event, facts, head, reads.accounts);
      }
    } catch (err) {
      throw new GroupFailure(index, err);
    }
  }
}

/**
 * An issue's trip: into the trash (its delete's marker names who deleted it) hides its
 * notifications, back shows them; gone for good (its purge, or a cascade's removal, which no one
 * made) deletes them.
 */
async function settleTrip(event: ChangeEvent, notified: number[]): Promise<void> {
  const gone = event.type === 'issue.purged' || (event.type === 'issue.deleted' && event.actorId === null);
  if (gone) await deleteIssueNotifications(event.orgId, refOf(event), notified);
  else await setIssueNotificationsHidden(event.orgId, refOf(event), notified, event.type === 'issue.deleted');
}

async function notify(event: ChangeEvent, facts: Facts, head: IssueHead, accounts: Map<string, number>): Promise<void> {
  const mentioned = facts.handles.flatMap((h) => accounts.get(h) ?? []);
  const watchers = facts.concern.watchers ?? head.watcherIds;
  const recipients = recipientsOf({ ...facts.concern, watchers, mentioned });
  if (recipients.length === 0) return;
  const change: NotifiedChange = {
    orgId: event.orgId,
    projectId: event.projectId,
    issueId: event.issueId!,
    issueKey: head.issueKey,
    title: head.title,
    actorId: event.actorId,
    sequence: event.sequence,
    commentId: event.commentId ?? null,
    at: event.at,
  };
  await deliverNotifications(change, recipients);
}

/** A notification's removal (its TTL's): an unread one gives its place in the count back, once. */
export async function settleExpired(record: DynamoDBRecord): Promise<boolean> {
  const old = record.dynamodb?.OldImage;
  if (record.eventName !== 'REMOVE' || !old) return false;
  return settleExpiredNotification(itemOfImage(old));
}

import type { DynamoDBRecord } from 'aws-lambda';
import { deleteSprintActivity, type ActivityEntry, type ActivityOutcome } from '../db/issues/activity.ts';
import { recordActivities } from './record-activity.ts';
import { notifyGroup, settleExpired } from './notify.ts';
import { GroupFailure } from './group-failure.ts';
import { readDeletions } from '../db/core/deletions.ts';
import { deletedKeyOf } from '../db/core/stream-images.ts';
import { asRestored, changeEventOf, withStateNames, type ChangeEvent } from './events.ts';
import { readWorkflows } from '../db/projects/workflow.ts';

/**
 * The change feed consumer's work for one batch of stream records: the activity history, the
 * notifications (lib/feed/notify.ts), and (through `publish`) the webhooks. Records of one project partition are handled in stream order;
 * partitions in parallel. Everything is idempotent (entries are keyed by the record's sequence
 * number, deliveries by record and endpoint), so a batch retried from a failed record is harmless.
 */

export interface FeedOptions {
  /** Hands an event to the webhooks (lib/webhooks/fanout.ts); absent: activity only. */
  publish?: (event: ChangeEvent) => Promise<void>;
  /** A record that is no change event (a redelivery request); true when it was one. */
  other?: (record: DynamoDBRecord) => Promise<boolean>;
}

export interface FeedBatchResult {
  /** Sequence number of the first record (batch order) that failed: the stream resumes there. */
  firstFailure?: string | undefined;
  events: number;
  activities: number;
  errors: unknown[];
}

/** The activity entry an event stands for, if it is one the history shows. */
export function activityOf(event: ChangeEvent): ActivityEntry | undefined {
  const activity = {
    id: event.sequence,
    event: event.type,
    actor_id: event.actorId,
    at: event.at,
    issue_id: event.issueId ?? null,
    sprint_id: event.sprintId ?? null,
    comment_id: event.commentId ?? null,
    changes: event.changes,
    ...(event.reverts === undefined ? {} : { reverts: event.reverts }),
    ...(event.via === undefined ? {} : { via: event.via }),
  };
  const common = { orgId: event.orgId, projectId: event.projectId, sequence: event.sequence, activity };
  const description = event.description === undefined ? {} : { description: event.description };
  switch (event.type) {
    // A restored issue's history tells of its return (`issue.restored`); a purged issue's goes with it.
    case 'issue.updated':
      return event.issueId === undefined ? undefined : { ...common, ...description, owner: { issueId: event.issueId } };
    case 'issue.created':
    case 'comment.created':
    case 'comment.updated':
    case 'comment.deleted':
    case 'comment.restored':
    case 'comment.purged':
    case 'issue.restored':
    case 'attachment.added':
    case 'attachment.removed':
    case 'attachment.restored':
    case 'attachment.purged':
      return event.issueId === undefined ? undefined : { ...common, owner: { issueId: event.issueId } };
    case 'sprint.activated':
    case 'sprint.completed':
      return event.sprintId === undefined ? undefined : { ...common, owner: { sprintId: event.sprintId } };
    default:
      return undefined;
  }
}

/**
 * One project's events, in stream order: their activity entries written together (as few
 * transactions as fit, lib/db/issues/activity.ts), their notifications, then each event's other work in order (a deleted
 * sprint's entries, the webhooks). Answers how many entries were written; throws, with the index of
 * the first event whose work is not all done, when something fails (the stream resumes there; the
 * work is idempotent).
 */
async function handleGroup(group: { index: number; event: ChangeEvent }[], options: FeedOptions): Promise<number> {
  const entries = group.flatMap(({ event }) => activityOf(event) ?? []);
  let outcomes: ActivityOutcome[];
  try {
    outcomes = await recordActivities(entries);
  } catch (err) {
    throw new GroupFailure(group[0]!.index, err);
  }
  // Throws a GroupFailure of its own, naming the event it stopped at.
  await notifyGroup(group);
  for (const { index, event } of group) {
    try {
      if (event.type === 'sprint.deleted' && event.sprintId !== undefined) {
        await deleteSprintActivity(event.orgId, event.projectId, event.sprintId);
      }
      if (options.publish) await options.publish(event);
    } catch (err) {
      throw new GroupFailure(index, err);
    }
  }
  return outcomes.filter((o) => o === 'written').length;
}

/**
 * The batch's events, each delete given who made it, when, and (a comment's) the sprint, from its
 * marker (lib/db/core/deletions.ts): the markers of the whole batch in one BatchGet. A delete without a
 * marker (a cascade's, an operator's) keeps `actor_id` null and the record's time.
 */
export async function withDeletions(records: DynamoDBRecord[]): Promise<(ChangeEvent | undefined)[]> {
  const events = records.map((record) => changeEventOf(record));
  const deletes = events.flatMap((event, index) => {
    const key = event && deletedKeyOf(records[index] as DynamoDBRecord);
    return key ? [{ index, key }] : [];
  });
  const markers = await readDeletions(deletes.map((d) => d.key));
  deletes.forEach(({ index }, i) => {
    const event = events[index];
    const marker = markers[i];
    if (!event || !marker) return;
    const sprint =
      event.type === 'comment.deleted' && marker.sprintId !== undefined ? { sprintId: marker.sprintId ?? undefined } : {};
    const marked = { ...event, actorId: marker.actorId, at: marker.at, ...sprint };
    events[index] = marker.restored ? asRestored(marked) : marked;
  });
  return events;
}

/**
 * Issue events with their states named (`withStateNames`): the projects of the batch's issue
 * events read in one BatchGet (their workflows are on the project items, lib/db/projects/workflow.ts).
 */
export async function withWorkflows(events: (ChangeEvent | undefined)[]): Promise<(ChangeEvent | undefined)[]> {
  const projects = new Map<string, { orgId: number; projectId: number }>();
  for (const event of events) {
    if (event?.type.startsWith('issue.')) projects.set(`${event.orgId}/${event.projectId}`, event);
  }
  if (projects.size === 0) return events;
  const wanted = [...projects.values()];
  const found = await readWorkflows(wanted);
  const workflows = new Map(wanted.map((p, i) => [`${p.orgId}/${p.projectId}`, found[i]]));
  return events.map((event) => event && withStateNames(event, workflows.get(`${event.orgId}/${event.projectId}`)));
}

export async function feedBatch(records: DynamoDBRecord[], options: FeedOptions = {}): Promise<FeedBatchResult> {
  const groups = new Map<string, { index: number; event: ChangeEvent }[]>();
  const others: { index: number; record: DynamoDBRecord }[] = [];
  let events: (ChangeEvent | undefined)[];
  try {
    events = await withWorkflows(await withDeletions(records));
  } catch (err) {
    // Nothing handled yet: the whole batch again, from its first record.
    return { firstFailure: records[0]?.dynamodb?.SequenceNumber, events: 0, activities: 0, errors: [err] };
  }
  records.forEach((record, index) => {
    const event = events[index];
    if (!event) {
      others.push({ index, record });
      return;
    }
    const key = `${event.orgId}/${event.projectId}`;
    const group = groups.get(key) ?? [];
    group.push({ index, event });
    groups.set(key, group);
  });
  let activities = 0;
  let handled = 0;
  let firstFailedIndex: number | undefined;
  const errors: unknown[] = [];
  const fail = (index: number, err: unknown) => {
    errors.push(err);
    firstFailedIndex = firstFailedIndex === undefined ? index : Math.min(firstFailedIndex, index);
  };
  await Promise.all([
    ...others.map(async ({ index, record }) => {
      try {
        if ((await settleExpired(record)) || (await options.other?.(record))) handled++;
      } catch (err) {
        fail(index, err);
      }
    }),
    ...[...groups.values()].map(async (group) => {
      try {
        activities += await handleGroup(group, options);
        handled += group.length;
      } catch (err) {
        const failure = err as GroupFailure;
        handled += group.filter(({ index }) => index < failure.index).length;
        fail(failure.index, failure.cause);
      }
    }),
  ]);
  const failed = firstFailedIndex === undefined ? undefined : records[firstFailedIndex]?.dynamodb?.SequenceNumber;
  return { firstFailure: failed, events: handled, activities, errors };
}

import { createHash } from 'node:crypto';

import type { DynamoDBRecord } from 'aws-lambda';
import { getIssueFamily } from '../db/issues/issues.ts';

import { itemOfImage } from '../db/core/stream-images.ts';

import { allWebhooks, deliveryOfImage, insertDelivery, pendingDelivery, type WebhookFields } from '../db/webhooks/webhooks.ts';

import type { ChangeEvent } from '../feed/events.ts';

import { filterAdmits, filterApplies, filterNeeds } from './filter.ts';

import { deliveryQueue, type DeliveryMessage } from './queue.ts';
import { follows } from '../db/organisation/follows.ts';
import { notifyFollowers } from './follows.ts';
import { filterSubject } from './subject.ts';

/**
 * From change events to deliveries: for each active endpoint of the organisation that subscribes
 * to the event (and whose filter, if it has one, the event's issue matches), one delivery record
 * (its id derived from the stream record and the endpoint, so a replayed record finds it and sends
 * nothing new) and one queue message. Each endpoint's deliveries then go independently: a slow or
 * dead receiver holds up no other.
 */

/** The body every attempt of a delivery sends (Standard Webhooks: type, timestamp, data). */
export function payloadOf(event: ChangeEvent): string {
  const kind = event.type.split('.')[0] as string;
  return JSON.stringify({
    type: event.type,
    timestamp: event.at,
    data: {
      organisation_id: event.orgId,
      // 0: an event of the organisation (an export file's import), of no project.
      project_id: event.projectId || null,
      actor_id: event.actorId,
      [kind]: event.resource,
      changes: event.changes,
      // A revert's change (docs/activity.md): the id of the activity entry it reverted.
      ...(event.reverts === undefined ? {} : { reverts: event.reverts }),
    },
  });
}

/** `msg_` + 26 characters: stable for one stream record and one endpoint. */
export function deliveryIdOf(recordId: string, webhookId: number): string {
  return `msg_${createHash('sha256').update(`${recordId}/${webhookId}`).digest('base64url').slice(0, 26)}`;
}

/** Whether an endpoint takes events of `type`: those it names, and with `*` every one but `notification.created`. */
const subscribes = (w: WebhookFields, type: string) =>
  w.active && (w.events.includes(type) || (w.events.includes('*') && type !== 'notification.created'));

/**
 * Deletes that a parent's cascade made (an issue of a deleted sprint, the comments of a deleted
 * issue...) are reported by the parent's own event; only deletes of their own are events.
 */
async function deletedOnItsOwn(event: ChangeEvent): Promise<boolean> {
  const { orgId, projectId } = event;
  switch (event.type) {
    case 'sprint.deleted':
      return (await getIssueFamily(orgId, projectId, [])).project !== undefined;
    case 'issue.deleted': {
      const sprint = event.sprintId;
      const { project, sprints } = await getIssueFamily(orgId, projectId, sprint === undefined ? [] : [sprint]);
      return project !== undefined && (sprint === undefined || sprints.get(sprint) !== undefined);
    }
    case 'comment.deleted':
    case 'attachment.removed': {
      if (event.issueId === undefined) return false;
      const { project, issue } = await getIssueFamily(orgId, projectId, [], event.issueId);
      if (!project || !issue) return false;
      const sprint = issue.sprint_id;
      return typeof sprint !== 'number' || (await getIssueFamily(orgId, projectId, [sprint])).sprints.get(sprint) !== undefined;
    }
    default:
      return true;
  }
}

/** The endpoints among `targets` whose filter lets the event through. */
async function admitted<W extends WebhookFields>(event: ChangeEvent, targets: W[]): Promise<W[]> {
  const selections = targets.flatMap((w) => (w.filterSelection ? [w.filterSelection] : []));
  if (selections.length === 0 || !filterApplies(event.type)) return targets;
  const subject = await filterSubject(event, filterNeeds(selections));
  return targets.filter((w) => filterAdmits(w.filterSelection, subject));
}

export interface Publisher {
  publish(event: ChangeEvent): Promise<void>;
  /** A delivery whose redelivery was asked for (lib/services/webhooks.ts): queue its next attempt. */
  redeliver(record: DynamoDBRecord): Promise<boolean>;
}

/**
 * The delivery records of an event to its endpoints, in parallel (an organisation with many endpoints
 * holds up the stream consumer, and every other organisation's events behind it, for one write, not
 * one per endpoint); the messages to send: those of records just made, and those of a replayed
 * record whose message may not have been sent (at least once).
 */
async function recordDeliveries(event: ChangeEvent, targets: WebhookFields[]): Promise<DeliveryMessage[]> {
  const payload = payloadOf(event);
  const now = new Date().toISOString();
  const messages: DeliveryMessage[] = [];
  await Promise.all(
    targets.map(async (webhook) => {
      const id = deliveryIdOf(event.recordId, webhook.id);
      const { created, item } = await insertDelivery(
        pendingDelivery({ id, orgId: event.orgId, webhookId: webhook.id, event: event.type, payload, at: now }),
      );
      if (created || (item.status === 'pending' && item.attempts === 0)) {
        messages.push({
          orgId: event.orgId,
          webhookId: webhook.id,
          deliveryId: id,
          attempt: 1,
          firstAttemptAt: null,
          notBefore: 0,
          // An endpoint that keeps timing out waits in the slow lane (lib/model/fairness.ts).
          lane: webhook.lane,
        });
      }
    }),
  );
  return messages;
}

/** A read of an organisation's, made once and shared by every event of the batch that asks. */
function oncePerOrganisation<T>(read: (orgId: number) => Promise<T>): (orgId: number) => Promise<T> {
  const reads = new Map<number, Promise<T>>();
  return (orgId) => {
    let found = reads.get(orgId);
    if (!found) {
      found = read(orgId);
      reads.set(orgId, found);
    }
    return found;
  };
}

/**
 * A publisher for one batch of records: each organisation's endpoints, and the queries its accounts
 * follow, are read once per batch (and the latter only for an event a query can follow).
 */
export function batchPublisher(): Publisher {
  const endpointsOf = oncePerOrganisation(allWebhooks);
  const followsOf = oncePerOrganisation((orgId) => follows(orgId));
  return {
    async publish(event) {
      await notifyFollowers(event, () => followsOf(event.orgId));
      const subscribed = (await endpointsOf(event.orgId)).filter((w) => subscribes(w, event.type));
      if (subscribed.length === 0 || !(await deletedOnItsOwn(event))) return;
      const targets = await admitted(event, subscribed);
      if (targets.length === 0) return;
      const messages = await recordDeliveries(event, targets);
      if (messages.length > 0) await deliveryQueue().send(messages, 0);
    },

    async redeliver(record) {
      const image = record.dynamodb?.NewImage;
      if (record.eventName !== 'MODIFY' || !image) return false;
      const delivery = deliveryOfImage(itemOfImage(image));
      if (delivery?.status !== 'pending') return false;
      await deliveryQueue().send(
        [
          {
            orgId: delivery.orgId,
            webhookId: delivery.webhookId,
            deliveryId: delivery.id,
            attempt: delivery.attempts + 1,
            firstAttemptAt: null,
            notBefore: 0,
          },
        ],
        0,
      );
      return true;
    },
  };
}

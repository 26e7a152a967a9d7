import { sameStoredValue, type StoredValues } from '../model/custom-fields.ts';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { attachmentItem } from '../db/attachments/attachments.ts';
import { commentItem, toComment } from '../db/comments/comments.ts';

import { itemOfImage, orgOfItem } from '../db/core/stream-images.ts';

import { stampedActor } from '../db/core/stamps.ts';

import { importJobActor } from '../db/imports/import-jobs.ts';

import { issueItem } from '../db/issues/issue-item.ts';

import { sprintItem } from '../db/projects/sprints.ts';
import { labelItem } from '../db/issues/labels.ts';
import type { EventType } from '../vocabulary/event-types.ts';
import { stateOfIssue, statusAnswer, type Workflow } from '../model/workflow.ts';

import { statusKey, type StateCategory } from '../vocabulary/workflow.ts';
import { attachmentOfImage, toIssue, toLabel } from '../../lib/resources/issues.ts';
import { toWebhook } from '../../lib/resources/organisation.ts';
import { toNotification } from '../resources/notifications.ts';
import { notificationItem } from '../db/organisation/inbox.ts';
import { toProject, toSprint } from '../../lib/resources/projects.ts';

/**
 * The change feed's view of one stream record: what happened, to which resource, by whom, and
 * which fields changed. Pure: derived from the record's old and new images (the table's stream
 * carries both), so the activity history and the webhooks tell the same story.
 */

export { eventTypes, type EventType } from '../vocabulary/event-types.ts';

/** One changed field. `from`/`to` are absent where the value is not repeated (a description). */
export interface FieldChange {
  field: string;
  from?: unknown;
  to?: unknown;
  /** `labels`: the label ids the change added and removed. */
  added?: number[];
  removed?: number[];
}

export interface ChangeEvent {
  type: EventType;
  /** The stream record's sequence number: orders the events of one partition, names the event. */
  sequence: string;
  /** The stream record's id (unique per record). */
  recordId: string;
  orgId: number;
  /** 0 for an event of the organisation (an export file's import). */
  projectId: number;
  /**
   * When the change was made: the write's `updated_at`; for a delete, its marker's time
   * (lib/db/core/deletions.ts), or the record's time where there is no marker.
   */
  at: string;
  /**
   * The account that made the change. A delete leaves no image to stamp: its actor is its marker's
   * (`withDeletions`, lib/feed/consume.ts), null where there is none (a cascade, an operator).
   */
  actorId: number | null;
  /** The resource as the REST API shows it (as it was, for deletes). */
  resource: Record<string, unknown>;
  changes: FieldChange[];
  issueId?: number | undefined;
  sprintId?: number | undefined;
  commentId?: number | undefined;
  /** The id of the activity entry this change reverted (`POST /api/v1/activity/{activity_id}/revert`). */
  reverts?: string | undefined;
  /** What made the change, for an integration's: the pull request's URL (GitHub's status automation). */
  via?: string | undefined;
  /**
   * A change of an issue's description: the texts before and after, which the activity keeps for a
   * revert (lib/db/issues/activity.ts) and no payload repeats (the change says `description` alone).
   */
  description?: { before: string | null; after: string | null } | undefined;
  /** A changed comment's body before the change (whose mentions are not new: lib/feed/notify.ts). */
  bodyBefore?: string | undefined;
  /**
   * An issue event's custom field values as stored (by field id; none: absent): a stream record
   * holds the issue alone, so a filter's `cf.<key>:` names them through its project's fields
   * (lib/webhooks/subject.ts). No payload shows them in this form.
   */
  customFieldValues?: StoredValues | undefined;
}

type Image = Record<string, unknown>;

/** What names a stream record's event: its sequence number, and its id (unique per record). */
const recordNames = (record: DynamoDBRecord) => {
  const sequence = record.dynamodb?.SequenceNumber ?? '';
  return { sequence, recordId: record.eventID ?? sequence };
};

const image = (i: Record<string, AttributeValue> | undefined): Image | undefined => (i ? itemOfImage(i) : undefined);

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);

/**
 * Issue fields whose changes are reported with their old and new values, as the API names them,
 * each read through the issue's declaration (lib/db/issues/issue-item.ts): absent reads null, and an issue
 * written before priority, type and due date existed holds their defaults (`type` is stored as
 * `issue_type`).
 */
const issueValueFields = [
  ['title', 'title'],
  ['status', 'status'],
  ['state_id', 'stateId'],
  ['story_points', 'storyPoints'],
  ['assignee_id', 'assigneeId'],
  ['sprint_id', 'sprintId'],
  ['parent_id', 'parentId'],
  ['priority', 'priority'],
  ['type', 'type'],
  ['due_date', 'dueDate'],
] as const satisfies readonly (readonly [string, keyof typeof issueItem.attributes])[];

/**
 * A value of an image as stored, by the declared stored name of the field (absent: undefined): where
 * an absent attribute and its default differ (a revision, a position not yet written).
 */
const storedValue = (img: Image, field: keyof typeof issueItem.attributes) => img[issueItem.stored(field)];

/** An issue image's label ids, in order (a number set in the image; none: absent or null). */
export const labelIdsOf = (img: Image): number[] => issueItem.attributes.labelIds.read(img[issueItem.stored('labelIds')]);

/** What a user write changed on an issue (counters and list bookkeeping are not changes). */
export function issueChanges(before: Image, after: Image): FieldChange[] {
  const changes: FieldChange[] = [];
  const value = (img: Image, f: keyof typeof issueItem.attributes) => issueItem.field(img, f) ?? null;
  for (const [field, declared] of issueValueFields) {
    const [from, to] = [value(before, declared), value(after, declared)];
    if (from !== to) changes.push({ field, from, to });
  }
  if (value(before, 'description') !== value(after, 'description')) changes.push({ field: 'description' });
  // Labels as ids (a stream record holds no catalogue; GET …/labels names them). Only a user's write
  // moves `rev`: the cascade of a label's delete taking it off is no change of the issue's own.
  const [labelsBefore, labelsAfter] = [labelIdsOf(before), labelIdsOf(after)];
  const revised = storedValue(before, 'rev') !== storedValue(after, 'rev');
  if (revised && labelsBefore.join() !== labelsAfter.join()) {
    const added = labelsAfter.filter((id) => !labelsBefore.includes(id));
    const removed = labelsBefore.filter((id) => !labelsAfter.includes(id));
    changes.push({ field: 'labels', from: labelsBefore, to: labelsAfter, added, removed });
  }
  changes.push(...valueChanges(before, after, revised));
  // Renumbering neighbours moves their position without a revision; only the issue a client
  // moved bumps `rev`. The place a client sees is not stored (positions are sparse), so a move
  // is reported without one, unless it came with a change of list (sprint_id says where).
  const moved = storedValue(before, 'position') !== storedValue(after, 'position') && revised;
  if (moved && !changes.some((c) => c.field === 'sprint_id')) changes.push({ field: 'position' });
  changes.push(...relationChanges(before, after));
  return changes;
}

/** An issue image's custom fields' values, by field id (options by id): a stream record holds no definitions. */
export const customValuesOf = (img: Image): StoredValues => issueItem.field(img, 'customFields');

/**
 * A user write's change of custom fields (`revised`: it moved `rev`; a cascade settling a deleted
 * field's values is no change of the issue's own): the fields it changed, by id, before and after.
 */
function valueChanges(before: Image, after: Image, revised: boolean): FieldChange[] {
  if (!revised) return [];
  const [from, to] = [customValuesOf(before), customValuesOf(after)];
  const ids = [...new Set([...Object.keys(from), ...Object.keys(to)])].filter((id) => !sameStoredValue(from[id], to[id]));
  if (ids.length === 0) return [];
  const side = (values: StoredValues) => Object.fromEntries(ids.sort().map((id) => [id, values[id] ?? null]));
  return [{ field: 'custom_fields', from: side(from), to: side(to) }];
}

/**
 * The entry a write reverted: the mark a revert leaves on the issue (lib/db/issues/issue-item.ts) names
 * the write that made the revision it carries, and no later one.
 */
export function revertedBy(before: Image, after: Image): string | undefined {
  const mark = issueItem.attributes.reverted.read(after[issueItem.stored('reverted')]);
  const rev = issueItem.field(after, 'rev');
  if (!mark || mark.rev !== rev || issueItem.field(before, 'rev') === rev) return undefined;
  return mark.entry;
}

/** What made an issue's change, when an integration's write marked it (`IssueWrite.via`): the pull request's URL. */
export function madeVia(before: Image, after: Image): string | undefined {
  const mark = issueItem.attributes.changedVia.read(after[issueItem.stored('changedVia')]);
  const rev = issueItem.field(after, 'rev');
  if (!mark || mark.rev !== rev || issueItem.field(before, 'rev') === rev) return undefined;
  return mark.url;
}

type StoredRelation = { type: string; issue_id: number; issue_number: string; project_id: number };

/**
 * Relations added (`from` null) or removed (`to` null), each as the issue sees it: its id, type
 * and the other issue. Both issues of a relation are written together, so both report it.
 */
export function relationChanges(before: Image, after: Image): FieldChange[] {
  // As stored, with the other issue's number, which the declaration's `relations` leaves out.
  const of = (img: Image) => (storedValue(img, 'relations') ?? {}) as Record<string, StoredRelation>;
  const was = of(before);
  const is = of(after);
  const shown = (id: string, r: StoredRelation) => ({
    id,
    type: r.type,
    issue: { id: r.issue_id, issue_number: r.issue_number, project_id: r.project_id },
  });
  const changes: FieldChange[] = [];
  for (const id of Object.keys(is).sort()) {
    if (!(id in was)) changes.push({ field: 'relations', from: null, to: shown(id, is[id] as StoredRelation) });
  }
  for (const id of Object.keys(was).sort()) {
    if (!(id in is)) changes.push({ field: 'relations', from: shown(id, was[id] as StoredRelation), to: null });
  }
  return changes;
}

/**
 * An issue event with its states named by its project's workflow (docs/workflows.md): a stream
 * record holds the issue alone, with its state's id and category, so the consumer reads the
 * project and names them here. The resource answers as a GET does (`status` the state's name,
 * `allowed_next_states`); a change of state is `status` from and to the states' names (a move
 * within a category included), `state_id` from and to their ids, and `status_category` when the
 * category changed. Without a workflow (a project gone meanwhile) the event stays as recorded.
 */
export function withStateNames(event: ChangeEvent, workflow: Workflow | undefined): ChangeEvent {
  if (!workflow || workflow.states.length === 0 || !event.type.startsWith('issue.')) return event;
  const issue = event.resource as { state_id?: number | null; status_category?: StateCategory; blocked?: boolean };
  if (issue.status_category === undefined) return event;
  const resource = { ...event.resource, ...statusAnswer(workflow, issue.state_id, issue.status_category, issue.blocked) };
  const byCategory = event.changes.find((c) => c.field === 'status');
  const byId = event.changes.find((c) => c.field === 'state_id');
  if (!byCategory && !byId) return { ...event, resource };
  const toCategory = issue.status_category;
  const fromCategory = (byCategory?.from as StateCategory | undefined) ?? toCategory;
  const from = stateOfIssue(workflow, byId ? (byId.from as number | null) : issue.state_id, fromCategory);
  const to = stateOfIssue(workflow, issue.state_id, toCategory);
  const named: FieldChange[] = [];
  if (from && to && from.id !== to.id) {
    named.push({ field: 'status', from: statusKey(from.name), to: statusKey(to.name) });
    named.push({ field: 'state_id', from: from.id, to: to.id });
  }
  if (fromCategory !== toCategory) named.push({ field: 'status_category', from: fromCategory, to: toCategory });
  const at = event.changes.indexOf(byCategory ?? byId!);
  const rest = event.changes.filter((c) => c !== byCategory && c !== byId);
  const changes = [...rest.slice(0, at), ...named, ...rest.slice(at)];
  return { ...event, resource, changes };
}

/**
 * The event a stream record stands for, or undefined for records that are no user-visible change
 * (counters, tokens, activity items themselves, children removed by a cascade are decided later).
 */
export function changeEventOf(record: DynamoDBRecord): ChangeEvent | undefined {
  const before = image(record.dynamodb?.OldImage);
  const after = image(record.dynamodb?.NewImage);
  const current = after ?? before;
  if (!current) return undefined;
  if (current.type === 'import_job') return importCompletedOf(record, before, after);
  if (current.type === 'trash') return trashRemovedOf(record, current);
  if (current.type === 'notification') return notificationCreatedOf(record, after);
  const orgId = orgOfItem(current);
  const id = num(current.id);
  const kind = current.type;
  const projectId = kind === 'project' ? id : num(current.project_id);
  if (orgId === undefined || id === undefined || projectId === undefined) return undefined;
  const deletedAt = recordTimeOf(record);
  // Inserts and updates made outside a request (the admin CLI, data seeded or migrated) carry no
  // actor: they are no one's change and are not reported. Deletes carry none in their image.
  if (after && stampedActor(after) === undefined) return undefined;
  const change: ItemChange = {
    event: record.eventName,
    before,
    after,
    current,
    id,
    deletedAt,
    base: { ...recordNames(record), orgId, projectId },
  };
  switch (kind) {
    case 'issue':
      return issueEventOf(change);
    case 'comment':
      return commentEventOf(change);
    case 'attachment':
      return attachmentEventOf(change);
    case 'sprint':
      return sprintEventOf(change);
    case 'project':
      if (record.eventName !== 'REMOVE') return undefined;
      return { ...change.base, ...removedAt(change.deletedAt), type: 'project.deleted', resource: toProject(current) };
    default:
      return undefined;
  }
}

/** One item's stream record, as each kind's event is decided from it. */
interface ItemChange {
  event: DynamoDBRecord['eventName'];
  before: Image | undefined;
  after: Image | undefined;
  /** The new image, or the old one of a removal. */
  current: Image;
  id: number;
  /** The record's time: a removal's, and a change that leaves `updated_at` as it was. */
  deletedAt: string;
  base: { sequence: string; recordId: string; orgId: number; projectId: number };
}

/** When and by whom an image was written (`at`: the record's time, for an image without `updated_at`). */
const stampOf = (img: Image, at: string) => ({ at: String(img.updated_at ?? at), actorId: stampedActor(img) ?? null });

/** When a stream record was written (its approximate time; now, for a record without one). */
const recordTimeOf = (record: DynamoDBRecord) => {
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return new Date(seconds ? seconds * 1000 : Date.now()).toISOString();
};

/** A removal's time, actor (none) and changes (none). */
const removedAt = (at: string): { at: string; actorId: null; changes: [] } => ({ at, actorId: null, changes: [] });

function issueEventOf({ event, before, after, current, id, deletedAt, base }: ItemChange): ChangeEvent | undefined {
  // Without `position`: an issue's place depends on the whole list when it is read (GET the
  // issue for it); a stream record holds the issue alone (docs/change-feed.md).
  // Labels as ids, `label_ids`: a stream record holds the issue alone, not its project's catalogue.
  // Its custom fields' values by field id too, `custom_field_values`, for the same reason.
  const { position: _place, labels: _labels, custom_fields: _values, ...shown } = toIssue(current, 0);
  const values = customValuesOf(current);
  const issue = { ...shown, label_ids: labelIdsOf(current), custom_field_values: values };
  const ids = {
    issueId: id,
    sprintId: issue.sprint_id ?? undefined,
    ...(Object.keys(values).length > 0 ? { customFieldValues: values } : {}),
  };
  if (event === 'INSERT' && after) {
    // An issue back from the trash: its event is the trash item's removal (`issue.restored`).
    if (issueItem.field(after, 'restoredAt') !== undefined) return undefined;
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'issue.created', resource: issue, changes: [] };
  }
  if (event === 'REMOVE') return { ...base, ...ids, ...removedAt(deletedAt), type: 'issue.deleted', resource: issue };
  if (!before || !after) return undefined;
  const changes = issueChanges(before, after);
  if (changes.length === 0) return undefined;
  // A change of relations alone leaves `updated_at` as it was: its time is the record's.
  const at = changes.every((c) => c.field === 'relations') ? { at: deletedAt } : {};
  const via = madeVia(before, after);
  const reverts = revertedBy(before, after);
  const text = (img: Image) => issueItem.field(img, 'description');
  const described = changes.some((c) => c.field === 'description');
  return {
    ...base,
    ...ids,
    ...stampOf(after, deletedAt),
    ...at,
    type: 'issue.updated',
    resource: issue,
    changes,
    ...(reverts === undefined ? {} : { reverts }),
    ...(via === undefined ? {} : { via }),
    ...(described ? { description: { before: text(before), after: text(after) } } : {}),
  };
}

/**
 * A notification written to an inbox (lib/feed/notify.ts): `notification.created`, its resource the
 * notification as the inbox shows it, with the account it is for. Its later changes (read, hidden) are no event.
 */
function notificationCreatedOf(record: DynamoDBRecord, after: Image | undefined): ChangeEvent | undefined {
  const orgId = after && orgOfItem(after);
  if (record.eventName !== 'INSERT' || !after || orgId === undefined) return undefined;
  const note = notificationItem.decode(after);
  return {
    type: 'notification.created',
    ...recordNames(record),
    orgId,
    projectId: note.projectId,
    issueId: note.issueId,
    at: note.createdAt,
    actorId: note.actorId,
    resource: { ...toNotification(note), account_id: note.accountId },
    changes: [],
  };
}

function commentEventOf({ event, before, after, current, id, deletedAt, base }: ItemChange): ChangeEvent | undefined {
  // A comment always names its issue; an item that does not is no comment a client wrote, and
  // must not stop the feed behind it.
  const issueId = num(current[commentItem.stored('issueId')]);
  if (issueId === undefined) return undefined;
  const comment = toComment(current);
  // The issue's sprint as the comment's write recorded it (lib/db/comments/comments.ts); a delete's is
  // its marker's (lib/feed/consume.ts).
  const ids = { issueId, commentId: id, sprintId: commentItem.field(current, 'sprintId') ?? undefined };
  if (event === 'INSERT' && after) {
    // A comment back from the trash: its event is the trash item's removal (`comment.restored`).
    if (commentItem.field(after, 'restoredAt') !== undefined) return undefined;
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'comment.created', resource: comment, changes: [] };
  }
  if (event === 'REMOVE') return { ...base, ...ids, ...removedAt(deletedAt), type: 'comment.deleted', resource: comment };
  if (!before || !after || commentItem.field(before, 'body') === commentItem.field(after, 'body')) return undefined;
  return {
    ...base,
    ...ids,
    ...stampOf(after, deletedAt),
    type: 'comment.updated',
    resource: comment,
    changes: [{ field: 'body' }],
    bodyBefore: commentItem.field(before, 'body'),
  };
}

function attachmentEventOf({ event, before, after, current, deletedAt, base }: ItemChange): ChangeEvent | undefined {
  const attachment = attachmentOfImage(current);
  if (!attachment) return undefined;
  const ids = { issueId: attachment.issue_id, commentId: attachment.comment_id ?? undefined };
  // Added when it becomes ready (its file uploaded and checked); removed when a ready one goes:
  // for good, or into the trash (its mark). Its restore and purge are its trash item's removal
  // (`attachment.restored`, `attachment.purged`), and its removal then is none.
  const status = (img: Image | undefined) => img && attachmentItem.field(img, 'status');
  const trashed = (img: Image | undefined) => img !== undefined && attachmentItem.field(img, 'trashedAt') !== null;
  if (event === 'MODIFY' && after && status(before) === 'pending' && status(after) === 'ready') {
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'attachment.added', resource: attachment, changes: [] };
  }
  if (event === 'MODIFY' && after && !trashed(before) && trashed(after)) {
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'attachment.removed', resource: attachment, changes: [] };
  }
  if (event === 'REMOVE' && status(before) === 'ready' && !trashed(before)) {
    return { ...base, ...ids, ...removedAt(deletedAt), type: 'attachment.removed', resource: attachment };
  }
  return undefined;
}

function sprintEventOf({ event, before, after, current, id, deletedAt, base }: ItemChange): ChangeEvent | undefined {
  const sprint = toSprint(current);
  const ids = { sprintId: id };
  if (event === 'REMOVE') return { ...base, ...ids, ...removedAt(deletedAt), type: 'sprint.deleted', resource: sprint };
  if (event !== 'MODIFY' || !before || !after) return undefined;
  const [from, to] = [sprintItem.field(before, 'status'), sprintItem.field(after, 'status')];
  if (from === to) return undefined;
  const changes = [{ field: 'status', from, to }];
  if (to === 'active')
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'sprint.activated', resource: sprint, changes };
  if (to === 'completed')
    return { ...base, ...ids, ...stampOf(after, deletedAt), type: 'sprint.completed', resource: sprint, changes };
  return undefined;
}

/**
 * `<kind>.purged`: a trash item removed (docs/trash.md), the item as it was stored shown as its own
 * route answers it (a webhook without its secret). A purge's marker names its actor; a removal by
 * the TTL has none (`actor_id` null, the record's time). A restore's removal is the same record:
 * its marker says so, and `withDeletions` (lib/feed/consume.ts) makes it `<kind>.restored`.
 */
function trashRemovedOf(record: DynamoDBRecord, trashed: Image): ChangeEvent | undefined {
  const stored = trashed.stored as Image | undefined;
  if (record.eventName !== 'REMOVE' || !stored) return undefined;
  const orgId = orgOfItem(stored);
  if (orgId === undefined) return undefined;
  const base = { ...recordNames(record), orgId, ...removedAt(recordTimeOf(record)) };
  switch (trashed.kind) {
    case 'label': {
      const projectId = num(stored[labelItem.stored('projectId')]);
      if (projectId === undefined) return undefined;
      return { ...base, projectId, type: 'label.purged', resource: { ...toLabel(stored) } };
    }
    case 'webhook':
      // 0: an event of the organisation, of no project (as an export file's import).
      return { ...base, projectId: 0, type: 'webhook.purged', resource: { ...toWebhook(stored) } };
    case 'comment': {
      const projectId = num(stored[commentItem.stored('projectId')]);
      const issueId = num(stored[commentItem.stored('issueId')]);
      const commentId = num(stored.id);
      if (projectId === undefined || issueId === undefined) return undefined;
      const sprintId = commentItem.field(stored, 'sprintId') ?? undefined;
      const ids = { issueId, commentId, sprintId };
      return { ...base, ...ids, projectId, type: 'comment.purged', resource: { ...toComment(stored) } };
    }
    case 'attachment': {
      const attachment = attachmentOfImage(stored);
      if (!attachment) return undefined;
      const projectId = attachmentItem.field(stored, 'projectId');
      const ids = { issueId: attachment.issue_id, commentId: attachment.comment_id ?? undefined };
      return { ...base, ...ids, projectId, type: 'attachment.purged', resource: attachment };
    }
    case 'issue': {
      const projectId = num(stored[issueItem.stored('projectId')]);
      const issueId = num(stored[issueItem.stored('id')]);
      if (projectId === undefined || issueId === undefined) return undefined;
      // As its other events show it: without its place, its labels as ids.
      const { position: _place, labels: _labels, custom_fields: _values, ...shown } = toIssue(stored, 0);
      const ids = { issueId, sprintId: shown.sprint_id ?? undefined };
      const resource = { ...shown, label_ids: labelIdsOf(stored), custom_field_values: customValuesOf(stored) };
      return { ...base, ...ids, projectId, type: 'issue.purged', resource };
    }
    case 'sprint': {
      const projectId = num(stored[sprintItem.stored('projectId')]);
      const sprintId = num(stored.id);
      if (projectId === undefined || sprintId === undefined) return undefined;
      return { ...base, sprintId, projectId, type: 'sprint.purged', resource: toSprint(stored) };
    }
    case 'project': {
      const projectId = num(stored.id);
      if (projectId === undefined) return undefined;
      return { ...base, projectId, type: 'project.purged', resource: toProject(stored) };
    }
    default:
      return undefined;
  }
}

/** What a trash item's removal is when its marker says a restore made it. */
const restoredTypes: Partial<Record<EventType, EventType>> = {
  'label.purged': 'label.restored',
  'webhook.purged': 'webhook.restored',
  'comment.purged': 'comment.restored',
  'attachment.purged': 'attachment.restored',
  'issue.purged': 'issue.restored',
  'sprint.purged': 'sprint.restored',
  'project.purged': 'project.restored',
};

/** The event of a trash item's removal that a restore made (`<kind>.restored`); others as they are. */
export const asRestored = (event: ChangeEvent): ChangeEvent => {
  const type = restoredTypes[event.type];
  return type ? { ...event, type } : event;
};

/**
 * `import.completed`: an import job that ended (its status written `succeeded` or `failed`), once
 * per job whatever the number of issues, with its counts: the whole job's, as its report says
 * (or, without one, its progress). The actor is the account that uploaded it.
 */
function importCompletedOf(record: DynamoDBRecord, before: Image | undefined, after: Image | undefined): ChangeEvent | undefined {
  const status = after?.status;
  if (record.eventName !== 'MODIFY' || !after || before?.status === status || (status !== 'succeeded' && status !== 'failed'))
    return undefined;
  const orgId = orgOfItem(after);
  if (orgId === undefined || typeof after.id !== 'string') return undefined;
  const report = (after.report ?? null) as Record<string, unknown> | null;
  const progress = (after.progress ?? {}) as Record<string, unknown>;
  const projects =
    report && typeof report.projects === 'object' ? Object.values(report.projects as Record<string, Image>) : undefined;
  const sum = (field: string) =>
    projects ? projects.reduce((total, p) => total + Number(p[field] ?? 0), 0) : Number(report?.[field] ?? progress[field] ?? 0);
  return {
    type: 'import.completed',
    ...recordNames(record),
    orgId,
    projectId: num(after.project_id) ?? 0,
    at: String(after.updated_at),
    actorId: num(importJobActor(after)) ?? null,
    resource: {
      id: after.id,
      status,
      format: after.format,
      project_id: num(after.project_id) ?? null,
      dry_run: Boolean(after.dry_run),
      rows: Number(report?.rows ?? report?.lines ?? progress.rows ?? 0),
      created: sum('created'),
      already_imported: sum('already_imported'),
      rejected: sum('rejected'),
      comments: Number(report?.comments ?? 0),
      warnings: projects
        ? projects.reduce((total, p) => total + ((p.warnings as unknown[] | undefined)?.length ?? 0), 0)
        : ((report?.warnings as unknown[] | undefined)?.length ?? 0),
      error: (after.error as string | null | undefined) ?? null,
    },
    changes: [],
  };
}

/** Item types whose writes the change feed reads (the stream filter of its consumer). */
export const feedTypes = ['project', 'sprint', 'issue', 'comment', 'attachment'] as const;

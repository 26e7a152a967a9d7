import fc from 'fast-check';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { getAttachment, markReady, pendingCounts } from '../../lib/db/attachments/attachments.ts';
import { attachmentCounterDifferences, readAttachmentCounters } from '../../lib/jobs/attachment-counters.ts';
import {
  releaseExpiredAttachment,
  releaseTrashedAttachment,
  settleCommentAttachments,
} from '../../lib/jobs/attachment-settling.ts';
import { getTrashed } from '../../lib/db/core/trash.ts';
import { isRefused } from '../../lib/db/core/transactions.ts';
import type { AttachmentCounters } from '../../lib/model/attachments.ts';
import { cascade } from '../../lib/jobs/cascade.ts';
import { createAttachment, deleteAttachment } from '../../lib/services/attachments.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, orgPk } from '../../lib/db/core/keys.ts';
import { scanPages } from '../../lib/db/core/query.ts';
import { readDerivedState, derivedDifferences as liveDifferences, type StoredDerivedState } from '../../lib/jobs/reindex.ts';
import { createComment, deleteComment } from '../../lib/services/comments.ts';
import { addRelation, removeRelation } from '../../lib/services/relations.ts';
import { relationInverse, relationTypes, type RelationType } from '../../lib/schemas/relations.ts';
import { bulkWrite } from '../../lib/services/bulk.ts';
import { createIssue, deleteIssue, updateIssue } from '../../lib/services/issues.ts';
import { purge, restore } from '../../lib/services/trash.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createLabel } from '../../lib/services/labels.ts';
import { createProject, deleteProject } from '../../lib/services/projects.ts';
import { activateSprint, completeSprint, createSprint, deleteSprint } from '../../lib/services/sprints.ts';
import type { IssuePriority, IssueStatus, IssueType } from '../../lib/schemas/issues.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * Every issue write path against the rebuild (lib/model/derivations.ts): random sequences of
 * issue operations (create in a sprint or the backlog, update of each field (priority, type and due
 * date included), moves within and across lists, a parent set or cleared (with or without a status
 * change), delete into the trash, its restore (with its relations, parent and children where they
 * still are) and its purge (a parent's cascade clearing its children's parent), creates written together
 * (bulk writes, one of them perhaps refused), sprint activation and
 * completion with carry-over, sprint and project deletes with their cascades, comments, relations
 * added and removed, also to issues of other projects, some of whose projects are deleted later),
 * some of them run two at a time, on DynamoDB Local; after each sequence the derived state in the
 * table must equal what every derivation rebuilds from the issues (a parent's summary and a blocked
 * issue's `open_blockers` included), comments' counts and pointers must match the comments, the attachment counters (an
 * organisation's bytes, an issue's files) what their attachments count (attachments declared on
 * issues and comments, made ready, deleted (a ready one into the trash on its own, restored or
 * purged there), expired by their TTL with the stream record replayed, kept in the
 * trash with their comment and back at its restore, gone with its purge, or with their issue, sprint
 * or project), the pending counts of the organisation and its uploader what its pending
 * attachments hold, each comment's attachments marked as where it is (in the trash, or not), and
 * every relation must be on its other issue with the inverse type. A difference fails, naming the
 * derivation.
 *
 * Each sequence starts from two sprints (one active) and six issues across the three lists, so that
 * every operation has something to act on. Bounded for CI: SEQUENCES sequences of at most MAX_OPS
 * operations (about 20 s on an idle two-core machine before relations joined; 109 s measured with
 * them on a two-core machine at a load average of about 17; the test allows 240 s).
 */
const SEQUENCES = 12;
// One account declares every sequence's files and completes none: no cap of pending ones (docs/limits.md) stops them here.
process.env.ATTACHMENT_MAX_PENDING_PER_ACCOUNT = '100000';
process.env.ATTACHMENT_MAX_PENDING_PER_ORGANISATION = '100000';
const MAX_OPS = 14;

const STATUSES: IssueStatus[] = ['backlog', 'todo', 'in_progress', 'done', 'cancelled'];

/** Priority, type and due date an issue is created or updated with (the assignee index carries them). */
interface Classified {
  priority?: IssuePriority;
  type?: IssueType;
  due?: string | null;
}

type Op =
  | ({
      kind: 'create';
      list: number;
      status: IssueStatus;
      points: number | null;
      assignee: number;
      parent: number | null;
    } & Classified)
  | ({
      kind: 'update';
      issue: number;
      status?: IssueStatus;
      points?: number | null;
      assignee?: number;
      title?: boolean;
      /** Label names of the project's catalogue (the search index carries the ids). */
      labels?: string[];
    } & Classified)
  | { kind: 'move'; issue: number; list: number; position?: number | undefined }
  | { kind: 'delete'; issue: number }
  /** A deleted issue (in the trash) brought back, or purged with its cascade (docs/trash.md). */
  | { kind: 'restore'; issue: number }
  | { kind: 'purge'; issue: number }
  /** A delete and its restore at once: the derived state must be as it was (checked when run alone). */
  | { kind: 'roundTrip'; issue: number }
  | { kind: 'parent'; issue: number; parent: number | null; status?: IssueStatus | undefined }
  | { kind: 'sprint' }
  | { kind: 'activate'; sprint: number }
  | { kind: 'complete'; sprint: number; carry: number }
  | { kind: 'deleteSprint'; sprint: number }
  /** A sprint deleted into the trash (its issues taken out) brought back whole, or purged with its cascade. */
  | { kind: 'restoreSprint'; sprint: number }
  | { kind: 'purgeSprint'; sprint: number }
  /** A sprint's delete and its restore at once: the derived state must be as it was (checked when run alone). */
  | { kind: 'sprintRoundTrip'; sprint: number }
  | { kind: 'comment'; issue: number }
  /** A comment deleted into the trash (with its attachments), brought back, or purged. */
  | { kind: 'uncomment'; comment: number }
  | { kind: 'recomment'; comment: number }
  | { kind: 'purgeComment'; comment: number }
  | { kind: 'relate'; issue: number; other: number; type: RelationType }
  /** A pending attachment declared on an issue (or on one of the sequence's comments). */
  | { kind: 'attach'; issue: number; comment: number | null; size: number }
  /** Its file uploaded and completed (made ready: a ready one's delete moves it into the trash). */
  | { kind: 'ready'; attachment: number }
  | { kind: 'detach'; attachment: number }
  /** An attachment trashed on its own, brought back, or purged (with what the consumer does at its purge). */
  | { kind: 'restoreFile'; attachment: number }
  | { kind: 'purgeFile'; attachment: number }
  /** A pending attachment removed by its TTL, the stream's record of it handled twice (a replay). */
  | { kind: 'expire'; attachment: number }
  | { kind: 'unrelate'; issue: number; relation: number }
  /** Creates into one list written together (lib/services/bulk.ts), one of them perhaps refused. */
  | { kind: 'bulk'; list: number; items: { status: IssueStatus; points: number | null; assignee: number }[] }
  | { kind: 'parallel'; ops: Op[] };

const index = fc.nat({ max: 9 });
const classified = {
  priority: fc.constantFrom<IssuePriority>('none', 'low', 'urgent'),
  type: fc.constantFrom<IssueType>('task', 'bug'),
  due: fc.constantFrom('2027-01-01', '2027-06-30', null),
};
const classification = (o: Classified) => ({
  ...(o.priority ? { priority: o.priority } : {}),
  ...(o.type ? { type: o.type } : {}),
  ...(o.due !== undefined ? { due_date: o.due } : {}),
});
const single: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('bulk' as const),
      list: index,
      items: fc.array(
        fc.record({ status: fc.constantFrom(...STATUSES), points: fc.option(fc.nat({ max: 8 })), assignee: fc.nat({ max: 3 }) }),
        { minLength: 2, maxLength: 4 },
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('create' as const),
        list: index,
        status: fc.constantFrom(...STATUSES),
        points: fc.option(fc.nat({ max: 8 })),
        assignee: fc.nat({ max: 2 }),
        parent: fc.option(index),
        ...classified,
      },
      { requiredKeys: ['kind', 'list', 'status', 'points', 'assignee', 'parent'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        kind: fc.constant('update' as const),
        issue: index,
        status: fc.constantFrom(...STATUSES),
        points: fc.option(fc.nat({ max: 8 })),
        assignee: fc.nat({ max: 2 }),
        title: fc.boolean(),
        labels: fc.subarray(['a', 'b']),
        ...classified,
      },
      { requiredKeys: ['kind', 'issue'] },
    ),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('move' as const),
      issue: index,
      list: index,
      position: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), issue: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('restore' as const), issue: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const), issue: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('roundTrip' as const), issue: index }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('parent' as const),
      issue: index,
      parent: fc.option(index, { freq: 4 }),
      status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'sprint' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('activate' as const), sprint: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), sprint: index, carry: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteSprint' as const), sprint: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restoreSprint' as const), sprint: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purgeSprint' as const), sprint: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('sprintRoundTrip' as const), sprint: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('comment' as const), issue: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('uncomment' as const), comment: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('recomment' as const), comment: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purgeComment' as const), comment: index }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('relate' as const),
      issue: index,
      // Beyond this sequence's issues: those of earlier sequences' projects (other projects).
      other: fc.nat({ max: 14 }),
      type: fc.constantFrom(...relationTypes),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unrelate' as const), issue: index, relation: index }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('attach' as const),
      issue: index,
      comment: fc.option(index),
      size: fc.integer({ min: 1, max: 5000 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('ready' as const), attachment: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('detach' as const), attachment: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restoreFile' as const), attachment: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purgeFile' as const), attachment: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), attachment: index }) },
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: single },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('parallel' as const), ops: fc.array(single, { minLength: 2, maxLength: 3 }) }),
  },
);

interface World {
  caller: Principal;
  accounts: (number | null)[];
  projectId: number;
  sprints: number[];
  issues: number[];
  comments: number[];
  /** The issue of each comment. */
  commentIssues: Map<number, number>;
  /** Comments deleted into the trash, not yet restored or purged. */
  trashedComments: number[];
  /** Attachments declared: their issue's number and their key. */
  attachments: { number: string; issueId: number; id: number }[];
  /** Attachments deleted into the trash on their own (as far as the sequence knows: their issue or comment may have taken them since). */
  trashedFiles: { number: string; issueId: number; id: number }[];
  /** Issue numbers by id, and those of earlier sequences (other projects) that may still exist. */
  numbers: Map<number, string>;
  earlier: string[];
  /** Issues deleted into the trash, not yet restored or purged. */
  trashed: number[];
  /** Sprints deleted into the trash, not yet restored or purged. */
  trashedSprints: number[];
  /** What a delete and its restore run alone changed of the derived state (nothing, when right). */
  roundTrips: string[];
  /** Restores and purges that went through, per kind; comments' attachments moved into the trash, back or away. */
  done: Record<
    | 'restore'
    | 'purge'
    | 'roundTrip'
    | 'commentFiles'
    | 'restoreSprint'
    | 'purgeSprint'
    | 'sprintRoundTrip'
    | 'restoreFile'
    | 'purgeFile',
    number
  >;
}

/**
 * Restores trashed sprint `sprint` (docs/trash.md): its restore begins, then its pending cascade's
 * stream record puts its issues back and the sprint with them (run here, as the consumer runs it).
 */
async function restoreSprint(w: World, sprint: number): Promise<void> {
  await restore(w.caller, `sprint-${sprint}`);
  await cascade({ kind: 'sprint', orgId: w.caller.orgId, projectId: w.projectId, sprintId: sprint });
  w.trashedSprints = w.trashedSprints.filter((s) => s !== sprint);
  w.sprints.push(sprint);
}

const pick = <T>(all: T[], i: number): T | undefined => (all.length === 0 ? undefined : all[i % all.length]);

/** The list (null: backlog) the n-th choice names: the backlog or one of the sprints made so far. */
const listOf = (w: World, i: number): number | null => (i % (w.sprints.length + 1) === 0 ? null : (pick(w.sprints, i) ?? null));

const issueItem = async (w: World, issueId: number) =>
  (
    await db.send(
      new GetCommand({ TableName: tableName(), Key: keys.issue(w.caller.orgId, w.projectId, issueId), ConsistentRead: true }),
    )
  ).Item;

/** Where an issue is now (it may have been moved by a completion), or undefined when gone. */
async function locate(w: World, issueId: number) {
  const item = await issueItem(w, issueId);
  if (!item) return undefined;
  return { projectId: w.projectId, sprintId: (item.sprint_id as number | null | undefined) ?? null };
}

/**
 * The table's derived state (counters at zero left out: a delete and its restore leave some there;
 * so are the stamps of who wrote an item last and its version, which are no derivation's: a
 * sprint's restore, finished for whoever restored it, stamps them).
 */
async function derivedSnapshot(orgId: number): Promise<string> {
  const { observed } = await readDerivedState(orgId);
  const holders = [...observed.holders.entries()]
    .map(
      ([id, h]) =>
        [
          id,
          Object.fromEntries(
            Object.entries(h.attrs)
              .filter(([name, v]) => v !== 0 && name !== 'version' && name !== 'updated_by')
              .sort(),
          ),
        ] as const,
    )
    .sort(([a], [b]) => (a < b ? -1 : 1));
  const records = [...observed.records.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify({ holders, records });
}

async function run(w: World, o: Op, alone = true): Promise<void> {
  const { caller } = w;
  switch (o.kind) {
    case 'create': {
      const at = { projectId: w.projectId, sprintId: listOf(w, o.list) };
      const issue = await createIssue(caller, at, {
        title: 't',
        status: o.status,
        story_points: o.points,
        assignee_id: pick(w.accounts, o.assignee) ?? null,
        ...classification(o),
        parent_id: o.parent === null ? null : (pick(w.issues, o.parent) ?? null),
      });
      w.issues.push(issue.id);
      w.numbers.set(issue.id, issue.issue_number);
      return;
    }
    case 'bulk': {
      const at = { projectId: w.projectId, sprintId: listOf(w, o.list) };
      const ops = o.items.map((item) => ({
        kind: 'create' as const,
        at,
        // Assignee 3 names nobody: that item alone is refused.
        fields: {
          title: 't',
          status: item.status,
          story_points: item.points,
          assignee_id: item.assignee === 3 ? 999_999 : (pick(w.accounts, item.assignee) ?? null),
        },
      }));
      for (const outcome of await bulkWrite(caller, ops)) {
        if (!outcome.ok) continue;
        w.issues.push(outcome.issue.id);
        w.numbers.set(outcome.issue.id, outcome.issue.issue_number);
      }
      return;
    }
    case 'relate':
    case 'unrelate': {
      const id = pick(w.issues, o.issue);
      const number = id === undefined ? undefined : w.numbers.get(id);
      if (number === undefined) return;
      if (o.kind === 'relate') {
        const here = [...w.numbers.values()];
        const other = o.other < here.length ? here[o.other] : pick(w.earlier, o.other);
        if (other !== undefined) await addRelation(caller, number, { type: o.type, issue_key: other });
        return;
      }
      const at = await locate(w, id as number);
      const item = at
        ? await db.send(new GetCommand({ TableName: tableName(), Key: keys.issue(caller.orgId, w.projectId, id as number) }))
        : undefined;
      const relationId = pick(Object.keys((item?.Item?.relations as object | undefined) ?? {}), o.relation);
      if (relationId !== undefined) await removeRelation(caller, number, relationId);
      return;
    }
    case 'update':
    case 'move':
    case 'delete':
    case 'parent':
    case 'comment': {
      const id = pick(w.issues, o.issue);
      const at = id === undefined ? undefined : await locate(w, id);
      if (id === undefined || !at) return;
      if (o.kind === 'delete') {
        const number = String((await issueItem(w, id))?.issue_number ?? '');
        await deleteIssue(caller, at, id);
        w.trashed.push(id);
        // Its delete's stream record: nothing while it is in the trash.
        await cascade({ kind: 'issue', orgId: caller.orgId, projectId: w.projectId, issueId: id, number });
      } else if (o.kind === 'parent') {
        // Another issue than itself (the refusal of itself has its own test).
        const parent = o.parent === null ? null : (pick(w.issues, w.issues.indexOf(id) + 1 + o.parent) ?? null);
        await updateIssue(caller, at, id, { parent_id: parent, ...(o.status ? { status: o.status } : {}) });
      } else if (o.kind === 'comment') {
        const comment = (await createComment(caller, { ...at, issueId: id }, { body: 'c' })).id;
        w.comments.push(comment);
        w.commentIssues.set(comment, id);
      } else if (o.kind === 'move') {
        await updateIssue(caller, at, id, { sprint_id: listOf(w, o.list), ...(o.position ? { position: o.position } : {}) });
      } else {
        await updateIssue(caller, at, id, {
          ...(o.status ? { status: o.status } : {}),
          ...(o.points !== undefined ? { story_points: o.points } : {}),
          ...(o.assignee !== undefined ? { assignee_id: pick(w.accounts, o.assignee) ?? null } : {}),
          ...(o.title ? { title: 'renamed' } : {}),
          ...(o.labels !== undefined ? { labels: o.labels } : {}),
          ...classification(o),
        });
      }
      return;
    }
    case 'restore':
    case 'purge': {
      const id = pick(w.trashed, o.issue);
      if (id === undefined) return;
      if (o.kind === 'restore') {
        await restore(caller, `issue-${id}`);
        // Its trash item's stream record: its comments' attachments follow where each comment is now.
        await cascade({ kind: 'issue', orgId: caller.orgId, projectId: w.projectId, issueId: id });
      } else {
        await purge(caller, `issue-${id}`);
        // Its trash item's stream record: what lived under it goes, its children lose their parent.
        const number = w.numbers.get(id);
        await cascade({ kind: 'issue', orgId: caller.orgId, projectId: w.projectId, issueId: id, number });
      }
      w.trashed = w.trashed.filter((t) => t !== id);
      w.done[o.kind]++;
      return;
    }
    case 'roundTrip': {
      const id = pick(w.issues, o.issue);
      const at = id === undefined ? undefined : await locate(w, id);
      if (id === undefined || !at) return;
      const before = alone ? await derivedSnapshot(caller.orgId) : undefined;
      await deleteIssue(caller, at, id);
      w.trashed.push(id);
      await restore(caller, `issue-${id}`);
      w.trashed = w.trashed.filter((t) => t !== id);
      w.done.roundTrip++;
      const after = before === undefined ? undefined : await derivedSnapshot(caller.orgId);
      if (before !== after) w.roundTrips.push(`issue ${id}: before ${before}\nafter ${after}`);
      return;
    }
    case 'sprint':
      w.sprints.push((await createSprint(caller, w.projectId, { name: `s${w.sprints.length}` })).id);
      return;
    case 'activate': {
      const sprint = pick(w.sprints, o.sprint);
      if (sprint !== undefined) await activateSprint(caller, w.projectId, sprint);
      return;
    }
    case 'complete': {
      const sprint = pick(w.sprints, o.sprint);
      const carry = listOf(w, o.carry);
      if (sprint !== undefined) {
        await completeSprint(caller, w.projectId, sprint, carry === null ? {} : { carry_over: { sprint_id: carry } });
      }
      return;
    }
    case 'deleteSprint': {
      const sprint = pick(w.sprints, o.sprint);
      if (sprint === undefined) return;
      await deleteSprint(caller, w.projectId, sprint);
      w.sprints = w.sprints.filter((s) => s !== sprint);
      w.trashedSprints.push(sprint);
      // Its delete's stream record: its issues taken out of what is kept of them outside it.
      await cascade({ kind: 'sprint', orgId: caller.orgId, projectId: w.projectId, sprintId: sprint });
      return;
    }
    case 'restoreSprint': {
      const sprint = pick(w.trashedSprints, o.sprint);
      if (sprint === undefined) return;
      await restoreSprint(w, sprint);
      w.done.restoreSprint++;
      return;
    }
    case 'purgeSprint': {
      const sprint = pick(w.trashedSprints, o.sprint);
      if (sprint === undefined) return;
      // The issues the sprint's cascade deletes then cascade in turn (as their stream records ask):
      // their children elsewhere lose their parent.
      const parents: { issueId: number; number: string }[] = [];
      for (const id of w.issues) {
        const item = await issueItem(w, id);
        if (item && item.sprint_id === sprint && Number(item.sub_issues_total ?? 0) > 0) {
          parents.push({ issueId: id, number: String(item.issue_number) });
        }
      }
      await purge(caller, `sprint-${sprint}`);
      w.trashedSprints = w.trashedSprints.filter((s) => s !== sprint);
      await cascade({ kind: 'sprint', orgId: caller.orgId, projectId: w.projectId, sprintId: sprint });
      for (const p of parents) await cascade({ kind: 'issue', orgId: caller.orgId, projectId: w.projectId, ...p });
      w.done.purgeSprint++;
      return;
    }
    case 'sprintRoundTrip': {
      const sprint = pick(w.sprints, o.sprint);
      if (sprint === undefined) return;
      const before = alone ? await derivedSnapshot(caller.orgId) : undefined;
      await deleteSprint(caller, w.projectId, sprint);
      w.sprints = w.sprints.filter((s) => s !== sprint);
      w.trashedSprints.push(sprint);
      await cascade({ kind: 'sprint', orgId: caller.orgId, projectId: w.projectId, sprintId: sprint });
      await restoreSprint(w, sprint);
      w.done.sprintRoundTrip++;
      const after = before === undefined ? undefined : await derivedSnapshot(caller.orgId);
      if (before !== after) w.roundTrips.push(`sprint ${sprint}: before ${before}\nafter ${after}`);
      return;
    }
    case 'uncomment':
    case 'recomment':
    case 'purgeComment': {
      const comment = pick(o.kind === 'uncomment' ? w.comments : w.trashedComments, o.comment);
      if (comment === undefined) return;
      if (o.kind === 'uncomment') {
        await deleteComment(caller, comment);
        w.trashedComments.push(comment);
      } else {
        await (o.kind === 'recomment' ? restore : purge)(caller, `comment-${comment}`);
        w.trashedComments = w.trashedComments.filter((c) => c !== comment);
      }
      // As the stream consumer does for the record of a comment with attachments, or of its trash
      // item (lib/jobs/cascade.ts): they follow it into the trash, back, or away.
      const moved = await settleCommentAttachments(caller.orgId, w.projectId, w.commentIssues.get(comment) as number, comment);
      if (moved > 0) w.done.commentFiles++;
      return;
    }
    case 'attach': {
      const id = pick(w.issues, o.issue);
      const number = id === undefined ? undefined : w.numbers.get(id);
      if (id === undefined || number === undefined) return;
      const comment = o.comment === null ? null : (pick(w.comments, o.comment) ?? null);
      const made = await createAttachment(caller, number, {
        name: 'a.bin',
        content_type: 'application/octet-stream',
        size: o.size,
        ...(comment === null ? {} : { comment_id: comment }),
      });
      w.attachments.push({ number, issueId: id, id: made.id });
      return;
    }
    case 'ready': {
      const a = pick(w.attachments, o.attachment);
      // Ready already, or gone: refused, as `complete` answers it then.
      const stored = a && (await getAttachment(caller.orgId, w.projectId, a.issueId, a.id));
      if (stored) await markReady(stored).catch(ignorePending);
      return;
    }
    case 'detach': {
      const a = pick(w.attachments, o.attachment);
      if (!a) return;
      await deleteAttachment(caller, a.number, a.id);
      if (await getTrashed(caller.orgId, 'attachment', a.id)) w.trashedFiles.push(a);
      return;
    }
    case 'restoreFile':
    case 'purgeFile': {
      const a = pick(w.trashedFiles, o.attachment);
      const trashed = a && (await getTrashed(caller.orgId, 'attachment', a.id));
      if (a) w.trashedFiles = w.trashedFiles.filter((t) => t !== a);
      if (!a || !trashed) return;
      if (o.kind === 'restoreFile') await restore(caller, `attachment-${a.id}`);
      else {
        await purge(caller, `attachment-${a.id}`);
        // Its trash item's stream record: it goes, with its bytes (its file after it).
        await releaseTrashedAttachment(
          { orgId: caller.orgId, projectId: w.projectId, issueId: a.issueId, id: a.id },
          trashed.deletedAt,
        );
      }
      w.done[o.kind]++;
      return;
    }
    case 'expire': {
      const a = pick(w.attachments, o.attachment);
      if (!a) return;
      const key = keys.attachment(caller.orgId, w.projectId, a.issueId, a.id);
      const item = (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
      if (!item) return;
      await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
      for (let replay = 0; replay < 2; replay++) await releaseExpiredAttachment(marshall(item) as never);
      return;
    }
    case 'parallel':
      await Promise.allSettled(o.ops.map((each) => run(w, each, false)));
      return;
  }
}

/** Comments' derived state against the comments: each issue's `comments_count`, each comment's pointer. */
async function commentDifferences(orgId: number): Promise<string[]> {
  const counts = new Map<string, number>();
  const stored = new Map<string, number>();
  const comments = new Map<string, string>();
  const pointers = new Map<string, string>();
  await scanPages(
    {
      FilterExpression: 'begins_with(PK, :org) AND #type IN (:issue, :comment, :pointer)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':org': orgPk(orgId),
        ':issue': 'issue',
        ':comment': 'comment',
        ':pointer': 'comment_pointer',
      },
    },
    (items) => {
      for (const item of items) {
        const issue = `${String(item.project_id)}/${String(item.issue_id ?? item.id)}`;
        if (item.type === 'issue') stored.set(issue, Number(item.comments_count ?? 0));
        else if (item.type === 'comment') {
          counts.set(issue, (counts.get(issue) ?? 0) + 1);
          comments.set(String(item.id), issue);
        } else pointers.set(String(item.SK).replace(/^COMMENT#0*/, ''), issue);
      }
    },
  );
  const out: string[] = [];
  for (const [issue, count] of stored) {
    if ((counts.get(issue) ?? 0) !== count)
      out.push(`comments-count: issue ${issue} counts ${count}, has ${counts.get(issue) ?? 0}`);
  }
  for (const [id, issue] of comments) {
    if (pointers.get(id) !== issue)
      out.push(`comment-pointer: comment ${id} of ${issue} points to ${pointers.get(id) ?? 'nothing'}`);
  }
  for (const [id, issue] of pointers) {
    if (!comments.has(id) && stored.has(issue)) out.push(`comment-pointer: pointer ${id} to ${issue} without its comment`);
  }
  return out;
}

/** Relations against their other sides: each relation is on its other issue too, with the inverse type. */
/** Every relation of a live issue whose other side is not its mirror. */
async function relationDifferences(orgId: number): Promise<string[]> {
  const sides = new Map<string, Record<string, { type: keyof typeof relationInverse; project_id: number; issue_id: number }>>();
  await scanPages(
    {
      FilterExpression: 'begins_with(PK, :org) AND #type = :issue',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':org': orgPk(orgId), ':issue': 'issue' },
    },
    (items) => {
      for (const item of items) sides.set(`${String(item.project_id)}/${String(item.id)}`, (item.relations ?? {}) as never);
    },
  );
  // Issues in a sprint or project in the trash keep what they hold, for its restore; a live issue's
  // relations name live issues only, which hold their side.
  const live = new Set((await readDerivedState(orgId)).issues.map((s) => `${s.projectId}/${s.id}`));
  const out: string[] = [];
  for (const [issue, relations] of sides) {
    if (!live.has(issue)) continue;
    for (const [id, r] of Object.entries(relations)) {
      const other = sides.get(`${r.project_id}/${r.issue_id}`);
      const mirror = other?.[id];
      if (!mirror || mirror.type !== relationInverse[r.type] || `${mirror.project_id}/${mirror.issue_id}` !== issue) {
        out.push(
          `relations: ${issue} ${r.type} ${r.project_id}/${r.issue_id} (${id}), the other side is ${JSON.stringify(mirror)}`,
        );
      }
    }
  }
  return out;
}

/** One organisation's part of a derived state read, in an order of its own (not the reading's). */
function organisationPart(state: StoredDerivedState, orgId: number) {
  const mine = <V>(map: Map<string, V>, orgOf: (v: V) => number) =>
    [...map].filter(([, v]) => orgOf(v) === orgId).sort(([a], [b]) => a.localeCompare(b));
  return {
    issues: state.issues.filter((s) => s.orgId === orgId).sort((a, b) => a.projectId - b.projectId || a.id - b.id),
    holders: mine(state.observed.holders, (h) => h.holder.orgId),
    records: mine(state.observed.records, (r) => r.orgId),
    holderKeys: mine(state.holderKeys, (k) => Number(/^ORG#(\d+)/.exec(k.PK)?.[1])),
  };
}

/** One organisation's attachment counters, stored and rebuilt, in a fixed order. */
function attachmentPart(read: { stored: AttachmentCounters; rebuilt: AttachmentCounters }, orgId: number) {
  const of = (counters: AttachmentCounters) => ({
    organisationBytes: [...counters.organisationBytes].filter(([org]) => org === orgId).sort(([a], [b]) => a - b),
    issueFiles: [...counters.issueFiles].filter(([id]) => id.startsWith(`${orgId}/`)).sort(([a], [b]) => a.localeCompare(b)),
    organisationPending: [...counters.organisationPending].filter(([org]) => org === orgId).sort(([a], [b]) => a - b),
    accountPending: [...counters.accountPending]
      .filter(([id]) => id.startsWith(`${orgId}/`))
      .sort(([a], [b]) => a.localeCompare(b)),
  });
  return { stored: of(read.stored), rebuilt: of(read.rebuilt) };
}

/** Every difference between the table's derived state and the rebuild, each naming its derivation. */
async function derivedDifferences(orgId: number, accountId: number): Promise<string[]> {
  const state = await readDerivedState(orgId);
  // Read by a Query of each of its partitions, the organisation's part is what the whole table's Scan reads of it.
  expect(organisationPart(state, orgId)).toEqual(organisationPart(await readDerivedState(), orgId));
  expect(attachmentPart(await readAttachmentCounters(orgId), orgId)).toEqual(
    attachmentPart(await readAttachmentCounters(), orgId),
  );
  return [
    ...liveDifferences(state),
    ...(await commentDifferences(orgId)),
    ...(await relationDifferences(orgId)),
    ...(await attachmentCounterDifferences(orgId)),
    ...(await commentFileDifferences(orgId)),
    ...(await pendingDifferences(orgId, accountId)),
  ];
}

/**
 * The pending counts of the organisation and of its one uploader (`accountId`) against the pending
 * attachments that took a place among them: each delete, completion, expiry or cascade of a pending
 * one gave its place back, and nothing else did (a ready one's trash, restore and purge leave them alone).
 */
async function pendingDifferences(orgId: number, accountId: number): Promise<string[]> {
  const held = { files: 0, bytes: 0 };
  const out: string[] = [];
  await scanPages(
    {
      FilterExpression: 'begins_with(PK, :org) AND #type = :attachment AND #status = :pending AND pending_reserved = :yes',
      ExpressionAttributeNames: { '#type': 'type', '#status': 'status' },
      ExpressionAttributeValues: { ':org': orgPk(orgId), ':attachment': 'attachment', ':pending': 'pending', ':yes': true },
    },
    (items) => {
      for (const item of items) {
        if (Number(item.uploader_id) !== accountId)
          out.push(`pending-uploads: attachment ${String(item.id)} of another uploader`);
        held.files += 1;
        held.bytes += Number(item.size);
      }
    },
  );
  const { organisation, account } = await pendingCounts(orgId, accountId);
  const seen = (counted: { files: number; bytes: number }) => `counts ${counted.files} files of ${counted.bytes} bytes`;
  const holds = `holds ${held.files} of ${held.bytes}`;
  if (organisation.files !== held.files || organisation.bytes !== held.bytes)
    out.push(`pending-uploads: organisation ${orgId} ${seen(organisation)}, ${holds}`);
  if (account.files !== held.files || account.bytes !== held.bytes)
    out.push(`pending-uploads: account ${accountId} ${seen(account)}, ${holds}`);
  return out;
}

/**
 * Comments' attachments against where their comments are (docs/trash.md): on an issue that is
 * there, those of a comment in the trash are marked `in_trash` (not counted on the issue) and the
 * issue holds the comment among `comments_with_files_in_trash` (in no answer), those of a comment
 * that is there are neither (but those in the trash on their own, which stay marked), and none is
 * left of a comment gone for good; the issue holds no other comment there. Every attachment in the
 * trash on its own is marked and has the trash item of that delete.
 */
async function commentFileDifferences(orgId: number): Promise<string[]> {
  const comments = new Set<number>();
  const trashed = new Set<number>();
  const inTrashOf = new Map<string, number[]>();
  const files: Record<string, unknown>[] = [];
  const trashedFiles = new Map<number, string>();
  await scanPages(
    {
      FilterExpression: 'begins_with(PK, :org) AND #type IN (:issue, :comment, :trash, :attachment)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: {
        ':org': orgPk(orgId),
        ':issue': 'issue',
        ':comment': 'comment',
        ':trash': 'trash',
        ':attachment': 'attachment',
      },
    },
    (items) => {
      for (const item of items) {
        if (item.type === 'issue')
          inTrashOf.set(`${String(item.project_id)}/${String(item.id)}`, [
            ...((item.comments_with_files_in_trash as Set<number> | undefined) ?? []),
          ]);
        else if (item.type === 'comment') comments.add(Number(item.id));
        else if (item.type === 'trash' && item.kind === 'comment') trashed.add(Number(item.item_id));
        else if (item.type === 'trash' && item.kind === 'attachment')
          trashedFiles.set(Number(item.item_id), String(item.deleted_at));
        else if (item.type === 'attachment') files.push(item);
      }
    },
  );
  const out: string[] = [];
  for (const a of files) {
    const own = typeof a.trashed_at === 'string';
    if (own && (a.in_trash !== true || trashedFiles.get(Number(a.id)) !== a.trashed_at))
      out.push(`trashed-files: attachment ${String(a.id)} trashed at ${String(a.trashed_at)}, in_trash ${String(a.in_trash)}`);
    if (typeof a.comment_id !== 'number') continue;
    const comment = a.comment_id;
    const held = inTrashOf.get(`${String(a.project_id)}/${String(a.issue_id)}`);
    if (!held) continue;
    const where = comments.has(comment) ? 'there' : trashed.has(comment) ? 'trashed' : 'gone';
    const seen = `attachment ${String(a.id)} of comment ${comment} (${where}): in_trash ${String(a.in_trash === true)}, held ${held.includes(comment)}`;
    if (
      where === 'gone' ||
      (a.in_trash === true) !== (own || where === 'trashed') ||
      held.includes(comment) !== (where === 'trashed')
    )
      out.push(`comment-files: ${seen}`);
  }
  for (const [issue, held] of inTrashOf) {
    for (const comment of held)
      if (!trashed.has(comment)) out.push(`comment-files: issue ${issue} holds comment ${comment}, not in the trash`);
  }
  return out;
}

const PRELUDE: Op[] = [
  { kind: 'sprint' },
  { kind: 'sprint' },
  { kind: 'activate', sprint: 0 },
  ...([0, 1, 2, 0, 1, 2] as const).map((list, i): Op => ({
    kind: 'create',
    list,
    status: STATUSES[i % STATUSES.length] as IssueStatus,
    points: i,
    assignee: i,
    // The last three are sub-issues of the first three.
    parent: i >= 3 ? i - 3 : null,
  })),
  // Delete + restore = no change, whatever the sequence draws: a parent in the planned sprint, an
  // issue of the active sprint (its history), a sub-issue (its parent's summary).
  { kind: 'roundTrip', issue: 1 },
  { kind: 'roundTrip', issue: 2 },
  { kind: 'roundTrip', issue: 4 },
  // A comment with two files, deleted and restored: they go into the trash with it and come back
  // (the sequence may delete it again, restore or purge it).
  { kind: 'comment', issue: 0 },
  { kind: 'attach', issue: 0, comment: 0, size: 100 },
  { kind: 'attach', issue: 0, comment: 0, size: 200 },
  // The second made ready and deleted on its own into the trash before its comment's round trip:
  // it stays there (then comes back, and goes again: the sequence may restore or purge it).
  { kind: 'ready', attachment: 1 },
  { kind: 'detach', attachment: 1 },
  { kind: 'uncomment', comment: 0 },
  { kind: 'recomment', comment: 0 },
  // Back after its comment's round trip, and into the trash again.
  { kind: 'restoreFile', attachment: 0 },
  { kind: 'detach', attachment: 1 },
];

const ignorePending = (err: unknown) => {
  if (!isRefused(err, 'not_pending')) throw err;
};

const ignoreRefusals = async (step: Promise<void>) => {
  try {
    await step;
  } catch (err) {
    // A refusal (404, 409, 422, 503) is an answer, not a failure: the derived state must hold either way.
    if (!(err instanceof Error) || !/Error$/.test(err.name) || err.name === 'TypeError' || err.name === 'ReferenceError') {
      throw err;
    }
  }
};

describe(`issue writes against the rebuild (${SEQUENCES} random sequences of up to ${MAX_OPS} operations)`, () => {
  it('leave the derived state of every derivation equal to its rebuild from the issues, also with operations run concurrently', async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const earlier: string[] = [];
    const done = {
      restore: 0,
      purge: 0,
      roundTrip: 0,
      commentFiles: 0,
      restoreSprint: 0,
      purgeSprint: 0,
      sprintRoundTrip: 0,
      restoreFile: 0,
      purgeFile: 0,
    };
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: MAX_OPS }), fc.boolean(), async (ops, dropProject) => {
        const project = await createProject(caller, { name: 'P', prefix: randomPrefix() });
        for (const name of ['a', 'b']) await createLabel(caller, project.id, { name });
        const w: World = {
          caller,
          accounts: [null, org.admin.id, org.member.id],
          projectId: project.id,
          sprints: [],
          issues: [],
          comments: [],
          commentIssues: new Map(),
          trashedComments: [],
          attachments: [],
          trashedFiles: [],
          numbers: new Map(),
          earlier,
          trashed: [],
          trashedSprints: [],
          roundTrips: [],
          done,
        };
        // Something to work on from the first operation: two sprints, one active, and issues in each list.
        for (const o of PRELUDE) await run(w, o);
        for (const o of ops) await ignoreRefusals(run(w, o));
        if (dropProject) {
          expect(await derivedDifferences(caller.orgId, caller.accountId)).toEqual([]);
          await deleteProject(caller, project.id);
          await cascade({ kind: 'project', orgId: caller.orgId, projectId: project.id });
        } else earlier.push(...w.numbers.values());
        expect(await derivedDifferences(caller.orgId, caller.accountId)).toEqual([]);
        // Delete + restore = no change.
        expect(w.roundTrips).toEqual([]);
      }),
      { numRuns: SEQUENCES, endOnFailure: true },
    );
    console.log(`restores, purges and round trips that went through: ${JSON.stringify(done)}`);
  }, 240_000);
});

import type { IssueState, RelationRef, SearchRecord } from '../../model/derivations.ts';
import type { StoredValues } from '../../model/custom-fields.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import type { IssuePriority, IssueStatus, IssueType } from '../../schemas/issues.ts';
import { attribute, itemKind, type Attribute, type Fields, type Stored } from '../core/item.ts';
import { keys, listKeys } from '../core/keys.ts';

/**
 * The issue, its search record and its assignee's entry, each declared once (lib/db/core/item.ts): what
 * every read of them decodes with and every write encodes with.
 */

/** An issue written before priority, type and due date existed answers these. */
const unclassifiedPriority: IssuePriority = 'none';
const unclassifiedType: IssueType = 'task';

/** A text that may be absent where a path does not read it (a partial image, a projection). */
const text = <S extends string>(stored: S): Attribute<string | undefined, S> => ({
  stored,
  read: (v) => (v === undefined ? undefined : String(v)),
  write: (v) => v,
});

/** The relations stored on an issue (`relations`: a map from relation id to the relation), by id. */
const relations = <S extends string>(stored: S): Attribute<RelationRef[], S> => ({
  stored,
  read: (v) =>
    Object.entries((v ?? {}) as Record<string, { type: RelationType; project_id: number; issue_id: number }>)
      .map(([id, r]) => ({ id, type: r.type, projectId: Number(r.project_id), issueId: Number(r.issue_id) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
  write: (refs) => Object.fromEntries(refs.map((r) => [r.id, { type: r.type, project_id: r.projectId, issue_id: r.issueId }])),
});

/**
 * Its custom fields' values (docs/custom-fields.md): a map from field id to the value (options by
 * id), shown by key through the definitions on its project item; none is no attribute.
 */
const customValues = <S extends string>(stored: S): Attribute<StoredValues, S> => ({
  stored,
  read: (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as StoredValues) : {}),
  write: (v) => (Object.keys(v).length > 0 ? v : undefined),
});

/** What a revert wrote on the issue: the entry it reverted, and the revision its write made. */
export interface RevertMark {
  entry: string;
  rev: number;
}

/**
 * The mark of the write that reverted an activity entry (lib/services/revert.ts): the entry, and the
 * `rev` that write left, so that the mark names only that write (the next write moves `rev` past it,
 * and need not remove it). The change feed reads it on the stream record (lib/feed/events.ts).
 */
const revertMark = <S extends string>(stored: S): Attribute<RevertMark | null, S> => ({
  stored,
  read: (v) => {
    const m = v as Partial<RevertMark> | null | undefined;
    return m && typeof m.entry === 'string' && typeof m.rev === 'number' ? { entry: m.entry, rev: Number(m.rev) } : null;
  },
  write: (v) => v ?? undefined,
});

/** What an integration's write marks an issue with: the link that made the change, and the `rev` the write made. */
export interface ViaMark {
  url: string;
  rev: number;
}
const viaMark = <S extends string>(stored: S): Attribute<ViaMark | null, S> => ({
  stored,
  read: (v) => {
    const m = v as Partial<ViaMark> | null | undefined;
    return m && typeof m.url === 'string' && typeof m.rev === 'number' ? { url: m.url, rev: Number(m.rev) } : null;
  },
  write: (v) => v ?? undefined,
});

/** The classification every stored form of an issue carries (`type` is stored as `issue_type`: `type` names the item's kind). */
const classification = {
  priority: attribute.oneOf<IssuePriority, 'priority'>('priority', unclassifiedPriority),
  type: attribute.oneOf<IssueType, 'issue_type'>('issue_type', unclassifiedType),
  dueDate: attribute.nullableString('due_date'),
};

export const issueItem = itemKind({
  type: 'issue',
  key: { ...keys.issue.placement, LSK: `${listKeys.sprintIssue.placement} or ${listKeys.backlogIssue.placement}` },
  about: 'issue, in a sprint or the backlog (+ its relations)',
  attributes: {
    id: attribute.number('id'),
    projectId: attribute.number('project_id'),
    sprintId: attribute.nullableNumber('sprint_id'),
    number: attribute.string('issue_number'),
    sourceKey: attribute.nullableString('source_key'),
    title: text('title'),
    description: attribute.nullableString('description'),
    /** Its workflow state's category (what counts, reports and filters read). */
    status: attribute.oneOf<IssueStatus, 'status'>('status'),
    /** Its workflow state; none: its category's home state (an issue from before workflows). */
    stateId: attribute.nullableNumber('state_id'),
    storyPoints: attribute.nullableNumber('story_points'),
    position: attribute.number('position'),
    assigneeId: attribute.nullableNumber('assignee_id'),
    ...classification,
    parentId: attribute.nullableNumber('parent_id'),
    parentNumber: attribute.nullableString('parent_number'),
    labelIds: attribute.numberSet('label_ids'),
    customFields: customValues('custom_fields'),
    /** The accounts watching the issue (docs/notifications.md): its reporter, assignees and commenters, and who asked to. */
    watcherIds: attribute.numberSet('watcher_ids'),
    relations: relations('relations'),
    authorId: attribute.nullableNumber('author_id'),
    /** Its `sub_issues_summary`: counters its children keep (lib/model/derivations.ts: `SUMMARY`). */
    subIssuesTotal: attribute.counter('sub_issues_total'),
    subIssuesDone: attribute.counter('sub_issues_done'),
    subIssuesPoints: attribute.counter('sub_issues_points'),
    subIssuesDonePoints: attribute.counter('sub_issues_done_points'),
    openBlockers: attribute.counter('open_blockers'),
    /** Its comments and its activity entries, counted in the transaction that writes or deletes them (an answer's `X-Total-Count`). */
    commentsCount: attribute.counter('comments_count'),
    /**
     * Its comments in the trash that have attachments (written with each one's delete and restore,
     * lib/db/comments/comments.ts): their attachments are kept, in no answer, for their restore (docs/trash.md).
     */
    commentsWithFilesInTrash: attribute.numberSet('comments_with_files_in_trash'),
    activityCount: attribute.counter('activity_count'),
    /** Its links to GitHub (lib/db/github/github.ts), counted in the transaction that writes each. */
    linkCount: attribute.counter('link_count'),
    /** The state of the linked pull request that changed last, and that change's time (GitHub's). */
    prState: attribute.nullableString('pr_state'),
    prStateAt: attribute.nullableString('pr_state_at'),
    /** Its linked pull requests by state (`has:pr`, `pr:open`: lib/model/selection). */
    prsOpen: attribute.counter('prs_open'),
    prsDraft: attribute.counter('prs_draft'),
    prsMerged: attribute.counter('prs_merged'),
    prsClosed: attribute.counter('prs_closed'),
    /** Bumped by every write that can change counters or the list; writes are conditioned on it. */
    rev: attribute.counter('rev'),
    /** Set by a revert's write only, with the `rev` it made (`RevertMark`). */
    reverted: revertMark('reverts'),
    /** Set by a write of an integration only (GitHub's status automation), with the `rev` it made: what made the change. */
    changedVia: viaMark('changed_via'),
    /** Set by a restore from the trash (docs/trash.md): its Put is no `issue.created` (the trash item's removal is its `issue.restored`). */
    restoredAt: attribute.laterString('restored_at'),
    startedAt: attribute.nullableString('started_at'),
    completedAt: attribute.nullableString('completed_at'),
    createdAt: text('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});
export type StoredIssue = Fields<typeof issueItem.attributes>;

/** The stored issue, as its declaration reads it, before it is decoded. */
export type IssueItem = Stored<typeof issueItem.attributes>;

/** The state of a stored issue, as the derivations compare it (lib/model/derivations.ts). */
export function issueStateOf(orgId: number, item: object): IssueState {
  const i = issueItem.decode(item);
  return {
    orgId,
    projectId: i.projectId,
    id: i.id,
    number: i.number,
    sprintId: i.sprintId,
    position: i.position,
    status: i.status,
    stateId: i.stateId,
    storyPoints: i.storyPoints,
    assigneeId: i.assigneeId,
    updatedAt: i.updatedAt,
    priority: i.priority,
    type: i.type,
    dueDate: i.dueDate,
    parentId: i.parentId,
    parentNumber: i.parentNumber,
    title: i.title,
    relations: i.relations,
    labelIds: i.labelIds,
    customFields: i.customFields,
    authorId: i.authorId,
    createdAt: i.createdAt,
    sourceKey: i.sourceKey,
  };
}

/** An issue's search record (`search-index`, lib/model/derivations.ts; docs/search.md). */
export const searchRecordItem = itemKind({
  type: 'search_issue',
  key: { ...keys.searchIssue.placement, LSK: listKeys.searchIssue.placement },
  about: 'search record of issue i (docs/search.md)',
  attributes: {
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    number: attribute.string('issue_number'),
    title: attribute.string('title'),
    sprintId: attribute.nullableNumber('sprint_id'),
    position: attribute.number('position'),
    status: attribute.oneOf<IssueStatus>('status'),
    stateId: attribute.nullableNumber('state_id'),
    // A record holds what its issue answers: written whole, so never an absent classification.
    priority: attribute.oneOf<IssuePriority>('priority'),
    type: attribute.oneOf<IssueType>('issue_type'),
    labelIds: attribute.numberSet('label_ids'),
    customFields: customValues('custom_fields'),
    assigneeId: attribute.nullableNumber('assignee_id'),
    authorId: attribute.nullableNumber('author_id'),
    storyPoints: attribute.nullableNumber('story_points'),
    dueDate: attribute.nullableString('due_date'),
    parentId: attribute.nullableNumber('parent_id'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
    // Only an imported issue has one (it never changes): none is no attribute.
    sourceKey: attribute.optionalString('source_key'),
    // Kept apart from the derivation's fields: moved by the relations (lib/db/issues/relations.ts).
    openBlockers: attribute.counter('open_blockers'),
    // Its issue's linked pull requests by state (`has:pr`, `pr:`), kept apart too: moved with the
    // issue's own counts by each link's write (lib/db/github/github.ts: `writeLink`).
    prsOpen: attribute.counter('prs_open'),
    prsDraft: attribute.counter('prs_draft'),
    prsMerged: attribute.counter('prs_merged'),
    prsClosed: attribute.counter('prs_closed'),
  },
});

/** Whether a search record holds its issue's fields: one of an issue written before the index is partial until reindexed. */
export const isFilledSearchRecord = (item: object) =>
  typeof (item as Record<string, unknown>)[searchRecordItem.stored('title')] === 'string' &&
  typeof (item as Record<string, unknown>)[searchRecordItem.stored('createdAt')] === 'string';

/**
 * A stored search record as the derivation states it (lib/db/issues/issue-write.ts writes it from the same declaration),
 * without the counters it keeps apart (open blockers, pull requests by state).
 */
export function searchRecordFromItem(orgId: number, item: object): SearchRecord {
  const { openBlockers: _, prsOpen: _o, prsDraft: _d, prsMerged: _m, prsClosed: _c, ...fields } = searchRecordItem.decode(item);
  return { kind: 'search', orgId, ...fields };
}

/** The entry of an issue in its assignee's partition: the index of `GET /me/issues` (lib/db/issues/assigned.ts). */
export const assignedEntryItem = itemKind({
  type: 'assigned_issue',
  key: { ...keys.assignedIssue.placement, LSK: listKeys.assignedIssue.placement },
  about: 'issue i of project p assigned to account a',
  attributes: {
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    sprintId: attribute.nullableNumber('sprint_id'),
    status: attribute.oneOf<IssueStatus>('status'),
    updatedAt: attribute.string('updated_at'),
    // Entries written before these fields existed carry none: the issue's defaults, as the issue answers.
    ...classification,
    parentId: attribute.nullableNumber('parent_id'),
  },
});

import { describe, expect, it } from 'vitest';

import {
  assignedEntryItem,
  issueItem,
  issueStateOf,
  searchRecordFromItem,
  searchRecordItem,
} from '../../lib/db/issues/issue-item.ts';

import {
  heldCounters,
  listCounters,
  listCounterStored,
  listLength,
  rankIndex,
  sprintCounters,
  storedCounter,
} from '../../lib/db/issues/counters.ts';

import { projectItem } from '../../lib/db/projects/projects.ts';

import { sprintBurndown, sprintItem } from '../../lib/db/projects/sprints.ts';

import { ASSIGNED_COUNT, issueCounters, OPEN_BLOCKERS, SUMMARY } from '../../lib/model/derivations.ts';

import { accountItem } from '../../lib/db/organisation/accounts.ts';

import { labelItem, labelNameItem } from '../../lib/db/issues/labels.ts';
import { commentPointerItem } from '../../lib/db/comments/comment-pointers.ts';

import { commentItem } from '../../lib/db/comments/comments.ts';

import { activityPut, activityTextItem, issueActivityItem, sprintActivityItem } from '../../lib/db/issues/activity.ts';

import { toActivity } from '../../lib/services/activity.ts';

import { activityIdOf } from '../../lib/vocabulary/ids.ts';

import { keys } from '../../lib/db/core/keys.ts';

import { alsoIf } from '../../lib/db/core/item.ts';

import { sentFields } from '../../lib/db/core/transactions.ts';

import { organisationSequenceItem, sequencesItem } from '../../lib/db/core/sequences.ts';

import { emailGuardItem } from '../../lib/db/organisation/accounts.ts';

import { prefixGuardItem } from '../../lib/db/projects/projects.ts';

import { pointedIssue } from '../../lib/db/issues/issue-lookup.ts';

import { subIssueItem } from '../../lib/db/issues/sub-issues.ts';

import { oauthRegistrationsItem } from '../../lib/db/organisation/oauth.ts';

import { attachmentExpiredItem } from '../../lib/db/attachments/attachments.ts';

import { cascadeItem, pendingCascadeFromItem, pendingCascadeItem } from '../../lib/db/cascades/cascade-records.ts';

import type { PendingCascade } from '../../lib/model/cascades.ts';
import { migrationLeaseItem, migrationRecordItem } from '../../lib/db/core/migrations.ts';

import type { MigrationRecord } from '../../lib/model/migrations.ts';
import { deletionItem } from '../../lib/db/core/deletions.ts';

import { inFlightLaneItem } from '../../lib/db/webhooks/delivery-lanes.ts';

import { idempotencyPartItem, idempotencyRecordItem } from '../../lib/db/organisation/idempotency.ts';

import { ACTOR_ATTRIBUTE } from '../../lib/db/core/stamps.ts';

import { importedCommentItem, importedIssueItem, importNumbersItem } from '../../lib/db/imports/imports.ts';

import { importFilePartItem, importJobItem, importReportPartItem } from '../../lib/db/imports/import-jobs.ts';

import {
  BACKLOG_COUNT,
  burndownCounter,
  noCounters,
  scopeCounterNames,
  sprintCounterNames,
} from '../../lib/model/sprint-counters.ts';
import { toLabel } from '../../lib/resources/issues.ts';

const storedIssue = {
  PK: 'ORG#0000000001#P#0000000002',
  SK: 'ISSUE#0000000003',
  type: 'issue',
  id: 3,
  project_id: 2,
  sprint_id: null,
  issue_number: 'APL-3',
  title: 'Checkout',
  status: 'todo',
  position: 5,
  issue_type: 'bug',
  label_ids: new Set([9, 4]),
  relations: { r2: { type: 'blocks', project_id: 2, issue_id: 7 }, r1: { type: 'relates_to', project_id: 2, issue_id: 8 } },
  open_blockers: 1,
  created_at: '2025-01-01T00:00:00.000Z',
  updated_at: '2025-01-02T00:00:00.000Z',
};

describe('the issue item, declared once', () => {
  it('decodes the stored names, `type` from `issue_type`, labels ascending, relations by id', () => {
    const issue = issueItem.decode(storedIssue);
    expect(issue).toMatchObject({ id: 3, projectId: 2, number: 'APL-3', type: 'bug', labelIds: [4, 9], openBlockers: 1 });
    expect(issue.relations.map((r) => r.id)).toEqual(['r1', 'r2']);
  });

  it('answers the defaults for what an issue written before these fields holds none of', () => {
    const issue = issueItem.decode({ ...storedIssue, issue_type: undefined, label_ids: undefined, open_blockers: undefined });
    expect(issue).toMatchObject({ priority: 'none', type: 'task', dueDate: null, labelIds: [], openBlockers: 0, rev: 0 });
    expect(issue.subIssuesTotal).toBe(0);
  });

  it('encodes back to the stored names; no labels is null, since a number set cannot be empty', () => {
    expect(issueItem.encode({ type: 'story', labelIds: [], dueDate: null })).toEqual({
      issue_type: 'story',
      label_ids: null,
      due_date: null,
    });
    expect(issueItem.encode({ labelIds: [2, 1] })).toEqual({ label_ids: new Set([2, 1]) });
  });

  it('projects the stored names of the fields asked for', () => {
    const p = issueItem.projection(['type', 'status']);
    expect(p.ProjectionExpression).toBe('#p0, #p1');
    expect(p.ExpressionAttributeNames).toEqual({ '#p0': 'issue_type', '#p1': 'status' });
  });

  it('reads one field by its stored name', () => {
    expect(issueItem.field(storedIssue, 'type')).toBe('bug');
    expect(issueItem.field(storedIssue, 'subIssuesTotal')).toBe(0);
    expect(issueItem.field({ ...storedIssue, sub_issues_total: 4 }, 'subIssuesTotal')).toBe(4);
  });

  it("stores the counters the model names under the issue's and the search record's declared attributes", () => {
    expect(issueCounters.map((c) => storedCounter('issue', c))).toEqual([
      'sub_issues_total',
      'sub_issues_done',
      'sub_issues_points',
      'sub_issues_done_points',
      'open_blockers',
    ]);
    expect(storedCounter('issue', SUMMARY.total)).toBe(issueItem.stored('subIssuesTotal'));
    expect(storedCounter('search', OPEN_BLOCKERS)).toBe(searchRecordItem.stored('openBlockers'));
    // An account's counter, and a list's counters named by pattern, are stored under the names they have.
    expect(storedCounter('account', ASSIGNED_COUNT)).toBe(accountItem.stored('assignedCount'));
    expect(storedCounter('account', ASSIGNED_COUNT)).toBe('assigned_count');
    expect(heldCounters('account', { assigned_count: 2, id: 7 })).toEqual({ assignedCount: 2, id: 7 });
    expect(storedCounter('list', 'rk_1')).toBe('rk_1');
    // Read back by the model's names: only the counters an issue keeps for others, and only those it holds.
    expect(heldCounters('issue', { ...storedIssue, sub_issues_done: 2 })).toEqual({ subIssuesDone: 2, openBlockers: 1 });
    expect(heldCounters('search', { open_blockers: 3, position: 4 })).toEqual({ openBlockers: 3 });
    expect(heldCounters('list', { issues_count: 2, status: 'active', rk_1: 1 })).toEqual({ issuesCount: 2, rk_1: 1 });
    expect(heldCounters('list', { backlog_count: 3, sprints_count: 1 })).toEqual({ backlogCount: 3, sprints_count: 1 });
  });

  it("stores a sprint's burndown day under its day's attribute, and reads it back by the model's name", () => {
    expect(burndownCounter('2026-01-02')).toBe('burndown@2026-01-02');
    expect(storedCounter('list', burndownCounter('2026-01-02'))).toBe('burndown_20260102');
    const sprint = { issues_count: 2, burndown_20260102: -3, burndown_20260105: 1, burndown_base: 8, status: 'active' };
    expect(heldCounters('list', sprint)).toMatchObject({ 'burndown@2026-01-02': -3, 'burndown@2026-01-05': 1, issuesCount: 2 });
    expect(listCounters(sprint)).not.toHaveProperty('burndown_20260102');
    expect([...sprintBurndown(sprint)]).toEqual([
      ['2026-01-02', -3],
      ['2026-01-05', 1],
    ]);
    // The base is the activation's snapshot, not a day's change.
    expect(sprintBurndown({ burndown_base: 8 }).size).toBe(0);
  });

  it("reads a list's rank index off its owner's stored item, without its other attributes", () => {
    expect(rankIndex({ rk_9: 1, rk_3: 2, rk_4: 0, issues_count: 3, name: 'Sprint 1' })).toEqual([
      [3, 2],
      [9, 1],
    ]);
    expect(rankIndex(undefined)).toEqual([]);
  });

  it("stores a list's counters the model names under the sprint's and the project's declared attributes", () => {
    expect(Object.keys(listCounterStored).sort()).toEqual([...sprintCounterNames, ...scopeCounterNames, BACKLOG_COUNT].sort());
    for (const c of [...sprintCounterNames, ...scopeCounterNames]) {
      expect(storedCounter('list', c)).toBe(sprintItem.stored(c));
    }
    expect(storedCounter('list', BACKLOG_COUNT)).toBe(projectItem.stored('backlogCount'));
    expect(storedCounter('list', 'issuesCount')).toBe('issues_count');
    expect(storedCounter('list', 'addedIssues')).toBe('added_issues');
    expect(storedCounter('list', BACKLOG_COUNT)).toBe('backlog_count');
    // Stored names never collide: each reads back as the one counter it holds.
    expect(new Set(Object.values(listCounterStored)).size).toBe(Object.keys(listCounterStored).length);
    const sprint = { issues_count: 4, total_story_points: 9, open_issues_count: 1, done_issues_count: 3, status: 'active' };
    expect(sprintCounters(sprint)).toEqual({
      ...noCounters,
      issuesCount: 4,
      totalStoryPoints: 9,
      openIssuesCount: 1,
      doneIssuesCount: 3,
    });
    expect(listLength(7, sprint)).toBe(4);
    expect(listLength(null, { backlog_count: 2, issues_count: 5 })).toBe(2);
    expect(listLength(null, {})).toBe(0);
    expect(listLength(7, undefined)).toBe(0);
  });

  it('gives the state the derivations compare', () => {
    const state = issueStateOf(1, storedIssue);
    expect(state).toMatchObject({
      orgId: 1,
      id: 3,
      sprintId: null,
      type: 'bug',
      labelIds: [4, 9],
      sourceKey: null,
      authorId: null,
    });
    expect(issueStateOf(1, { ...storedIssue, title: undefined }).title).toBeUndefined();
  });
});

describe('the search record and the assigned entry, declared once', () => {
  it('a search record reads back as the record it was written from (one mapping per direction)', () => {
    const record = searchRecordFromItem(1, {
      ...searchRecordItem.encode({
        projectId: 2,
        issueId: 3,
        number: 'APL-3',
        title: 'T',
        sprintId: 4,
        position: 1,
        status: 'done',
        stateId: 8,
        priority: 'high',
        type: 'bug',
        labelIds: [],
        assigneeId: null,
        authorId: 5,
        storyPoints: 3,
        dueDate: null,
        parentId: null,
        createdAt: 'c',
        updatedAt: 'u',
        sourceKey: null,
      }),
    });
    expect(record).toEqual({
      kind: 'search',
      orgId: 1,
      projectId: 2,
      issueId: 3,
      number: 'APL-3',
      title: 'T',
      sprintId: 4,
      position: 1,
      status: 'done',
      stateId: 8,
      priority: 'high',
      type: 'bug',
      labelIds: [],
      customFields: {},
      assigneeId: null,
      authorId: 5,
      storyPoints: 3,
      dueDate: null,
      parentId: null,
      createdAt: 'c',
      updatedAt: 'u',
      sourceKey: null,
    });
  });

  it('a search record stores no source key for an issue not imported', () => {
    expect(searchRecordItem.encode({ sourceKey: null })).toEqual({});
    expect(searchRecordItem.encode({ sourceKey: 'JIRA-1' })).toEqual({ source_key: 'JIRA-1' });
  });

  it('an assigned entry written before the classification existed reads as the issue defaults', () => {
    expect(assignedEntryItem.decode({ project_id: 1, issue_id: 2, status: 'todo', updated_at: 'u' })).toMatchObject({
      priority: 'none',
      type: 'task',
      dueDate: null,
      parentId: null,
      sprintId: null,
    });
  });
});

describe('the label, its name guard and the comment pointer, declared once', () => {
  const storedLabel = {
    PK: 'ORG#0000000001#P#0000000002',
    SK: 'LABEL#0000000005',
    type: 'label',
    id: 5,
    org_id: 1,
    project_id: 2,
    name: 'Bug',
    color: '#ff0000',
    created_at: 'c',
    updated_at: 'u',
  };

  it('a label written without a description reads as none, and answers under its own words', () => {
    expect(labelItem.decode(storedLabel)).toMatchObject({ id: 5, projectId: 2, name: 'Bug', description: null });
    expect(toLabel({ ...storedLabel, version: 3 })).toMatchObject({ id: 5, project_id: 2, description: null, created_at: 'c' });
  });

  it('a label, its project count and its name guard encode to the stored names', () => {
    expect(labelItem.encode({ projectId: 2, description: null, updatedAt: 'u' })).toEqual({
      project_id: 2,
      description: null,
      updated_at: 'u',
    });
    expect(labelNameItem.encode({ labelId: 5 })).toEqual({ label_id: 5 });
    // A project without labels has none counted (an item from before labels existed).
    expect(projectItem.field({}, 'labelsCount')).toBe(0);
    expect(projectItem.stored('labelsCount')).toBe('labels_count');
  });

  it("a comment pointer is stored under its comment's own names, and reads its absent fields as unknown", () => {
    expect(commentPointerItem.stored('authorId')).toBe(commentItem.stored('authorId'));
    expect(commentPointerItem.stored('body')).toBe(commentItem.stored('body'));
    expect(commentPointerItem.decode({ project_id: 2, issue_id: 3 })).toMatchObject({
      sprintId: null,
      authorId: undefined,
      body: undefined,
      hasAttachments: false,
    });
    expect(commentItem.field({ has_attachments: true }, 'hasAttachments')).toBe(true);
  });
});

describe('an activity entry and the description it replaced, declared once', () => {
  const entry = {
    PK: 'ORG#0000000001#P#0000000002',
    SK: 'ISSUE#0000000003#A#000000000042',
    type: 'activity',
    id: '000000000042',
    org_id: 1,
    project_id: 2,
    event: 'issue.updated',
    actor_id: 7,
    at: 'a',
    issue_id: 3,
    sprint_id: null,
    comment_id: null,
    changes: [{ field: 'title', from: 'x', to: 'y' }],
  };

  it('an entry reads under its own words, as the API shows it (no changes recorded: none; no revert: none)', () => {
    expect(toActivity(entry)).toEqual({
      id: activityIdOf(2, { issueId: 3 }, '000000000042'),
      event: 'issue.updated',
      actor_id: 7,
      at: 'a',
      issue_id: 3,
      sprint_id: null,
      comment_id: null,
      changes: [{ field: 'title', from: 'x', to: 'y' }],
    });
    expect(toActivity({ ...entry, changes: undefined, actor_id: undefined }).changes).toEqual([]);
    expect(toActivity({ ...entry, changes: undefined, actor_id: undefined }).actor_id).toBeNull();
    expect(toActivity({ ...entry, reverts: 'r' }).reverts).toBe('r');
    // A sprint's entry is named by its sprint.
    expect(toActivity({ ...entry, event: 'sprint.activated', issue_id: null, sprint_id: 4 }).id).toBe(
      activityIdOf(2, { sprintId: 4 }, '000000000042'),
    );
  });

  it('an entry is written with the names it is read by, and the same for an issue and a sprint', () => {
    const put = activityPut({
      orgId: 1,
      projectId: 2,
      owner: { issueId: 3 },
      sequence: '000000000042',
      activity: { ...toActivity(entry), id: '000000000042' },
    });
    const written = put.item.Put!.Item;
    const { PK: _pk, SK: _sk, ...attributes } = entry;
    expect(written).toMatchObject({ ...attributes, ...keys.issueActivity(1, 2, 3, '000000000042') });
    expect(written).not.toHaveProperty('reverts');
    expect(sprintActivityItem.attributes).toBe(issueActivityItem.attributes);
  });

  it('the description an entry replaced reads back as the text before and the digest of the one written', () => {
    expect(activityTextItem.decode({ before: null, after_digest: 'd' })).toMatchObject({ before: null, afterDigest: 'd' });
    expect(activityTextItem.encode({ before: 'old', afterDigest: 'd' })).toEqual({ before: 'old', after_digest: 'd' });
  });
});

describe('the guards, pointers and sequences, declared once', () => {
  it('a sequence not yet advanced reads 0, and each is stored under its own name', () => {
    expect(sequencesItem.decode({ issue: 40 })).toMatchObject({ issue: 40, label: 0, attachment: 0 });
    expect(sequencesItem.stored('webhook')).toBe('webhook');
    expect(organisationSequenceItem.field({}, 'organisation')).toBe(0);
  });

  it('a guard names what holds its name', () => {
    expect(emailGuardItem.encode({ accountId: 3 })).toEqual({ account_id: 3 });
    expect(prefixGuardItem.field({ project_id: 2 }, 'projectId')).toBe(2);
  });

  it("an issue number's pointer leads to its project and issue, and a child's record reads as the child it lists", () => {
    expect(pointedIssue({ PK: 'ORG#1', SK: 'ISSUEKEY#APL-3', type: 'issue_key', project_id: 2, issue_id: 3 })).toEqual({
      projectId: 2,
      issueId: 3,
    });
    // With its list and its list key (a hint) once written with them.
    expect(
      pointedIssue({
        PK: 'ORG#1',
        SK: 'ISSUEKEY#APL-3',
        type: 'issue_key',
        project_id: 2,
        issue_id: 3,
        sprint_id: null,
        position: 9,
      }),
    ).toEqual({ projectId: 2, issueId: 3, sprintId: null, position: 9 });
    const child = {
      parentId: 1,
      projectId: 2,
      issueId: 3,
      issueNumber: 'APL-3',
      title: 'T',
      sprintId: null,
      status: 'todo' as const,
      storyPoints: null,
      assigneeId: 4,
    };
    expect(subIssueItem.decode(subIssueItem.encode(child))).toEqual(child);
    // No story points or assignee stored (absent, not null): none.
    const { story_points: _points, assignee_id: _assignee, ...old } = subIssueItem.encode(child);
    expect(subIssueItem.decode(old)).toMatchObject({ storyPoints: null, assigneeId: null });
  });

  it('a registration count and an expired attachment mark go with their time (TTL)', () => {
    expect(oauthRegistrationsItem.stored('expiresAt')).toBe('expires_at');
    expect(oauthRegistrationsItem.field({}, 'registrations')).toBe(0);
    expect(attachmentExpiredItem.encode({ expiresAt: 9 })).toEqual({ expires_at: 9 });
  });
});

describe("an import's records, declared once", () => {
  it('an imported issue recorded before numbers were kept on its record reads with none; its sprint null when stored none', () => {
    const stored = importedIssueItem.encode({ sourceKey: 'ABC-1', issueId: 7, number: 'APL-7', sprintId: null, importedAt: 'i' });
    expect(stored).toEqual({ source_key: 'ABC-1', issue_id: 7, issue_number: 'APL-7', sprint_id: null, imported_at: 'i' });
    expect(importedIssueItem.decode(stored)).toMatchObject({ sourceKey: 'ABC-1', issueId: 7, number: 'APL-7', sprintId: null });
    const older = { source_key: 'ABC-2', issue_id: 8 };
    expect(importedIssueItem.field(older, 'number')).toBeUndefined();
    expect(importedIssueItem.field(older, 'sprintId')).toBeNull();
    expect(importedIssueItem.field({ ...older, sprint_id: 3 }, 'sprintId')).toBe(3);
  });

  it('reads the source key and the record of an imported comment by their stored names', () => {
    expect(importedCommentItem.encode({ orgId: 1, projectId: 2, sourceKey: '10001', commentId: 5 })).toEqual({
      org_id: 1,
      project_id: 2,
      source_key: '10001',
      comment_id: 5,
    });
    expect(importedCommentItem.projection(['sourceKey', 'commentId']).ExpressionAttributeNames).toEqual({
      '#p0': 'source_key',
      '#p1': 'comment_id',
    });
  });

  it("a source's reserved numbers are its ranges as stored; none stored reads as none", () => {
    expect(importNumbersItem.encode({ ranges: [[1, 40]] })).toEqual({ ranges: [[1, 40]] });
    expect(
      importNumbersItem.field(
        {
          ranges: [
            [1, 40],
            [41, 45],
          ],
        },
        'ranges',
      ),
    ).toEqual([
      [1, 40],
      [41, 45],
    ]);
    expect(importNumbersItem.field({}, 'ranges')).toEqual([]);
  });

  it("a job's file and its report's maps are stored in parts of text that expire", () => {
    for (const kind of [importFilePartItem, importReportPartItem]) {
      expect(kind.encode({ text: 'a,b', expiresAt: 99 })).toEqual({ text: 'a,b', expires_at: 99 });
      expect(kind.decode({ text: 'a,b', expires_at: 99 })).toEqual({ text: 'a,b', expiresAt: 99 });
    }
    expect(new Set([importFilePartItem.type, importReportPartItem.type, importJobItem.type]).size).toBe(3);
  });
});

describe("a delete's marker, an idempotency record and a lane's places, declared once", () => {
  it("a delete's marker tells a comment's backlog (null) from no sprint at all (absent), and is none without its stamped actor", () => {
    const stored = deletionItem.encode({ deletedAt: 'd', sprintId: null, restored: undefined, expiresAt: 9 });
    expect(stored).toEqual({ deleted_at: 'd', sprint_id: null, expires_at: 9 });
    expect(deletionItem.decode({ ...stored, updated_by: 4 })).toEqual({
      actorId: 4,
      deletedAt: 'd',
      sprintId: null,
      restored: undefined,
      expiresAt: 9,
    });
    expect(deletionItem.decode({ deleted_at: 'd', updated_by: 4, restored: true })).toMatchObject({
      sprintId: undefined,
      restored: true,
    });
    expect(deletionItem.field({ deleted_at: 'd', sprint_id: 3 }, 'sprintId')).toBe(3);
    expect(deletionItem.field({ deleted_at: 'd' }, 'actorId')).toBeUndefined();
    expect(deletionItem.field({ updated_by: 1.5 }, 'actorId')).toBeUndefined();
    expect(deletionItem.stored('actorId')).toBe(ACTOR_ATTRIBUTE);
  });

  it('an idempotency record is stored under the names its store hands to Powertools; a part reads its bytes, or fails', () => {
    expect(idempotencyRecordItem.stored('expiresAt')).toBe('expires_at');
    expect(idempotencyRecordItem.stored('inProgressExpiresAt')).toBe('in_progress_expires_at');
    expect(idempotencyRecordItem.stored('requestHash')).toBe('request_hash');
    const bytes = new Uint8Array([1, 2]);
    expect(idempotencyPartItem.encode({ part: bytes, expiresAt: 5 })).toEqual({ part: bytes, expires_at: 5 });
    expect(idempotencyPartItem.field({ part: bytes }, 'part')).toBe(bytes);
    expect(() => idempotencyPartItem.field({}, 'part')).toThrow(/without its bytes/);
  });

  it("a lane's places never counted read none, changed long ago", () => {
    expect(inFlightLaneItem.decode({})).toEqual({ inFlight: 0, changedAt: 0 });
    expect(inFlightLaneItem.decode({ in_flight: 3, changed_at: 1700, endpoint_7: 1 })).toEqual({ inFlight: 3, changedAt: 1700 });
  });
});

describe('a pending cascade, a migration record and the migrations lease, declared once', () => {
  it('a pending cascade is stored under the names it always had, and reads back', () => {
    const pending: PendingCascade = {
      parent: { kind: 'issue', orgId: 1, projectId: 2, issueId: 3, number: 'APL-3' },
      after: { PK: 'p', SK: 's' },
      attempts: 2,
      status: 'pending',
      error: 'boom',
    };
    const stored = pendingCascadeItem(pending, new Date('2026-01-01T00:00:00.000Z'));
    expect(stored).toEqual({
      type: 'cascade',
      status: 'pending',
      kind: 'issue',
      org_id: 1,
      project_id: 2,
      parent_id: 3,
      number: 'APL-3',
      after: { PK: 'p', SK: 's' },
      attempts: 2,
      error: 'boom',
      updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(pendingCascadeFromItem(stored)).toEqual(pending);
    // A sprint's has no number, a fresh one no cursor nor error.
    const sprint = pendingCascadeItem({
      parent: { kind: 'sprint', orgId: 1, projectId: 2, sprintId: 4 },
      attempts: 0,
      status: 'pending',
    });
    expect(Object.keys(sprint).sort()).toEqual([
      'attempts',
      'kind',
      'org_id',
      'parent_id',
      'project_id',
      'status',
      'type',
      'updated_at',
    ]);
  });

  it('a pending cascade with no attempts counted reads 0, any status but failed reads pending, an unknown kind is none', () => {
    const bare = { type: 'cascade', kind: 'project', org_id: 1, project_id: 2, parent_id: 2 };
    expect(pendingCascadeFromItem(bare)).toMatchObject({ attempts: 0, status: 'pending', after: undefined, error: undefined });
    expect(pendingCascadeFromItem({ ...bare, status: 'odd' })?.status).toBe('pending');
    expect(pendingCascadeFromItem({ ...bare, kind: 'comment' })).toBeUndefined();
    expect(pendingCascadeFromItem({ ...bare, type: 'sprint' })).toBeUndefined();
    expect(pendingCascadeFromItem({ ...bare, org_id: undefined })).toBeUndefined();
    expect(cascadeItem.stored('parentId')).toBe('parent_id');
  });

  it('a migration record keeps its cursor as JSON text; a record without counts, steps or runs reads none', () => {
    const record: MigrationRecord = {
      name: '0001-x',
      status: 'running',
      startedAt: 's',
      cursor: { PK: 'a', n: 1 },
      counts: { moved: 2 },
      steps: 1,
      runs: 1,
    };
    const stored = migrationRecordItem.encode(record);
    expect(stored).toEqual({
      name: '0001-x',
      status: 'running',
      started_at: 's',
      cursor: '{"PK":"a","n":1}',
      counts: { moved: 2 },
      steps: 1,
      runs: 1,
    });
    expect(migrationRecordItem.decode(stored)).toEqual(record);
    expect(migrationRecordItem.decode({ name: '0001-x', status: 'done', baseline: true })).toMatchObject({
      counts: {},
      steps: 0,
      runs: 0,
      cursor: undefined,
      baseline: true,
    });
  });

  it("the lease's end is stored as lease_until", () => {
    expect(migrationLeaseItem.encode({ owner: 'o', until: 5, takenAt: 't' })).toEqual({
      owner: 'o',
      lease_until: 5,
      taken_at: 't',
    });
    expect(migrationLeaseItem.decode({ owner: 'o', lease_until: 5, taken_at: 't' })).toEqual({
      owner: 'o',
      until: 5,
      takenAt: 't',
    });
  });
});

describe("a kind's update, spelled from its declaration", () => {
  it('sets, adds, deletes from a set and removes by field, under the stored names', () => {
    expect(
      issueItem.update({
        set: { title: 'Ship it', updatedAt: '2026-12-02T10:00:00.000Z' },
        add: { rev: 1, commentsCount: -1 },
        delete: { commentsWithFilesInTrash: new Set([7]) },
        remove: ['parentId'],
      }),
    ).toEqual({
      UpdateExpression:
        'SET #title = :title, #updatedAt = :updatedAt REMOVE #parentId ADD #rev :revAdded, #commentsCount :commentsCountAdded DELETE #commentsWithFilesInTrash :commentsWithFilesInTrashDeleted',
      ExpressionAttributeNames: {
        '#title': 'title',
        '#updatedAt': 'updated_at',
        '#parentId': 'parent_id',
        '#rev': 'rev',
        '#commentsCount': 'comments_count',
        '#commentsWithFilesInTrash': 'comments_with_files_in_trash',
      },
      ExpressionAttributeValues: {
        ':title': 'Ship it',
        ':updatedAt': '2026-12-02T10:00:00.000Z',
        ':revAdded': 1,
        ':commentsCountAdded': -1,
        ':commentsWithFilesInTrashDeleted': new Set([7]),
      },
    });
  });

  it('removes a value its attribute stores as no attribute, and encodes what it sets', () => {
    const change = issueItem.update({ set: { restoredAt: undefined, labelIds: [] } });
    expect(change.UpdateExpression).toBe('SET #labelIds = :labelIds REMOVE #restoredAt');
    expect(change.ExpressionAttributeValues).toEqual({ ':labelIds': null });
  });

  it('writes on a guard: the item there, fields holding values, fields absent; a condition of its own is joined with AND', () => {
    const guarded = commentItem.update({ set: { body: 'edited' }, if: { exists: true, equals: { authorId: 7 } } });
    expect(guarded).toEqual({
      UpdateExpression: 'SET #body = :body',
      ConditionExpression: 'attribute_exists(PK) AND #authorId = :authorIdWas',
      ExpressionAttributeNames: { '#body': 'body', '#authorId': 'author_id' },
      ExpressionAttributeValues: { ':body': 'edited', ':authorIdWas': 7 },
    });
    expect(
      alsoIf(guarded, {
        ConditionExpression: '#v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': 3 },
      }),
    ).toMatchObject({
      ConditionExpression: 'attribute_exists(PK) AND #authorId = :authorIdWas AND #v = :v',
      ExpressionAttributeNames: { '#body': 'body', '#authorId': 'author_id', '#v': 'version' },
      ExpressionAttributeValues: { ':body': 'edited', ':authorIdWas': 7, ':v': 3 },
    });
    expect(commentItem.update({ set: { body: 'new' }, if: { exists: false } }).ConditionExpression).toBe(
      'attribute_not_exists(PK)',
    );
    expect(
      commentItem.update({
        set: { hasAttachments: true },
        if: { exists: true, equals: { authorId: 7 }, absent: ['restoredAt'] },
      }),
    ).toMatchObject({
      ConditionExpression: 'attribute_exists(PK) AND #authorId = :authorIdWas AND attribute_not_exists(#restoredAt)',
      ExpressionAttributeNames: { '#hasAttachments': 'has_attachments', '#authorId': 'author_id', '#restoredAt': 'restored_at' },
    });
  });
});

describe('sentFields', () => {
  it('keeps what a change sent (null included), so an update sets those and removes nothing it was not sent', () => {
    const fields: { title?: string; description?: string | null; storyPoints?: number | null } = {
      title: 'Renamed',
      description: null,
      storyPoints: undefined,
    };
    expect(sentFields(fields)).toEqual({ title: 'Renamed', description: null });
    expect(issueItem.update({ set: sentFields(fields) }).UpdateExpression).toBe(
      'SET #title = :title, #description = :description',
    );
  });
});

import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { asRestored, changeEventOf, issueChanges, withStateNames } from '../../lib/feed/events.ts';
import { activityOf } from '../../lib/feed/consume.ts';
import { defaultStates, type Workflow } from '../../lib/model/workflow.ts';
import { deletedKeyOf } from '../../lib/db/core/stream-images.ts';
import { trashMarkerKey } from '../../lib/db/core/keys.ts';

const issue = {
  type: 'issue',
  org_id: 1,
  id: 9,
  project_id: 2,
  sprint_id: 4,
  issue_number: 'AP-9',
  title: 'T',
  description: 'd',
  status: 'todo',
  story_points: 3,
  position: 1000,
  assignee_id: null,
  started_at: null,
  completed_at: null,
  created_at: '2026-11-20T00:00:00.000Z',
  updated_at: '2026-11-20T00:00:00.000Z',
  rev: 1,
  updated_by: 5,
};

const record = (eventName: DynamoDBRecord['eventName'], before?: object, after?: object): DynamoDBRecord => ({
  eventID: 'e1',
  eventName,
  dynamodb: {
    SequenceNumber: '100',
    ApproximateCreationDateTime: 1_795_000_000,
    ...(before ? { OldImage: marshall(before) as never } : {}),
    ...(after ? { NewImage: marshall(after) as never } : {}),
  },
});

describe('change events from stream records', () => {
  it('an item of type comment that names no issue is no event (it would stop the feed behind it)', () => {
    const stray = { type: 'comment', org_id: 1, id: 3, project_id: 2 };
    expect(changeEventOf(record('REMOVE', stray))).toBeUndefined();
    expect(changeEventOf(record('REMOVE', { ...stray, issue_id: 9 }))).toMatchObject({ type: 'comment.deleted', issueId: 9 });
  });

  it('an issue write that changes no field a client sees (a counter) is no event', () => {
    expect(changeEventOf(record('MODIFY', issue, { ...issue, comments_count: 1, activity_count: 2 }))).toBeUndefined();
  });

  it('a neighbour renumbered by another issue’s move (no revision bump) is no event', () => {
    expect(changeEventOf(record('MODIFY', issue, { ...issue, position: 2000 }))).toBeUndefined();
  });

  it('a move of the issue itself is a position change without a place', () => {
    expect(issueChanges(issue, { ...issue, position: 2000, rev: 2 })).toEqual([{ field: 'position' }]);
  });

  it('reports priority, type (stored as issue_type) and due date from/to, an issue written before them holding their defaults', () => {
    const classified = { ...issue, priority: 'high', issue_type: 'bug', due_date: '2026-12-31', rev: 2 };
    expect(issueChanges(issue, classified)).toEqual([
      { field: 'priority', from: 'none', to: 'high' },
      { field: 'type', from: 'task', to: 'bug' },
      { field: 'due_date', from: null, to: '2026-12-31' },
    ]);
    expect(issueChanges(classified, { ...classified, due_date: null })).toEqual([
      { field: 'due_date', from: '2026-12-31', to: null },
    ]);
    // Written with the defaults on an issue that held none: no change.
    expect(issueChanges(issue, { ...issue, priority: 'none', issue_type: 'task', due_date: null })).toEqual([]);
    const event = changeEventOf(record('MODIFY', issue, classified));
    expect(event?.resource).toMatchObject({ priority: 'high', type: 'bug', due_date: '2026-12-31' });
    expect(changeEventOf(record('INSERT', undefined, issue))?.resource).toMatchObject({
      priority: 'none',
      type: 'task',
      due_date: null,
    });
  });

  it('reports labels added and removed by a write of the issue, by id, and none taken off by a label delete', () => {
    const labelled = { ...issue, label_ids: new Set([3, 7]) };
    const relabelled = changeEventOf(record('MODIFY', labelled, { ...issue, label_ids: new Set([7, 12]), rev: 2 }));
    expect(relabelled).toMatchObject({
      type: 'issue.updated',
      changes: [{ field: 'labels', from: [3, 7], to: [7, 12], added: [12], removed: [3] }],
    });
    // The payload's issue names its labels by id: a stream record holds no catalogue.
    expect(relabelled?.resource).toMatchObject({ label_ids: [7, 12] });
    expect(relabelled?.resource).not.toHaveProperty('labels');
    expect(issueChanges(labelled, { ...issue, label_ids: null, rev: 2 })).toEqual([
      { field: 'labels', from: [3, 7], to: [], added: [], removed: [3, 7] },
    ]);
    // The cascade of a label's delete takes it off without a revision: no change of the issue's own.
    expect(changeEventOf(record('MODIFY', labelled, { ...issue, label_ids: new Set([7]) }))).toBeUndefined();
    // The same labels written again are no change.
    expect(issueChanges(labelled, { ...labelled, rev: 2 })).toEqual([]);
  });

  it('reports custom fields set by a write, by field id with their values before and after, and none settled by a cascade', () => {
    const valued = { ...issue, custom_fields: { 4: 6, 9: 'Acme', 12: [13, 14] } };
    const changed = changeEventOf(
      record('MODIFY', valued, { ...issue, custom_fields: { 4: 5, 12: [13, 14], 20: true }, rev: 2 }),
    );
    expect(changed).toMatchObject({
      type: 'issue.updated',
      changes: [{ field: 'custom_fields', from: { 4: 6, 9: 'Acme', 20: null }, to: { 4: 5, 9: null, 20: true } }],
    });
    // The payload's issue carries them by field id too: a stream record holds no definitions.
    expect(changed?.resource).toMatchObject({ custom_field_values: { 4: 5, 12: [13, 14], 20: true } });
    expect(changed?.resource).not.toHaveProperty('custom_fields');
    // A field's cascade settles values without a revision: no change of the issue's own.
    expect(changeEventOf(record('MODIFY', valued, { ...issue, custom_fields: { 4: 6 } }))).toBeUndefined();
  });

  it('carries the actor stamped by the write, and none for a delete', () => {
    const updated = changeEventOf(record('MODIFY', issue, { ...issue, status: 'done', rev: 2, updated_by: 6 }));
    expect(updated).toMatchObject({
      type: 'issue.updated',
      actorId: 6,
      changes: [{ field: 'status', from: 'todo', to: 'done' }],
    });
    expect(changeEventOf(record('REMOVE', issue))).toMatchObject({ type: 'issue.deleted', actorId: null });
  });

  it('reports a sprint only when it is activated or completed', () => {
    const sprint = { type: 'sprint', org_id: 1, id: 4, project_id: 2, name: 'S', slug: 's', status: 'planning', updated_by: 5 };
    expect(changeEventOf(record('MODIFY', sprint, { ...sprint, name: 'Renamed' }))).toBeUndefined();
    expect(changeEventOf(record('MODIFY', sprint, { ...sprint, status: 'active' }))?.type).toBe('sprint.activated');
  });

  it('ignores inserts and updates made outside a request (no actor stamped)', () => {
    const { updated_by: _none, ...unstamped } = issue;
    expect(changeEventOf(record('INSERT', undefined, unstamped))).toBeUndefined();
    expect(changeEventOf(record('INSERT', undefined, issue))?.type).toBe('issue.created');
  });

  it('ignores items that are not projects, sprints, issues or comments', () => {
    expect(
      changeEventOf(record('INSERT', undefined, { type: 'activity', org_id: 1, id: 1, project_id: 2, updated_by: 5 })),
    ).toBeUndefined();
  });
});

describe('an issue event with its states named by its project’s workflow', () => {
  const now = '2026-11-20T00:00:00.000Z';
  const review = { ...defaultStates(now)[2]!, id: 6, name: 'In review', order: 3500 };
  const workflow: Workflow = {
    states: [...defaultStates(now), review].sort((a, b) => a.order - b.order),
    homes: { backlog: 1, todo: 2, in_progress: 3, done: 4, cancelled: 5 },
    moved: new Map(),
    rev: 1,
    lastId: 6,
  };
  const inProgress = { ...issue, status: 'in_progress', state_id: 3 };
  const named = (before: object, after: object) =>
    withStateNames(changeEventOf(record('MODIFY', before, { ...after, rev: 2 }))!, workflow);

  it('names a move within a category by the states’ names and ids', () => {
    const event = named(inProgress, { ...inProgress, state_id: 6 });
    expect(event.changes).toEqual([
      { field: 'status', from: 'in_progress', to: 'in_review' },
      { field: 'state_id', from: 3, to: 6 },
    ]);
    expect(event.resource).toMatchObject({ status: 'in_review', state_id: 6, status_category: 'in_progress' });
  });

  it('adds the category when it changes, and names an issue written before workflows by its category’s home', () => {
    const event = named(issue, { ...issue, status: 'in_progress', state_id: 6 });
    expect(event.changes).toEqual([
      { field: 'status', from: 'todo', to: 'in_review' },
      { field: 'state_id', from: 2, to: 6 },
      { field: 'status_category', from: 'todo', to: 'in_progress' },
    ]);
    // The states a GET would list next, from the project's workflow rather than the five categories.
    expect(event.resource.allowed_next_states).toEqual(['backlog', 'todo', 'in_progress', 'done', 'cancelled']);
  });

  it('leaves an event as recorded without a workflow, and other fields’ changes where they were', () => {
    const raw = changeEventOf(record('MODIFY', inProgress, { ...inProgress, state_id: 6, title: 'U', rev: 2 }))!;
    expect(withStateNames(raw, undefined)).toBe(raw);
    expect(withStateNames(raw, workflow).changes.map((c) => c.field)).toEqual(['title', 'status', 'state_id']);
  });
});

describe('import.completed: one event per import job, when it ends', () => {
  const job = {
    type: 'import_job',
    org_id: 1,
    id: '6f0c2a52-8a3e-4c1c-9d8a-0b1d2c3e4f50',
    account_id: 5,
    project_id: 2,
    format: 'jira-csv',
    dry_run: false,
    status: 'running',
    progress: { rows: 8, created: 6, rejected: 2 },
    report: null,
    error: null,
    updated_at: '2026-11-20T00:00:00.000Z',
  };
  const report = { rows: 8, created: 6, already_imported: 0, rejected: 2, comments: 4, warnings: [{ row: 3 }, { row: 5 }] };

  it('carries the counts of the report when the job succeeds or fails, once (a job written again as it is is none)', () => {
    const done = { ...job, status: 'succeeded', report };
    expect(changeEventOf(record('MODIFY', job, done))).toMatchObject({
      type: 'import.completed',
      orgId: 1,
      projectId: 2,
      actorId: 5,
      at: '2026-11-20T00:00:00.000Z',
      resource: {
        id: job.id,
        status: 'succeeded',
        rows: 8,
        created: 6,
        already_imported: 0,
        rejected: 2,
        comments: 4,
        warnings: 2,
      },
      changes: [],
    });
    expect(changeEventOf(record('MODIFY', job, { ...job, status: 'failed', error: 'boom' }))).toMatchObject({
      resource: { status: 'failed', created: 6, error: 'boom' },
    });
    expect(changeEventOf(record('MODIFY', done, done))).toBeUndefined();
  });

  it('is no event while the job runs or waits for its next run, nor for its upload', () => {
    expect(changeEventOf(record('INSERT', undefined, { ...job, status: 'queued' }))).toBeUndefined();
    expect(changeEventOf(record('MODIFY', { ...job, status: 'queued' }, job))).toBeUndefined();
    expect(changeEventOf(record('MODIFY', job, { ...job, status: 'queued' }))).toBeUndefined();
  });

  it("an export file's job sums its projects' counts and names no project", () => {
    const exported = {
      ...job,
      project_id: null,
      format: 'export',
      status: 'succeeded',
      report: {
        lines: 40,
        comments: 3,
        projects: { APL: { created: 4, already_imported: 1, rejected: 0 }, OPS: { created: 2, rejected: 1 } },
      },
    };
    expect(changeEventOf(record('MODIFY', job, exported))).toMatchObject({
      projectId: 0,
      resource: { project_id: null, rows: 40, created: 6, already_imported: 1, rejected: 1, comments: 3 },
    });
  });
});

describe('a trash item removed: <kind>.purged, or <kind>.restored when its marker says a restore made it', () => {
  const label = {
    PK: 'ORG#1#P#2',
    SK: 'LABEL#0000000007',
    type: 'label',
    org_id: 1,
    project_id: 2,
    id: 7,
    name: 'bug',
    color: '#d73a4a',
    description: null,
    created_at: '2026-11-20T00:00:00.000Z',
    updated_at: '2026-11-20T00:00:00.000Z',
    version: 3,
  };
  const webhook = {
    PK: 'ORG#1',
    SK: 'WEBHOOK#0000000004',
    type: 'webhook',
    org_id: 1,
    id: 4,
    url: 'http://127.0.0.1:9/hooks',
    events: ['*'],
    secret: 'whsec_c2VjcmV0',
    active: true,
    created_at: '2026-11-20T00:00:00.000Z',
    updated_at: '2026-11-20T00:00:00.000Z',
  };
  const trash = (kind: string, stored: object) => ({ PK: 'ORG#1#TRASH', SK: 'X', type: 'trash', kind, stored, version: 1 });

  it('shows a label as its route answers it, in its project, with no actor until a marker names one', () => {
    const event = changeEventOf(record('REMOVE', trash('label', label)));
    expect(event).toMatchObject({ type: 'label.purged', orgId: 1, projectId: 2, actorId: null, changes: [] });
    expect(event?.resource).toEqual({
      id: 7,
      project_id: 2,
      name: 'bug',
      color: '#d73a4a',
      description: null,
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-20T00:00:00.000Z',
    });
    expect(asRestored(event!).type).toBe('label.restored');
  });

  it('shows a webhook endpoint without its secret, as an event of the organisation (project 0)', () => {
    const event = changeEventOf(record('REMOVE', trash('webhook', webhook)));
    expect(event).toMatchObject({ type: 'webhook.purged', orgId: 1, projectId: 0 });
    expect(event?.resource).not.toHaveProperty('secret');
    expect(event?.resource).toMatchObject({ id: 4, url: webhook.url });
    expect(asRestored(event!).type).toBe('webhook.restored');
  });

  it('shows an issue as its other events do, on itself, in its sprint; its restore is an entry of its history, its purge none', () => {
    const issue = {
      PK: 'ORG#1#P#2',
      SK: 'ISSUE#0000000009',
      type: 'issue',
      org_id: 1,
      project_id: 2,
      sprint_id: 5,
      id: 9,
      issue_number: 'AP-9',
      title: 'Login fails',
      status: 'todo',
      position: 1000,
      label_ids: new Set([4]),
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-21T00:00:00.000Z',
      version: 2,
    };
    const event = changeEventOf(record('REMOVE', trash('issue', issue)));
    expect(event).toMatchObject({ type: 'issue.purged', orgId: 1, projectId: 2, issueId: 9, sprintId: 5, actorId: null });
    expect(event?.resource).toMatchObject({ id: 9, issue_number: 'AP-9', sprint_id: 5, label_ids: [4] });
    expect(event?.resource).not.toHaveProperty('position');
    expect(activityOf(event!)).toBeUndefined();
    const restored = asRestored(event!);
    expect(restored.type).toBe('issue.restored');
    expect(activityOf(restored)?.owner).toEqual({ issueId: 9 });
    // The restore's write of the issue is no issue.created: the trash item's removal is its event.
    const written = { ...issue, updated_by: 3 };
    expect(changeEventOf(record('INSERT', undefined, written))?.type).toBe('issue.created');
    expect(changeEventOf(record('INSERT', undefined, { ...written, restored_at: '2026-11-22T00:00:00.000Z' }))).toBeUndefined();
  });

  it("shows a comment as its route answers it, on its issue (whose activity shows it), in its issue's sprint", () => {
    const comment = {
      PK: 'ORG#1#P#2',
      SK: 'ISSUE#0000000009#C#0000000011',
      type: 'comment',
      org_id: 1,
      project_id: 2,
      sprint_id: 5,
      issue_id: 9,
      id: 11,
      body: 'Looks good',
      author_id: 3,
      author_name: 'Ada',
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-21T00:00:00.000Z',
      version: 2,
    };
    const event = changeEventOf(record('REMOVE', trash('comment', comment)));
    expect(event).toMatchObject({ type: 'comment.purged', orgId: 1, projectId: 2, issueId: 9, commentId: 11, sprintId: 5 });
    expect(event?.resource).toEqual({
      id: 11,
      body: 'Looks good',
      issue_id: 9,
      author_id: 3,
      author_name: 'Ada',
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-21T00:00:00.000Z',
    });
    expect(asRestored(event!).type).toBe('comment.restored');
    // The restore's write of the comment is no comment.created: the trash item's removal is its event.
    const written = { ...comment, updated_by: 3 };
    expect(changeEventOf(record('INSERT', undefined, written))?.type).toBe('comment.created');
    expect(changeEventOf(record('INSERT', undefined, { ...written, restored_at: '2026-11-22T00:00:00.000Z' }))).toBeUndefined();
  });

  it('shows a sprint and a project as their routes answer them; their restores write no created event', () => {
    const sprint = {
      PK: 'ORG#1#P#2',
      SK: 'SPRINT#5',
      type: 'sprint',
      org_id: 1,
      project_id: 2,
      id: 5,
      name: 'Sprint 5',
      slug: 'sprint-5',
      status: 'planning',
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-20T00:00:00.000Z',
    };
    const purged = changeEventOf(record('REMOVE', trash('sprint', sprint)));
    expect(purged).toMatchObject({ type: 'sprint.purged', orgId: 1, projectId: 2, sprintId: 5, actorId: null });
    expect(purged?.resource).toMatchObject({ id: 5, name: 'Sprint 5', project_id: 2, status: 'planning' });
    expect(asRestored(purged!).type).toBe('sprint.restored');
    const project = {
      PK: 'ORG#1',
      SK: 'PROJECT#2',
      type: 'project',
      org_id: 1,
      id: 2,
      name: 'Apollo',
      prefix: 'AP',
      created_at: '2026-11-20T00:00:00.000Z',
      updated_at: '2026-11-20T00:00:00.000Z',
    };
    const gone = changeEventOf(record('REMOVE', trash('project', project)));
    expect(gone).toMatchObject({ type: 'project.purged', orgId: 1, projectId: 2 });
    expect(gone?.resource).toMatchObject({ id: 2, name: 'Apollo', prefix: 'AP' });
    expect(asRestored(gone!).type).toBe('project.restored');
    // Put back by a restore: no event of their own (the trash item's removal is it).
    expect(changeEventOf(record('INSERT', undefined, { ...sprint, updated_by: 3 }))).toBeUndefined();
    expect(changeEventOf(record('INSERT', undefined, { ...project, updated_by: 3 }))).toBeUndefined();
  });

  it('is nothing when it is written, or holds no item', () => {
    expect(changeEventOf(record('INSERT', undefined, trash('label', label)))).toBeUndefined();
    const { stored: _stored, ...empty } = trash('label', label);
    expect(changeEventOf(record('REMOVE', empty))).toBeUndefined();
    expect(changeEventOf(record('REMOVE', trash('account', label)))).toBeUndefined();
  });
});

describe("a trash item's delete marker", () => {
  it('is named by the delete that trashed it, so a restore and a later purge of the same key keep one each', () => {
    const trashed = (at: string) => ({ PK: 'ORG#1#TRASH', SK: 'LABEL#0000000007', type: 'trash', kind: 'label', deleted_at: at });
    const first = deletedKeyOf(record('REMOVE', trashed('2026-11-20T00:00:00.000Z')));
    const second = deletedKeyOf(record('REMOVE', trashed('2026-11-21T00:00:00.000Z')));
    expect(first).toEqual(trashMarkerKey({ PK: 'ORG#1#TRASH', SK: 'LABEL#0000000007' }, '2026-11-20T00:00:00.000Z'));
    expect(second).not.toEqual(first);
    // Any other item's marker is under its own key.
    expect(deletedKeyOf(record('REMOVE', { ...issue, PK: 'ORG#1#P#2', SK: 'ISSUE#9' }))).toEqual({
      PK: 'ORG#1#P#2',
      SK: 'ISSUE#9',
    });
  });
});

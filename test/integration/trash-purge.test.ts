import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys, orgPk, projectPk } from '../../lib/db/core/keys.ts';
import { derivedDifferences, readDerivedState } from '../../lib/jobs/reindex.ts';
import { startStreamReader, type StreamReader } from '../../tools/local/stream-poller.ts';
import { apiClient, type ApiClient, newOrganisation, randomPrefix, startGateway } from '../support/api.ts';
import { bounds, eventually } from '../support/eventually.ts';
import { wholeTable } from '../support/own-table.ts';
import { pastRetention } from '../support/trash.ts';
import { attachmentObjectKey, headObject } from '../../lib/aws/objects.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';

/**
 * What the trash leaves behind once its items are purged (docs/trash.md), on a table of this
 * file's own read whole (the `own-table` project of vitest.config.ts), with the stack's cascade and
 * change feed consumers reading its stream: an organisation's table after things were made,
 * deleted, and purged by an admin or by their retention's end (and DynamoDB's TTL, which DynamoDB
 * Local does not apply: this file deletes what it would have) holds exactly what it held before
 * they were made, but for the history that says so and the times and versions of what they touched.
 */
let gateway: Awaited<ReturnType<typeof startGateway>>;
let reader: StreamReader | undefined;
// The endpoints' target: a receiver on 127.0.0.1 (none of their events is sent in this file).
let receiver: Receiver | undefined;
beforeAll(async () => {
  gateway = await startGateway();
  receiver = await startReceiver();
  reader = await startStreamReader({ endpoint: process.env.DYNAMODB_ENDPOINT!, tableName: tableName() }, [
    // The cascade consumer (functions/cascade.ts) and the change feed (functions/change-feed.ts), as the stack maps them.
    {},
    { functionModule: 'functions/change-feed.ts', filters: (await import('../../lib/db/core/table.ts')).changeFeedStreamFilters },
  ]);
});
afterAll(async () => {
  await reader?.stop();
  await receiver?.close();
  await gateway?.close();
});

type Item = Record<string, unknown>;

const keyOf = (item: Item) => `${String(item.PK)} | ${String(item.SK)}`;

/**
 * What a change leaves on what it touched and may: when and by whom it was written, its versions,
 * the count of its history, list keys made of its time; a token's rate-limit bucket (`tat`), which
 * every request moves; and the id sequences, which never go back (the organisation's, and a
 * project's issue numbers, ids and positions).
 */
const VOLATILE = new Set([
  'tat',
  'updated_at',
  'updated_by',
  'rev',
  'version',
  'activity_count',
  'backlog_rev',
  'positions_rev',
  'issue_seq',
  'issue_id_next',
  'issue_id_end',
  'position_seq',
]);
function steady(items: Item[]): Map<string, Item> {
  const out = new Map<string, Item>();
  for (const item of items) {
    if (item.SK === 'SEQ') continue;
    const kept: Item = {};
    // In name order: an item written again may list its attributes in another order.
    for (const [name, value] of Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (VOLATILE.has(name)) continue;
      // A counter back at zero, or a map emptied (a relation made and taken off again), is as absent.
      if (
        value === 0 ||
        (value !== null && typeof value === 'object' && !(value instanceof Set) && Object.keys(value).length === 0)
      ) {
        continue;
      }
      // The search record's and an assignee entry's list keys are made of the issue's `updated_at`.
      if (name === 'LSK' && /^(U|MI)#/.test(String(value))) continue;
      kept[name] = value instanceof Set ? [...(value as Set<unknown>)].sort() : value;
    }
    out.set(keyOf(item), kept);
  }
  return out;
}

/** Deletes what DynamoDB's TTL would have by `days` from now: every item whose `expires_at` is before then. */
async function ttlAfter(days: number): Promise<number> {
  const until = Math.floor(Date.now() / 1000) + days * 86_400;
  const due = (await wholeTable()).filter((i) => typeof i.expires_at === 'number' && i.expires_at <= until);
  for (const item of due) await db.send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
  return due.length;
}

async function made(client: ApiClient, path: string, body: unknown) {
  const res = await client.post(path, body);
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** A ready attachment of `issueKey` (on its comment `commentId`, if given): declared, posted to the local S3 server with its form, completed. */
async function attached(client: ApiClient, issueKey: string, size: number, commentId?: number) {
  const base = `/api/v1/issues/${issueKey}/attachments`;
  const file = Buffer.alloc(size, 5);
  const declared = await made(client, base, {
    attachment: {
      name: 'f.bin',
      content_type: 'application/octet-stream',
      size,
      ...(commentId ? { comment_id: commentId } : {}),
    },
  });
  const form = new FormData();
  for (const [name, value] of Object.entries(declared.upload.fields as Record<string, string>)) form.set(name, value);
  form.set('file', new Blob([new Uint8Array(file)], { type: 'application/octet-stream' }), 'file');
  expect((await fetch(declared.upload.url, { method: 'POST', body: form })).status).toBe(204);
  expect((await client.post(`${base}/${declared.id}/complete`)).status).toBe(200);
  // Where the file lives once completed (the form posted elsewhere: docs/attachments.md).
  const { project_id: projectId, id: issueId } = (await client.get(`/api/v1/issues/${issueKey}`)).body;
  const orgId = Number(/^staging\/o\/(\d+)\//.exec(declared.upload.fields.key as string)![1]);
  return { id: declared.id as number, objectKey: attachmentObjectKey(orgId, projectId, issueId, declared.id) };
}

/**
 * The table now holds what it held `before`, but for the history that says what happened (new
 * activity entries) and what a change leaves on what it touched (`steady`); and every count and
 * index of organisation `orgId` agrees with a rebuild from its issues.
 */
async function expectAsBefore(before: Item[], orgId: number): Promise<void> {
  const after = await wholeTable();
  const [was, is] = [steady(before), steady(after)];
  expect(
    [...was.keys()].filter((k) => !is.has(k)),
    'nothing that was there before is gone',
  ).toEqual([]);
  const left = [...is.keys()].filter((k) => !was.has(k));
  // Notifications are history too (of the kept issues: those of the purged ones go with them, as
  // the checks of what lived under them say), and so are an inbox's count and who was notified of an issue.
  const history = (i: Item) =>
    i.type === 'activity' || i.type === 'notification' || i.SK === 'INBOX' || String(i.PK).endsWith('#NOTIFIED');
  expect(after.filter((i) => left.includes(keyOf(i)) && !history(i)).map(keyOf), 'nothing left but history').toEqual([]);
  const changed = [...was].filter(([key, item]) => !history(item) && JSON.stringify(is.get(key)) !== JSON.stringify(item));
  expect(
    changed.map(([key, item]) => ({ key, before: item, after: is.get(key) })),
    'everything else as it was',
  ).toEqual([]);
  expect(derivedDifferences(await readDerivedState(orgId))).toEqual([]);
}

describe('a purge, by an admin or at the end of the retention period', () => {
  it('leaves the table as it was before the purged things were made, but for the history that says so', async () => {
    const org = await newOrganisation();
    const admin = apiClient(gateway.baseUrl, org.admin.token);
    const project = await made(admin, '/api/v1/projects', { project: { name: 'Purge', prefix: randomPrefix() } });
    const pp = `/api/v1/projects/${project.id}`;
    const sprint = await made(admin, `${pp}/sprints`, { sprint: { name: 'Sprint' } });
    const inSprint = await made(admin, `${pp}/sprints/${sprint.id}/issues`, {
      issue: { title: 'In the sprint', story_points: 3, assignee_id: org.member.id },
    });
    const inBacklog = await made(admin, `${pp}/issues`, { issue: { title: 'In the backlog' } });
    const issuePaths = [`${pp}/sprints/${sprint.id}/issues/${inSprint.id}`, `${pp}/issues/${inBacklog.id}`];
    const keptLabel = await made(admin, `${pp}/labels`, { label: { name: 'kept' } });
    for (const path of issuePaths) expect((await admin.patch(path, { issue: { labels: [keptLabel.id] } })).status).toBe(200);
    await made(admin, `${issuePaths[0]}/comments`, { comment: { body: 'Kept' } });
    // A file on each issue: their counts (the issue's files, the organisation's bytes) are there before.
    const keptFiles = [await attached(admin, inSprint.issue_number, 300), await attached(admin, inBacklog.issue_number, 400)];
    await made(admin, '/api/v1/webhooks', { webhook: { url: `${receiver!.url}/kept`, events: ['sprint.completed'] } });
    // The history the writes so far make (two issues created, their labels set, a comment), written
    // by the change feed before the table is read.
    await eventually(
      'the history of what was made so far',
      async () => (await wholeTable()).filter((i) => i.type === 'activity').length,
      (n) => n >= 7,
    );
    const before = await wholeTable();

    // Things made, then deleted into the trash: two of each kind, one to purge, one to expire.
    const labels = [
      await made(admin, `${pp}/labels`, { label: { name: 'purged' } }),
      await made(admin, `${pp}/labels`, { label: { name: 'expired' } }),
    ];
    for (const path of issuePaths)
      expect((await admin.patch(path, { issue: { labels: [keptLabel.id, ...labels.map((l) => l.id)] } })).status).toBe(200);
    const comments = [
      await made(admin, `${issuePaths[0]}/comments`, { comment: { body: 'Purged' } }),
      await made(admin, `${issuePaths[1]}/comments`, { comment: { body: 'Expired' } }),
    ];
    // Each with a file, kept in the trash with it until its purge or expiry.
    const commentFiles = [
      await attached(admin, inSprint.issue_number, 1000, comments[0].id),
      await attached(admin, inBacklog.issue_number, 2000, comments[1].id),
    ];
    const webhooks = [
      await made(admin, '/api/v1/webhooks', {
        webhook: { url: `${receiver!.url}/purged`, events: ['sprint.completed'] },
      }),
      await made(admin, '/api/v1/webhooks', {
        webhook: { url: `${receiver!.url}/expired`, events: ['sprint.completed'] },
      }),
    ];
    for (const label of labels) expect((await admin.delete(`${pp}/labels/${label.id}`)).status).toBe(204);
    for (const comment of comments) expect((await admin.delete(`/api/v1/comments/${comment.id}`)).status).toBe(204);
    for (const webhook of webhooks) expect((await admin.delete(`/api/v1/webhooks/${webhook.id}`)).status).toBe(204);
    // Issues of the backlog with what lives under them (a comment each, their history), an
    // assignee, a label and a number; deleted into the trash with all of it.
    const doomed = [
      await made(admin, `${pp}/issues`, { issue: { title: 'Purged', assignee_id: org.member.id, labels: ['kept'] } }),
      await made(admin, `${pp}/issues`, { issue: { title: 'Expired', assignee_id: org.member.id, labels: ['kept'] } }),
    ];
    for (const issue of doomed) await made(admin, `${pp}/issues/${issue.id}/comments`, { comment: { body: 'Under it' } });
    await eventually(
      'the history of the issues to be purged',
      async () => (await wholeTable()).filter((i) => i.type === 'activity' && doomed.some((x) => x.id === i.issue_id)).length,
      (n) => n >= 4,
    );
    for (const issue of doomed) expect((await admin.delete(`${pp}/issues/${issue.id}`)).status).toBe(204);
    const trashed = (await admin.get('/api/v1/trash?per_page=100')).body as { id: string; item_id: number; kind: string }[];
    expect(trashed).toHaveLength(8);

    // One of each purged by an admin; the other past its retention, then deleted by the TTL.
    for (const id of [`label-${labels[0].id}`, `comment-${comments[0].id}`, `webhook-${webhooks[0].id}`, `issue-${doomed[0].id}`])
      expect((await admin.delete(`/api/v1/trash/${id}`)).status).toBe(204);
    const trashPk = keys.trash(org.orgId, '').PK;
    const expiring = (await wholeTable()).filter((i) => i.PK === trashPk);
    expect(expiring).toHaveLength(4);
    for (const item of expiring) await pastRetention({ PK: String(item.PK), SK: String(item.SK) });
    expect((await admin.get('/api/v1/trash')).body).toEqual([]);
    expect(await ttlAfter(0)).toBe(4);

    // The cascades the purges started take the labels off their issues, and what lived under the purged issues away.
    await eventually(
      'the purged labels off every issue',
      async () => (await wholeTable()).filter((i) => i.type === 'issue' && (i.label_ids as Set<number>).size > 1).length,
      (n) => n === 0,
    );
    await eventually(
      'what lived under the purged issues gone',
      async () => (await wholeTable()).filter((i) => doomed.some((x) => x.id === i.issue_id)).length,
      (n) => n === 0,
    );
    // The purged comments' files go with them, from the table and from the bucket.
    await eventually(
      'the files of the purged comments gone',
      async () => (await wholeTable()).filter((i) => i.type === 'attachment' && commentFiles.some((f) => f.id === i.id)).length,
      (n) => n === 0,
    );
    for (const f of commentFiles)
      await eventually(
        `${f.objectKey} removed from the bucket`,
        () => headObject(f.objectKey),
        (o) => o === undefined,
      );
    for (const f of keptFiles) expect(await headObject(f.objectKey)).toBeDefined();
    // Past every TTL the deletes and purges set (their markers'), the trash is all gone.
    expect(await ttlAfter(3)).toBeGreaterThan(0);
    await eventually(
      'the history of the purges',
      async () => (await wholeTable()).filter((i) => /purged/.test(String(i.event))).length,
      (n) => n >= 2,
    );

    // What is new is history (the issues' activity: labels set, comments made, deleted, purged).
    await expectAsBefore(before, org.orgId);
  });

  it('leaves nothing of a purged sprint or an expired project, nor of their issues outside them', async () => {
    const org = await newOrganisation();
    const admin = apiClient(gateway.baseUrl, org.admin.token);
    const home = await made(admin, '/api/v1/projects', { project: { name: 'Home', prefix: randomPrefix() } });
    const hp = `/api/v1/projects/${home.id}`;
    const kept = await made(admin, `${hp}/issues`, { issue: { title: 'Kept parent' } });
    await eventually(
      'the history of what was made so far',
      async () => (await wholeTable()).filter((i) => i.type === 'activity' && i.issue_id === kept.id).length,
      (n) => n >= 1,
    );
    const before = await wholeTable();

    // A sprint of the kept project, and a whole project, each with issues that reach outside them:
    // an assignee, a comment, a parent and a relation to the kept issue, a label.
    const sprint = await made(admin, `${hp}/sprints`, { sprint: { name: 'Doomed sprint' } });
    const sp = `${hp}/sprints/${sprint.id}`;
    const project = await made(admin, '/api/v1/projects', { project: { name: 'Doomed project', prefix: randomPrefix() } });
    const pp = `/api/v1/projects/${project.id}`;
    await made(admin, `${pp}/labels`, { label: { name: 'gone' } });
    const projectSprint = await made(admin, `${pp}/sprints`, { sprint: { name: 'In it' } });
    const lists = [`${sp}/issues`, `${sp}/issues`, `${pp}/issues`, `${pp}/sprints/${projectSprint.id}/issues`];
    const bodies = [
      { title: 'Child', assignee_id: org.member.id, parent_id: kept.id },
      { title: 'Blocker', story_points: 2 },
      { title: 'Backlog', assignee_id: org.member.id, labels: ['gone'] },
      { title: 'Sprinted', assignee_id: org.member.id },
    ];
    const issues: { id: number; issue_number: string }[] = [];
    for (const [n, list] of lists.entries()) {
      const issue = await made(admin, list, { issue: bodies[n] });
      issues.push(issue);
      expect((await admin.post(`${list}/${issue.id}/comments`, { comment: { body: 'Under it' } })).status).toBe(201);
      const related = await admin.post(`/api/v1/issues/${issue.issue_number}/relations`, {
        relation: { type: 'blocks', issue_key: kept.issue_number },
      });
      expect(related.status, related.text).toBe(201);
    }
    await eventually(
      'the history of the issues to be purged',
      async () => (await wholeTable()).filter((i) => i.type === 'activity' && issues.some((x) => x.id === i.issue_id)).length,
      (n) => n >= 8,
    );
    expect((await admin.delete(sp)).status).toBe(204);
    expect((await admin.delete(pp)).status).toBe(204);
    for (const id of [`sprint-${sprint.id}`, `project-${project.id}`]) {
      await eventually(
        `${id} held in the trash`,
        async () => (await admin.get(`/api/v1/trash/${id}`)).body.state,
        (state) => state === 'held',
      );
    }
    // The sprint purged by an admin; the project past its retention, then deleted by the TTL.
    expect((await admin.delete(`/api/v1/trash/sprint-${sprint.id}`)).status).toBe(204);
    await pastRetention(keys.trash(org.orgId, keys.project(org.orgId, project.id).SK));
    expect(await ttlAfter(0)).toBe(1);
    // Their cascades take away their issues, what lived under them, and every record of them outside.
    const ids = new Set(issues.map((x) => x.id));
    const doomedPk = projectPk(org.orgId, project.id);
    await eventually(
      'what lived in them gone',
      async () =>
        (await wholeTable())
          .filter((i) => String(i.PK) === orgPk(org.orgId) || String(i.PK).startsWith(`${orgPk(org.orgId)}#`))
          .filter((i) => i.PK === doomedPk || ids.has(Number(i.issue_id)) || (i.type === 'issue' && ids.has(Number(i.id))))
          .map((i) => `${keyOf(i)} ${String(i.type)}`),
      (left) => left.length === 0,
      bounds.cascade(100),
    );
    expect(await ttlAfter(3)).toBeGreaterThan(0);

    await expectAsBefore(before, org.orgId);
  });
});

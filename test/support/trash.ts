import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect } from 'vitest';
import { db, tableName } from '../../lib/db/core/client.ts';
import type { Key } from '../../lib/db/core/keys.ts';
import { ok, orgWithClients, randomPrefix, type ApiClient } from './api.ts';
import { bounds, eventually } from './eventually.ts';

/**
 * Puts a trash item past its retention, as if its time had come (`secondsAgo` before now): reads
 * treat it as purged at once, as they do before DynamoDB's TTL deletes it (DynamoDB Local never does).
 */
export async function pastRetention(key: Key, secondsAgo = 1): Promise<void> {
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET expires_at = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - secondsAgo },
    }),
  );
}

/**
 * The trash as docs/trash.md shows it after `member` deleted the one item `entry` describes: the
 * member sees it in their list and by its id, an admin sees it among its kind and none of `otherKind`.
 */
export async function expectTrashedBy(
  member: ApiClient,
  admin: ApiClient,
  entry: { id: string; kind: string },
  otherKind: string,
): Promise<void> {
  expect((await member.get('/api/v1/trash')).body).toEqual([expect.objectContaining(entry)]);
  expect((await admin.get(`/api/v1/trash?kind=${entry.kind}`)).body).toEqual([expect.objectContaining(entry)]);
  expect((await admin.get(`/api/v1/trash?kind=${otherKind}`)).body).toEqual([]);
  expect((await member.get(`/api/v1/trash/${entry.id}`)).body).toMatchObject(entry);
}

/**
 * An item an admin deleted (`path`: its trash item's, `/api/v1/trash/label-40`) as others meet it:
 * a member neither lists, reads nor restores it (404) and may not purge it (403); another
 * organisation's admin neither reads nor restores it (404).
 */
export async function expectHiddenFromOthers(
  member: ApiClient,
  gateway: Parameters<typeof orgWithClients>[0],
  path: string,
): Promise<void> {
  expect((await member.get('/api/v1/trash')).body).toEqual([]);
  expect((await member.get(path)).status).toBe(404);
  expect((await member.post(`${path}/restore`)).status).toBe(404);
  expect((await member.delete(path)).status).toBe(403);
  const other = await orgWithClients(gateway);
  expect((await other.admin.get(path)).status).toBe(404);
  expect((await other.admin.post(`${path}/restore`)).status).toBe(404);
}

/**
 * Waits until trashed sprint or project `id` (`sprint-5`) is `held`: its issues taken out of what
 * is kept of them outside it (docs/trash.md), so that it may be restored or purged. Its entry.
 */
export async function heldInTrash(admin: ApiClient, id: string, items = 100): Promise<Record<string, unknown>> {
  return eventually(
    `${id} to be held in the trash`,
    async () => (await admin.get(`/api/v1/trash/${id}`)).body,
    (entry) => entry?.state === 'held',
    bounds.cascade(items),
  );
}

/** Purges trashed sprint or project `id` once it is held: the cascade of its delete runs then. */
export async function purgeOnceHeld(admin: ApiClient, id: string): Promise<void> {
  await heldInTrash(admin, id);
  expect((await admin.delete(`/api/v1/trash/${id}`)).status).toBe(204);
}

/** Restores trashed `id` (202) and waits until it is back (its trash item gone). */
export async function restoreWhole(admin: ApiClient, id: string, items = 100) {
  const started = await admin.post(`/api/v1/trash/${id}/restore`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  expect(started.headers.get('location')).toBe(`/api/v1/trash/${id}`);
  await eventually(
    `${id} to be back`,
    async () => (await admin.get(`/api/v1/trash/${id}`)).status,
    (status) => status === 404,
    bounds.cascade(items),
  );
  return started.body;
}

/** A new project with a state `Review` (in progress) beside its defaults, and its `done` state. */
export async function projectWithReview(admin: ApiClient) {
  const project = await ok(admin.post('/api/v1/projects', { project: { name: 'States', prefix: randomPrefix() } }));
  const p = `/api/v1/projects/${project.id}`;
  const review = await ok(admin.post(`${p}/states`, { state: { name: 'Review', category: 'in_progress' } }));
  const states = (await ok(admin.get(`${p}/states`))) as { id: number; category: string }[];
  return { project, p, review, done: states.find((st) => st.category === 'done')! };
}

/**
 * Deletes the `Review` state of `projectWithReview`, its issues moved to `done`, and waits for the
 * state cascade to have moved the live issue `issueNumber` (state, category, `completed_at`).
 */
export async function deleteReviewInto(
  admin: ApiClient,
  { p, review, done }: Pick<Awaited<ReturnType<typeof projectWithReview>>, 'p' | 'review' | 'done'>,
  issueNumber: string,
): Promise<void> {
  expect((await admin.delete(`${p}/states/${review.id}?move_to=${done.id}`)).status).toBe(204);
  await eventually(
    `the state cascade to move ${issueNumber}`,
    async () => (await admin.get(`/api/v1/issues/${issueNumber}`)).body,
    (issue) => issue.state_id === done.id && issue.completed_at !== null,
    bounds.cascade(),
  );
}

import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  getAttachment,
  ISSUE_FILES,
  markReady,
  organisationBytes,
  ORGANISATION_BYTES,
  pendingCounts,
} from '../../lib/db/attachments/attachments.ts';
import { attachmentCounterDifferences } from '../../lib/jobs/attachment-counters.ts';
import { removeBesideTrashedIssue } from '../../lib/jobs/attachment-settling.ts';
import { cascadeBatch } from '../../lib/jobs/cascade.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { attachmentObjectKey, headObject } from '../../lib/aws/objects.ts';
import { removeStagedFiles } from '../../tools/local/expiry.ts';
import { stagedFiles } from '../support/local-expiry.ts';
import { rebuildIssueIndexes } from '../../lib/jobs/reindex.ts';
import { tableDefinition } from '../../lib/db/core/table.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { reindexOrganisation } from '../../lib/migrations/steps.ts';
import { completeAttachment, createAttachment } from '../../lib/services/attachments.ts';
import { createIssue } from '../../lib/services/issues.ts';
import { createProject } from '../../lib/services/projects.ts';
import { ATTACHMENT_LIMITS } from '../../lib/vocabulary/attachments.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/** Posts a pre-signed form with its fields, then the file (as a browser does), to the local S3 server. */
async function postForm(form: { url: string; fields: Record<string, string> }, file: Buffer, type: string) {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.set(name, value);
  body.set('file', new Blob([new Uint8Array(file)], { type }), 'file');
  return fetch(form.url, { method: 'POST', body });
}

/**
 * The attachment counters (lib/db/attachments/attachments.ts): each organisation's `attachment_bytes` and each
 * issue's `attachments_count`, rebuilt by `issues:reindex` from the attachments as stored; and a
 * pending attachment never completed, which expires (its item's TTL) and gives its bytes back once.
 * DynamoDB Local does not run TTL: its removal is the stream record DynamoDB writes for one (its
 * `userIdentity`), handed to the stream consumer after the item is deleted.
 */
async function world() {
  const org = await newOrganisation();
  const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
  const project = await createProject(caller, { name: 'Files', prefix: randomPrefix() });
  const issue = await createIssue(caller, { projectId: project.id, sprintId: null }, { title: 'With files' });
  const declare = (size: number) =>
    createAttachment(caller, issue.issue_number, { name: 'a.bin', content_type: 'application/octet-stream', size });
  const counters = async () => {
    const item = (
      await db.send(
        new GetCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, issue.id), ConsistentRead: true }),
      )
    ).Item;
    return { bytes: await organisationBytes(org.orgId), files: Number(item?.[ISSUE_FILES] ?? 0) };
  };
  return { org, caller, project, issue, declare, counters };
}

const set = (key: { PK: string; SK: string }, attr: string, value: number) =>
  db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET #a = :v',
      ExpressionAttributeNames: { '#a': attr },
      ExpressionAttributeValues: { ':v': value },
    }),
  );

describe('attachment counters', () => {
  it("are rebuilt by issues:reindex from the attachments, pending and ready, and the migration's comparison sees them", async () => {
    const { org, project, issue, declare, counters, caller } = await world();
    const ready = await declare(300);
    expect((await postForm(ready.upload, Buffer.alloc(300, 1), 'application/octet-stream')).status).toBe(204);
    await completeAttachment(caller, issue.issue_number, ready.id);
    await declare(200);
    expect(await counters()).toEqual({ bytes: 500, files: 2 });
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);

    // Counters that drifted (or data written before they existed).
    await set(keys.org(org.orgId), ORGANISATION_BYTES, 9_999);
    await set(keys.issue(org.orgId, project.id, issue.id), ISSUE_FILES, 7);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([
      `attachment-bytes: organisation ${org.orgId} counts 9999, its attachments hold 500`,
      `attachments-count: issue ${org.orgId}/${project.id}/${issue.id} counts 7, has 2`,
    ]);
    expect((await rebuildIssueIndexes(org.orgId)).repaired.attachment_counters).toBe(2);
    expect(await counters()).toEqual({ bytes: 500, files: 2 });
    expect((await rebuildIssueIndexes(org.orgId)).repaired.attachment_counters).toBe(0);

    // The data migration's step compares them too, and rebuilds where they differ.
    await set(keys.org(org.orgId), ORGANISATION_BYTES, 1);
    expect(await reindexOrganisation(org.orgId)).toMatchObject({ rebuilds: 1, differences: 1 });
    expect(await counters()).toEqual({ bytes: 500, files: 2 });
  });

  it('rebuild the pending uploads of the organisation and of each uploader, which the caps are held to', async () => {
    const { org, issue, declare, caller } = await world();
    const ready = await declare(300);
    expect((await postForm(ready.upload, Buffer.alloc(300, 1), 'application/octet-stream')).status).toBe(204);
    await completeAttachment(caller, issue.issue_number, ready.id);
    await declare(200);
    await declare(50);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);
    const pendingOf = async () => {
      const [orgItem, mine] = await Promise.all(
        [keys.org(org.orgId), keys.pendingUploads(org.orgId, org.admin.id)].map(
          async (Key) => (await db.send(new GetCommand({ TableName: tableName(), Key, ConsistentRead: true }))).Item,
        ),
      );
      return {
        organisation: [orgItem?.pending_attachments, orgItem?.pending_attachment_bytes],
        account: [mine?.pending_files, mine?.pending_bytes],
      };
    };
    expect(await pendingOf()).toEqual({ organisation: [2, 250], account: [2, 250] });

    // Drifted (a stuck count would refuse every upload at the cap), or lost.
    await set(keys.org(org.orgId), 'pending_attachments', 40);
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.pendingUploads(org.orgId, org.admin.id) }));
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([
      `pending-uploads: organisation ${org.orgId} counts 40 (250 bytes), has 2 (250 bytes)`,
      `pending-uploads: account ${org.orgId}/${org.admin.id} counts 0 (0 bytes), has 2 (250 bytes)`,
    ]);
    expect((await rebuildIssueIndexes(org.orgId)).repaired.attachment_counters).toBe(2);
    expect(await pendingOf()).toEqual({ organisation: [2, 250], account: [2, 250] });
    expect((await rebuildIssueIndexes(org.orgId)).repaired.attachment_counters).toBe(0);
  });

  it('expire a pending attachment never completed: its TTL removal gives its bytes and place back once, and its file goes', async () => {
    const { org, project, issue, declare, counters, caller } = await world();
    const kept = await declare(100);
    const abandoned = await declare(400);
    const file = Buffer.alloc(400, 2);
    expect((await postForm(abandoned.upload, file, 'application/octet-stream')).status).toBe(204);
    expect(await counters()).toEqual({ bytes: 500, files: 2 });

    const key = keys.attachment(org.orgId, project.id, issue.id, abandoned.id);
    const stored = (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;
    const created = Math.floor(Date.parse(abandoned.created_at) / 1000);
    expect(stored[tableDefinition.ttlAttribute]).toBe(created + ATTACHMENT_LIMITS.pendingSeconds);

    // A completed one no longer expires.
    expect((await postForm(kept.upload, Buffer.alloc(100, 1), 'application/octet-stream')).status).toBe(204);
    await completeAttachment(caller, issue.issue_number, kept.id);
    const keptItem = (
      await db.send(
        new GetCommand({
          TableName: tableName(),
          Key: keys.attachment(org.orgId, project.id, issue.id, kept.id),
          ConsistentRead: true,
        }),
      )
    ).Item!;
    expect(keptItem[tableDefinition.ttlAttribute]).toBeUndefined();

    // DynamoDB's TTL removes the item; its stream record says so, and is delivered twice (a replay).
    await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
    const record = (who: DynamoDBRecord['userIdentity']): DynamoDBRecord => ({
      eventName: 'REMOVE',
      dynamodb: { Keys: marshall(key) as never, OldImage: marshall(stored) as never },
      ...(who ? { userIdentity: who } : {}),
    });
    const ttl = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };
    expect((await cascadeBatch([record(ttl)])).errors).toEqual([]);
    expect(await counters()).toEqual({ bytes: 100, files: 1 });
    expect((await cascadeBatch([record(ttl)])).errors).toEqual([]);
    expect(await counters()).toEqual({ bytes: 100, files: 1 });
    // Nothing at the attachment's key; what its form posted is removed by the bucket's lifecycle rule (the local sweep here).
    expect(await headObject(attachmentObjectKey(org.orgId, project.id, issue.id, abandoned.id))).toBeUndefined();
    expect(await stagedFiles(org.orgId)).toEqual([abandoned.upload.fields.key]);
    expect(await removeStagedFiles(new Date(Date.now() + 2 * 86_400_000), org.orgId)).toBe(1);
    expect(await attachmentCounterDifferences(org.orgId)).toEqual([]);

    // A removal by a request (a delete, a cascade) already gave them back in its own transaction.
    const deleted = await declare(50);
    const deletedKey = keys.attachment(org.orgId, project.id, issue.id, deleted.id);
    const deletedItem = (await db.send(new GetCommand({ TableName: tableName(), Key: deletedKey, ConsistentRead: true }))).Item!;
    await db.send(new DeleteCommand({ TableName: tableName(), Key: deletedKey }));
    await cascadeBatch([
      {
        eventName: 'REMOVE',
        dynamodb: { Keys: marshall(deletedKey) as never, OldImage: marshall(deletedItem) as never },
      },
    ]);
    expect(await counters()).toEqual({ bytes: 150, files: 2 });
  });

  it('expire with their bytes back while their issue is gone (its count gone with it)', async () => {
    const { org, project, issue, declare } = await world();
    const abandoned = await declare(700);
    const key = keys.attachment(org.orgId, project.id, issue.id, abandoned.id);
    const stored = (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;
    await db.send(new DeleteCommand({ TableName: tableName(), Key: key }));
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, issue.id) }));
    const record: DynamoDBRecord = {
      eventName: 'REMOVE',
      dynamodb: { Keys: marshall(key) as never, OldImage: marshall(stored) as never },
      userIdentity: { type: 'Service', principalId: 'dynamodb.amazonaws.com' },
    };
    expect((await cascadeBatch([record, record])).errors).toEqual([]);
    expect(await organisationBytes(org.orgId)).toBe(0);
  });

  it('go beside an issue no longer there as they are now: one read pending and completed meanwhile is removed, its bytes back', async () => {
    const { org, caller, project, issue, declare } = await world();
    const file = await declare(300);
    const asRead = (await getAttachment(org.orgId, project.id, issue.id, file.id))!;
    await db.send(new DeleteCommand({ TableName: tableName(), Key: keys.issue(org.orgId, project.id, issue.id) }));
    // Completed between its read and its removal: its pending place given back then, its bytes kept.
    await markReady(asRead);
    expect(await pendingCounts(org.orgId, caller.accountId)).toMatchObject({ account: { files: 0, bytes: 0 } });
    await removeBesideTrashedIssue(asRead);
    expect(await getAttachment(org.orgId, project.id, issue.id, file.id)).toBeUndefined();
    expect(await organisationBytes(org.orgId)).toBe(0);
    expect((await pendingCounts(org.orgId, caller.accountId)).organisation).toMatchObject({ files: 0, bytes: 0 });
  });
});

import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db, tableName } from '../../lib/db/client.ts';
import { findComment, writeMissingCommentPointers } from '../../lib/db/comments.ts';
import { keys } from '../../lib/db/keys.ts';
import { createProject } from '../../lib/domain/projects.ts';
import type { Principal } from '../../lib/domain/principal.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';
import { seedProject } from '../support/seed.ts';

describe('comment pointers written after an upgrade (comments:pointers)', () => {
  it('gives every comment without a pointer its pointer, so that GET /comments/{id} finds it; running it again is harmless', async () => {
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Old', prefix: randomPrefix() });
    const seeded = await seedProject(org.orgId, project.id, org.admin.id, {
      sprints: 1,
      issuesPerSprint: 1,
      backlog: 1,
      commentsPerIssue: 2,
    });
    // As a comment written before pointers existed: its pointer is missing.
    for (const id of seeded.commentIds) {
      await db.send(new DeleteCommand({ TableName: tableName, Key: keys.commentPointer(org.orgId, id) }));
    }
    for (const id of seeded.commentIds) expect(await findComment(org.orgId, id)).toBeUndefined();

    const first = await writeMissingCommentPointers();
    expect(first.written).toBeGreaterThanOrEqual(seeded.commentIds.length);
    for (const id of seeded.commentIds) {
      const found = await findComment(org.orgId, id);
      expect(found?.item.id, `comment ${id}`).toBe(id);
    }
    const [inSprint, inBacklog] = [seeded.commentIds[0]!, seeded.commentIds[2]!];
    expect((await findComment(org.orgId, inSprint))?.item.sprint_id).toBe(seeded.sprintIds[0]);
    expect((await findComment(org.orgId, inBacklog))?.item.sprint_id).toBeNull();

    const again = await writeMissingCommentPointers();
    expect(again.comments).toBeGreaterThanOrEqual(seeded.commentIds.length);
    for (const id of seeded.commentIds) expect((await findComment(org.orgId, id))?.item.id).toBe(id);
  });
});

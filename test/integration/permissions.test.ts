import { describe, expect, it } from 'vitest';
import { requiredActions } from '../../lib/aws/permissions.ts';
import { createOrganisation } from '../../lib/services/accounts.ts';
import { authenticate } from '../../lib/services/auth.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject, getProject, listProjects } from '../../lib/services/projects.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { runAsFunction } from '../../tools/local/permissions.ts';
import { routes } from '../../lib/routes.ts';

let seq = 0;
const tag = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

async function newCaller(): Promise<{ caller: Principal; token: string }> {
  const org = await createOrganisation(`Org ${tag()}`, { name: 'Admin', email: `admin-${tag()}@example.com` });
  const caller: Principal = {
    orgId: org.organisation.id,
    accountId: org.account.id,
    role: 'admin',
    tokenHash: hashToken(org.token),
  };
  return { caller, token: org.token };
}

describe('the IAM actions a DynamoDB call needs', () => {
  it('authorises a transaction item by item, and a Query on an index by its name', () => {
    expect(
      requiredActions('TransactWriteItemsCommand', {
        TransactItems: [{ ConditionCheck: {} }, { Put: {} }, { Update: {} }, { Delete: {} }, { Put: {} }],
      }).map((a) => a.action),
    ).toEqual(['dynamodb:ConditionCheckItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']);
    expect(requiredActions('QueryCommand', { IndexName: 'GSI1' })).toEqual([{ action: 'dynamodb:Query', index: 'GSI1' }]);
    expect(requiredActions('QueryCommand', {})).toEqual([{ action: 'dynamodb:Query' }]);
    expect(requiredActions('BatchWriteItemCommand', {})).toEqual([{ action: 'dynamodb:BatchWriteItem' }]);
  });
});

describe('the local runtime enforces each function’s grant (infra/grants.ts)', () => {
  it('lets a read route read, and refuses it a write as AWS would', async () => {
    const { caller } = await newCaller();
    const project = await createProject(caller, { name: `P ${tag()}`, prefix: 'AB' });
    const read = await runAsFunction('functions/projects/read.ts', routes, () => getProject(caller, project.id));
    expect(read.id).toBe(project.id);
    await expect(
      runAsFunction('functions/projects/read.ts', routes, () => createProject(caller, { name: `Q ${tag()}`, prefix: 'CD' })),
    ).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('functions/projects/read.ts') });
  });

  it('refuses an index query to a function not granted that index', async () => {
    const { caller } = await newCaller();
    const page = { page: 1, perPage: 10 };
    await expect(runAsFunction('functions/projects/read.ts', routes, () => listProjects(caller, page))).resolves.toBeDefined();
    await expect(runAsFunction('functions/me/get.ts', routes, () => listProjects(caller, page))).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining('index LSI1'),
    });
  });

  it('gives the documentation function no table access at all', async () => {
    const { caller } = await newCaller();
    await expect(runAsFunction('functions/api-docs.ts', routes, () => getProject(caller, 1))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });

  it('lets the authorizer take from a token’s bucket, and nothing more', async () => {
    const { caller, token } = await newCaller();
    const auth = await runAsFunction('functions/authorizer.ts', routes, () => authenticate({ Authorization: `Bearer ${token}` }));
    expect(auth.principal.orgId).toBe(caller.orgId);
    await expect(runAsFunction('functions/authorizer.ts', routes, () => getProject(caller, 1))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });
});

import { GetCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../domain/errors.ts';
import type { Account, Organisation, Role } from '../schemas/accounts.ts';
import { db, tableName } from './client.ts';
import { cancellationCodes } from './errors.ts';
import { collections, keys, listKeys } from './keys.ts';
import { listPageWith, type PageRequest } from './list.ts';
import { nextId, nextOrgId } from './sequences.ts';
import { bucketStateOf } from './tokens.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface AccountItem extends Account {
  org_id: number;
  token_hash?: string;
}

export interface OrganisationItem extends Organisation {
  projects_count?: number;
  accounts_count?: number;
}

export const toAccount = (record: object): Account => {
  const item = record as Record<string, unknown>;
  return {
    id: Number(item.id),
    name: String(item.name),
    email: String(item.email),
    role: item.role as Role,
    created_at: String(item.created_at),
  };
};

export const toOrganisation = (record: object): Organisation => {
  const item = record as Record<string, unknown>;
  return {
    id: Number(item.id),
    name: String(item.name),
    created_at: String(item.created_at),
  };
};

function tokenPut(orgId: number, accountId: number, role: Role, tokenHash: string, tat?: number): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: { ...keys.token(tokenHash), org_id: orgId, account_id: accountId, role, ...(tat === undefined ? {} : { tat }) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  };
}

function accountItems(
  orgId: number,
  accountId: number,
  input: { name: string; email: string; role: Role },
  tokenHash: string,
  now: string,
): TransactItem[] {
  return [
    {
      Put: {
        TableName: tableName,
        Item: {
          ...keys.account(orgId, accountId),
          LSK: listKeys.account(accountId),
          type: 'account',
          id: accountId,
          org_id: orgId,
          name: input.name,
          email: input.email,
          role: input.role,
          token_hash: tokenHash,
          created_at: now,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...keys.email(orgId, input.email), account_id: accountId },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    },
    tokenPut(orgId, accountId, input.role, tokenHash),
  ];
}

/** Creates an organisation with its first (admin) account and that account's token, atomically. */
export async function insertOrganisation(
  name: string,
  admin: { name: string; email: string },
  tokenHash: string,
): Promise<{ organisation: Organisation; account: Account }> {
  const orgId = await nextOrgId();
  const now = new Date().toISOString();
  const accountId = await nextId(orgId, 'account');
  await db.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName,
            Item: {
              ...keys.org(orgId),
              type: 'organisation',
              id: orgId,
              name,
              projects_count: 0,
              accounts_count: 1,
              created_at: now,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...accountItems(orgId, accountId, { ...admin, role: 'admin' }, tokenHash, now),
      ],
    }),
  );
  return {
    organisation: { id: orgId, name, created_at: now },
    account: { id: accountId, name: admin.name, email: admin.email, role: 'admin', created_at: now },
  };
}

/** Creates an account and its first token; the e-mail must be new in the organisation. */
export async function insertAccount(
  orgId: number,
  input: { name: string; email: string; role: Role },
  tokenHash: string,
): Promise<Account> {
  const accountId = await nextId(orgId, 'account');
  const now = new Date().toISOString();
  try {
    await db.send(
      new TransactWriteCommand({
        TransactItems: [
          ...accountItems(orgId, accountId, input, tokenHash, now),
          {
            Update: {
              TableName: tableName,
              Key: keys.org(orgId),
              UpdateExpression: 'ADD accounts_count :one',
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
  } catch (err) {
    const codes = cancellationCodes(err);
    if (codes?.[1] === 'ConditionalCheckFailed') throw new ValidationError(['email has already been taken']);
    if (codes?.[3] === 'ConditionalCheckFailed') throw new ValidationError(['organisation does not exist']);
    throw err;
  }
  return { id: accountId, name: input.name, email: input.email, role: input.role, created_at: now };
}

export async function getAccountItem(orgId: number, accountId: number): Promise<AccountItem | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: keys.account(orgId, accountId), ConsistentRead: true }));
  return out.Item as AccountItem | undefined;
}

export async function getOrganisationItem(orgId: number): Promise<OrganisationItem | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableName, Key: keys.org(orgId), ConsistentRead: true }));
  return out.Item as OrganisationItem | undefined;
}

/**
 * Replaces an account's token (or removes it when `newHash` is undefined): the old token item is
 * deleted in the same transaction, so the old token is refused by the very next request. The new
 * token inherits the old one's rate-limit state, so rotating a token never refills its bucket.
 * Returns false, changing nothing, when the account's token is no longer `account.token_hash`
 * (another rotation or revocation got there first).
 */
export async function replaceToken(orgId: number, account: AccountItem, newHash: string | undefined): Promise<boolean> {
  const carriedTat = newHash && account.token_hash ? await bucketStateOf(account.token_hash) : undefined;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName,
        Key: keys.account(orgId, account.id),
        UpdateExpression: newHash ? 'SET token_hash = :new' : 'REMOVE token_hash',
        ConditionExpression: account.token_hash ? 'token_hash = :old' : 'attribute_not_exists(token_hash)',
        ...(newHash || account.token_hash
          ? {
              ExpressionAttributeValues: {
                ...(newHash ? { ':new': newHash } : {}),
                ...(account.token_hash ? { ':old': account.token_hash } : {}),
              },
            }
          : {}),
      },
    },
  ];
  if (account.token_hash) items.push({ Delete: { TableName: tableName, Key: keys.token(account.token_hash) } });
  if (newHash) items.push(tokenPut(orgId, account.id, account.role, newHash, carriedTat));
  try {
    await db.send(new TransactWriteCommand({ TransactItems: items }));
  } catch (err) {
    if (cancellationCodes(err)?.[0] === 'ConditionalCheckFailed') return false;
    throw err;
  }
  return true;
}

/** A page of the organisation's accounts, read with the organisation (its `accounts_count`). */
export async function listAccounts(orgId: number, page: PageRequest) {
  const { page: result, related } = await listPageWith(collections.accounts(orgId), page, [keys.org(orgId)]);
  return { page: result, org: related[0] };
}

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { writeMissingTokenNames } from '../../lib/db/accounts.ts';
import { db, tableName } from '../../lib/db/client.ts';
import { keys } from '../../lib/db/keys.ts';
import { authenticateAndConsume } from '../../lib/db/tokens.ts';
import { hashToken } from '../../lib/domain/tokens.ts';
import { newOrganisation } from '../support/api.ts';

/** `tokens:names` (tools/cli/admin.ts): the account's name on tokens issued before token items carried it. */
describe('token names written after an upgrade (tokens:names)', () => {
  it("gives a token without a name its account's name, which its requests then carry; running it again changes nothing", async () => {
    const org = await newOrganisation();
    const key = keys.token(hashToken(org.member.token));
    // As a token issued before token items carried the name.
    await db.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'REMOVE #name',
        ExpressionAttributeNames: { '#name': 'name' },
      }),
    );
    expect((await authenticateAndConsume(hashToken(org.member.token)))?.principal.name).toBeUndefined();

    const first = await writeMissingTokenNames();
    expect(first.written).toBeGreaterThanOrEqual(1);
    expect((await authenticateAndConsume(hashToken(org.member.token)))?.principal.name).toBe('Mo Member');
    // The admin's token had its name all along: left as it was.
    expect((await authenticateAndConsume(hashToken(org.admin.token)))?.principal.name).toBe('Ada Admin');

    const item = async () => (await db.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    const named = await item();
    await writeMissingTokenNames();
    expect(await item()).toEqual(named);
  });
});

import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { writeMissingTokenNames } from '../../lib/jobs/token-names.ts';
import { db, tableName } from '../../lib/db/core/client.ts';
import { keys } from '../../lib/db/core/keys.ts';
import { authenticateAndConsume } from '../../lib/jobs/token-buckets.ts';
import { hashToken } from '../../lib/model/tokens.ts';
import { newOrganisation } from '../support/api.ts';

/** `tokens:names` (tools/cli/admin.ts): the account's name on tokens issued before token items carried it. */

/** The item of `token` made as a token issued before token items carried the name; its key. */
async function unnamed(token: string) {
  const key = keys.token(hashToken(token));
  await db.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'REMOVE #name',
      ExpressionAttributeNames: { '#name': 'name' },
    }),
  );
  return key;
}
describe('token names written after an upgrade (tokens:names)', () => {
  it("gives a token without a name its account's name, which its requests then carry; --org keeps to one organisation; running it again changes nothing", async () => {
    const org = await newOrganisation();
    const key = await unnamed(org.member.token);
    expect((await authenticateAndConsume(hashToken(org.member.token)))?.principal.name).toBeUndefined();

    // Another organisation's nameless token is left to a run for that organisation.
    const other = await newOrganisation();
    await unnamed(other.member.token);

    expect(await writeMissingTokenNames(org.orgId)).toEqual({ tokens: 1, written: 1 });
    expect((await authenticateAndConsume(hashToken(org.member.token)))?.principal.name).toBe('Mo Member');
    // The admin's token had its name all along: left as it was.
    expect((await authenticateAndConsume(hashToken(org.admin.token)))?.principal.name).toBe('Ada Admin');

    const item = async () => (await db.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
    const named = await item();
    expect(await writeMissingTokenNames(org.orgId)).toEqual({ tokens: 0, written: 0 });
    expect(await item()).toEqual(named);

    expect((await authenticateAndConsume(hashToken(other.member.token)))?.principal.name).toBeUndefined();
    expect(await writeMissingTokenNames(other.orgId)).toEqual({ tokens: 1, written: 1 });
    expect((await authenticateAndConsume(hashToken(other.member.token)))?.principal.name).toBe('Mo Member');
  });
});

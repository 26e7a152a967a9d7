import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../db/table.ts';

/** Creates the table (same definition as the CDK stack's) if it does not exist; waits until ACTIVE. */
export async function ensureTable(endpoint: string, tableName: string): Promise<'created' | 'exists'> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return 'exists';
  } catch (err) {
    if (!(err instanceof ResourceNotFoundException)) throw err;
  }
  await client.send(new CreateTableCommand(createTableInput(tableName)));
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (out.Table?.TableStatus === 'ACTIVE') break;
    await new Promise((r) => setTimeout(r, 100));
  }
  client.destroy();
  return 'created';
}

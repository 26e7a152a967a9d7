import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../../lib/db/core/table.ts';
import { localClientConfig } from './dynamodb.ts';

/**
 * Creates the table (same definition as the CDK stack's) if it does not exist; waits until ACTIVE.
 * Safe to race: `npm start` and the admin CLI may both find the table missing and create it.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<'created' | 'exists'> {
  const client = new DynamoDBClient(localClientConfig(endpoint));
  try {
    try {
      await client.send(new DescribeTableCommand({ TableName: tableName }));
      return 'exists';
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
    }
    let result: 'created' | 'exists' = 'created';
    try {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
    } catch (err) {
      // Another client created it between our Describe and Create.
      if (!(err instanceof ResourceInUseException)) throw err;
      result = 'exists';
    }
    for (let i = 0; i < 100; i++) {
      const out = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (out.Table?.TableStatus === 'ACTIVE') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    return result;
  } finally {
    client.destroy();
  }
}

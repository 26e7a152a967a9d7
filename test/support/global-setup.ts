import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal } from '../../lib/local/dynamodb.ts';
import { ensureTable } from '../../lib/local/table.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamodbEndpoint: string;
    tableName: string;
  }
}

/** One in-memory DynamoDB Local (shared database) for the whole run, on a free port. */
export default async function setup(project: TestProject) {
  const dynamo = await startDynamoDbLocal();
  const tableName = 'sprint-ticketing-test';
  await ensureTable(dynamo.endpoint, tableName);
  project.provide('dynamodbEndpoint', dynamo.endpoint);
  project.provide('tableName', tableName);
  return async () => {
    await dynamo.stop();
  };
}

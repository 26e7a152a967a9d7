/**
 * The init-time yardstick: a handler bundle holding only a DynamoDB document client, created at
 * module scope as the service's handlers create theirs. Every real bundle's module init is
 * compared with this one's (budget: at most 1.5 times).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { PK: string; SK: string }) =>
  db.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { PK: event.PK, SK: event.SK } }));

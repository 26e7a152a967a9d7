import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { recordDbCall } from './metrics.ts';

/** Table name, read once at module load. */
export const tableName = process.env.TABLE_NAME ?? 'sprint-ticketing';

const endpoint = process.env.DYNAMODB_ENDPOINT;

function createClient(): DynamoDBDocumentClient {
  const base = new DynamoDBClient({
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'local',
          credentials: {
            accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? 'local',
            secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
          },
        }
      : {}),
    maxAttempts: 4,
  });
  const doc = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      recordDbCall(String(context.commandName ?? 'unknown'));
      return next(args);
    },
    { step: 'initialize', name: 'recordDbCall' },
  );
  return doc;
}

/** The document client, created once per module scope (Lambda container reuse). */
export const db: DynamoDBDocumentClient = createClient();

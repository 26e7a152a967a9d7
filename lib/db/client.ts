import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.ts';
import { recordDbCall } from './metrics.ts';

/** Table name, read once at module load (lib/config.ts). */
export const tableName = config.tableName;

const endpoint = config.dynamodbEndpoint;

function createClient(): { base: DynamoDBClient; doc: DynamoDBDocumentClient } {
  const base = new DynamoDBClient({
    ...(endpoint
      ? {
          endpoint,
          region: config.localRegion,
          credentials: config.localCredentials,
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
  return { base, doc };
}

const clients = createClient();

/** The document client, created once per module scope (Lambda container reuse). */
export const db: DynamoDBDocumentClient = clients.doc;

/**
 * The low-level client under `db`, for libraries that send low-level commands (the idempotency
 * persistence layer). It shares `db`'s middleware stack, so its calls are counted and retried alike.
 */
export const dynamodb: DynamoDBClient = clients.base;

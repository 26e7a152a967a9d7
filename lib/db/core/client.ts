import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../../config.ts';
import { recordDbCall } from './metrics.ts';

/** The table's name (`TABLE_NAME`), read with the rest of the configuration on first use (lib/config.ts). */
export const tableName = (): string => config().tableName;

function createClient(): { base: DynamoDBClient; doc: DynamoDBDocumentClient } {
  const { dynamodbEndpoint: endpoint, localRegion, localCredentials } = config();
  const base = new DynamoDBClient({
    ...(endpoint ? { endpoint, region: localRegion, credentials: localCredentials } : {}),
    maxAttempts: 4,
  });
  // The SDK's logger step copies every input and output through its sensitive-data filter on each
  // call, even for its default logger that prints nothing: a walk of every item read or written.
  base.middlewareStack.remove('loggerMiddleware');
  const doc = DynamoDBDocumentClient.from(base, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    unmarshallOptions: { wrapNumbers: false },
  });
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const answered = recordDbCall(String(context.commandName ?? 'unknown'));
      try {
        return await next(args);
      } finally {
        answered();
      }
    },
    { step: 'initialize', name: 'recordDbCall' },
  );
  return { base, doc };
}

let clients: ReturnType<typeof createClient> | undefined;
const created = () => (clients ??= createClient());

/**
 * An object that stands for `create()`'s result and creates it on its first use (a property read,
 * a spy installed by a test...): the clients below are module-scoped, as Lambda containers reuse
 * them, yet built from the configuration of the first call, not of the moment a module loaded.
 */
function onFirstUse<T extends object>(create: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = create();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set: (_, key, value) => Reflect.set(create(), key, value),
    has: (_, key) => Reflect.has(create(), key),
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(create(), key, descriptor),
    deleteProperty: (_, key) => Reflect.deleteProperty(create(), key),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(create(), key);
      // The stand-in's own target has none of these: a proxy may only report configurable ones.
      return descriptor && { ...descriptor, configurable: true };
    },
    ownKeys: () => Reflect.ownKeys(create()),
    getPrototypeOf: () => Reflect.getPrototypeOf(create()),
  });
}

/** The document client, created once per module scope (Lambda container reuse), on first use. */
export const db: DynamoDBDocumentClient = onFirstUse(() => created().doc);

/**
 * The low-level client under `db`, for libraries that send low-level commands (the idempotency
 * persistence layer). It shares `db`'s middleware stack, so its calls are counted and retried alike.
 */
export const dynamodb: DynamoDBClient = onFirstUse(() => created().base);

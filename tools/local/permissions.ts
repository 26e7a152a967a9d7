/**
 * IAM, emulated: every DynamoDB call a function makes locally is checked against the grant the
 * CDK stack gives that function (infra/grants.ts). A call outside it fails with
 * AccessDeniedException, as in AWS, so a handler that needs a wider grant fails its e2e tests
 * instead of its first request in production.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { handlerModules } from '../../infra/functions.ts';
import { grantOf, type TableGrant } from '../../infra/grants.ts';
import { db } from '../../lib/db/core/client.ts';
import { requiredActions } from '../../lib/aws/permissions.ts';
import type { Route } from '../../lib/routes.ts';

interface Caller {
  entry: string;
  grant: TableGrant;
}

const storage = new AsyncLocalStorage<Caller>();
let installed = false;

/** DynamoDB's refusal of a call the caller's role does not allow. */
export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
  readonly $metadata = { httpStatusCode: 400 };
}

function install() {
  if (installed) return;
  installed = true;
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const caller = storage.getStore();
      if (caller) {
        const command = String(context.commandName ?? '');
        for (const { action, index } of requiredActions(command, (args.input ?? {}) as Record<string, unknown>)) {
          const allowed = index
            ? action === 'dynamodb:Query' && caller.grant.indexes.includes(index)
            : caller.grant.actions.includes(action);
          if (!allowed) {
            const message = `${caller.entry} is not authorized to perform: ${action} on ${index ? `index ${index}` : 'the table'} (infra/grants.ts)`;
            process.stderr.write(`local IAM: ${message}\n`);
            throw new AccessDeniedException(message);
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'localPermissions' },
  );
}

/**
 * Runs `fn` as the function of `entry` (a handler module, the authorizer or the stream consumer):
 * its DynamoDB calls must stay within that function's grant.
 */
export function runAsFunction<T>(entry: string, routes: Route[], fn: () => Promise<T>): Promise<T> {
  install();
  return storage.run({ entry, grant: grantOf(entry, handlerModules(routes)) }, fn);
}

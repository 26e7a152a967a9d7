import { NestedStack, type RemovalPolicy } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { functionId, type HandlerModule } from '../functions.ts';
import { accessOf, grantFor } from '../grants.ts';
import { RECEIVER_RESERVED_CONCURRENCY, UNAUTHENTICATED_RESERVED_CONCURRENCY } from '../stage.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface RouteFunctionsProps {
  /** The handler modules of this group (infra/functions.ts: routeGroups). */
  modules: HandlerModule[];
  table: ServiceTable;
  /** Every function's environment (STAGE). */
  stageEnvironment: Record<string, string>;
  /** The environment of a function with table access besides those: TABLE_NAME, CORS origins. */
  tableEnvironment: Record<string, string>;
  logs: { retention: RetentionDays; removalPolicy: RemovalPolicy };
  stage: string;
}

/**
 * A nested stack of route functions: one per handler module of its group, each with its role (its
 * grant inline), its log group and, once the API binds it (infra/constructs/service-api.ts), its
 * permission for API Gateway. The REST API, its methods and deployment stay in the parent stack:
 * a method added from another stack would not redeploy the API. What a function needs of the
 * parent (the table's ARN and name, the API's id) comes in as parameters of this stack; what the
 * parent needs of it (each function's ARN and name) goes out as outputs, both written by CDK.
 */
export class RouteFunctions extends NestedStack {
  /** The function of each handler module of the group (key: module path as in `lib/routes.ts`). */
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: RouteFunctionsProps) {
    super(scope, id, { description: `Sprint Ticketing Service (${props.stage}): route functions, ${id}` });
    for (const module of props.modules) {
      const unauthenticated = accessOf(module) === 'none';
      // The documentation, the OAuth authorization server and the GitHub receiver (which have table access).
      const isPublic = module.routes.every((r) => !r.auth);
      const isReceiver = module.routes.some((r) => r.receiver);
      const fn = new ServiceFunction(this, functionId(module.entry), {
        entry: module.entry,
        description: module.routes
          .map((r) => `${r.method} ${r.path}`)
          .join(', ')
          .slice(0, 256),
        // A function with no table access is not told the table's name.
        environment: unauthenticated ? props.stageEnvironment : { ...props.stageEnvironment, ...props.tableEnvironment },
        logs: props.logs,
        // Anyone may call an unauthenticated route: bound what a flood of them can take (infra/stage.ts).
        ...(isPublic
          ? {
              reservedConcurrentExecutions: isReceiver ? RECEIVER_RESERVED_CONCURRENCY : UNAUTHENTICATED_RESERVED_CONCURRENCY,
            }
          : {}),
      });
      props.table.grant(fn, grantFor(module));
      this.functions.set(module.entry, fn);
    }
  }
}

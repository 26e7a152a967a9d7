import { ArnFormat, CfnCustomResource, Duration, Stack } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct, type IDependable } from 'constructs';
import { migrationsVersion } from '../../lib/migrations/index.ts';
import { migrateEntry } from '../functions.ts';
import { migrationGrant } from '../grants.ts';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface MigrationsProps {
  table: ServiceTable;
  logs: ServiceFunctionProps['logs'];
  /** The function's fixed name (it invokes itself by it). */
  functionName: string;
  /** Environment beside TABLE_NAME. */
  environment?: Record<string, string>;
  /** What must be deployed before the migrations start (the API, so that new writes keep the new layout). */
  runAfter: IDependable[];
}

/**
 * The data migrations on deploy: `functions/migrate.ts`, with the stack's custom resource
 * `RunOnDeploy` pointed straight at it (no provider framework: one CloudFormation resource).
 * CloudFormation sends it a request when the resource is created and whenever its properties
 * change: the registry's version (a migration added) or the function's code (a release). It
 * answers at once and runs the pending migrations, invoking itself again until they are done.
 */
export class Migrations extends Construct {
  readonly fn: ServiceFunction;
  readonly runOnDeploy: CfnCustomResource;

  constructor(scope: Construct, id: string, props: MigrationsProps) {
    super(scope, id);
    this.fn = new ServiceFunction(this, 'Function', {
      entry: migrateEntry,
      functionName: props.functionName,
      description: 'Runs the pending data migrations (lib/migrations) on deploy, continuing itself until done',
      environment: { ...props.environment, TABLE_NAME: props.table.table.tableName },
      // Lambda's longest: a run continues itself after each invocation anyway.
      timeout: Duration.minutes(15),
      logs: props.logs,
    });
    props.table.grant(this.fn, migrationGrant);
    // Its own name, not its ARN attribute: a grant on the function's ARN would make its role depend on it.
    const self = Stack.of(this).formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: props.functionName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.fn.addToRolePolicy(new PolicyStatement({ effect: Effect.ALLOW, actions: ['lambda:InvokeFunction'], resources: [self] }));

    const code = (this.fn.node.defaultChild as CfnFunction).code as CfnFunction.CodeProperty;
    this.runOnDeploy = new CfnCustomResource(this, 'RunOnDeploy', { serviceToken: this.fn.functionArn });
    this.runOnDeploy.addPropertyOverride('Migrations', migrationsVersion);
    this.runOnDeploy.addPropertyOverride('Code', code.s3Key ?? code.zipFile ?? '');
    for (const dependable of props.runAfter) this.runOnDeploy.node.addDependency(dependable);
  }
}

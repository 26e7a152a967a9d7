import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { tableDefinition } from '../../lib/db/table.ts';
import type { Route } from '../../lib/routes.ts';

/**
 * What each kind of function may do on the table. No Scan anywhere (the data layer never scans);
 * Transact* calls are authorised per item by these same actions.
 */
export const tableActions = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  write: [
    'dynamodb:GetItem',
    'dynamodb:BatchGetItem',
    'dynamodb:Query',
    'dynamodb:ConditionCheckItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:DeleteItem',
    'dynamodb:BatchWriteItem',
  ],
} as const satisfies Record<Route['access'], readonly string[]>;

export interface ServiceTableProps {
  /**
   * `RETAIN` (the default) keeps the table, with deletion protection on, when the stack is
   * deleted; `DESTROY` is for throwaway stacks and also turns deletion protection off.
   */
  removalPolicy?: RemovalPolicy;
}

/**
 * The service's one DynamoDB table, built from `lib/db/table.ts` (the definition the local runtime
 * creates on DynamoDB Local): on-demand, point-in-time recovery, stream of old and new images for
 * the cascade consumer, TTL for expiring records.
 */
export class ServiceTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps = {}) {
    super(scope, id);
    const d = tableDefinition;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const key = (name: string) => ({ name, type: AttributeType.STRING });
    this.table = new Table(this, 'Table', {
      partitionKey: key(d.partitionKey),
      sortKey: key(d.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
      removalPolicy,
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: d.ttlAttribute,
    });
    for (const index of d.localIndexes) {
      this.table.addLocalSecondaryIndex({
        indexName: index.name,
        sortKey: key(index.sortKey),
        projectionType: ProjectionType[index.projection],
      });
    }
    for (const index of d.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: key(index.partitionKey),
        sortKey: key(index.sortKey),
        projectionType: ProjectionType[index.projection],
      });
    }
  }

  /** Grants exactly the actions `access` needs, on the table and its indexes. */
  grant(grantee: IGrantable, access: Route['access']): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        effect: Effect.ALLOW,
        actions: [...tableActions[access]],
        resources: [this.table.tableArn, `${this.table.tableArn}/index/*`],
      }),
    );
  }
}

import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { tableDefinition } from '../../lib/db/core/table.ts';
import type { TableGrant } from '../grants.ts';

export interface ServiceTableProps {
  /**
   * `RETAIN` (the default, `prod`) keeps the table, with deletion protection on, when the stack is
   * deleted; `DESTROY` (`dev`) also turns deletion protection off, so the stack goes cleanly.
   */
  removalPolicy?: RemovalPolicy;
}

/**
 * The service's one DynamoDB table, built from `lib/db/core/table.ts` (the definition the local runtime
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
  }

  /**
   * Grants exactly `grant` (infra/grants.ts): its actions on the table's items, and Query on each
   * index it names (no other action on an index, no other index). An empty grant adds nothing.
   */
  grant(grantee: IGrantable, grant: TableGrant): void {
    if (grant.actions.length > 0) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({ effect: Effect.ALLOW, actions: [...grant.actions], resources: [this.table.tableArn] }),
      );
    }
    if (grant.indexes.length > 0) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new PolicyStatement({
          effect: Effect.ALLOW,
          actions: ['dynamodb:Query'],
          resources: grant.indexes.map((index) => `${this.table.tableArn}/index/${index}`),
        }),
      );
    }
  }
}

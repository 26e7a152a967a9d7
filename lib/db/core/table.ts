import { cascadingTypes } from './keys.ts';
/**
 * The single table's definition: the one source for the local runtime (CreateTable on DynamoDB
 * Local) and the CDK stack. Plain data, so infra and runtime share it without either importing
 * the other's libraries.
 */
export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  /**
   * LSI1 orders every collection (projects, accounts, sprints, issues by position, comments) inside
   * its parent's partition. Being local, it can be read with ConsistentRead: a list shows a write
   * made just before it.
   */
  localIndexes: [
    { name: 'LSI1', sortKey: 'LSK', projection: 'ALL' as const },
    /** Same order, keys only: `page=N` skips the first (N-1) pages here without reading their items. */
    { name: 'LSI1Keys', sortKey: 'LSK', projection: 'KEYS_ONLY' as const },
  ],
  // No global index: each would be eventually consistent, and every read must see the writes before
  // it. A lookup by id whose path does not name the parent reads a pointer item instead
  // (`keys.commentPointer`, lib/db/core/keys.ts).
  /** DynamoDB TTL attribute (idempotency records). */
  ttlAttribute: 'expires_at',
} as const;

/** CreateTable input for the local runtime and tests (on-demand, stream on for cascades). */
export function createTableInput(tableName: string) {
  const d = tableDefinition;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [
      { AttributeName: d.partitionKey, AttributeType: 'S' as const },
      { AttributeName: d.sortKey, AttributeType: 'S' as const },
      ...[...new Set(d.localIndexes.map((i) => i.sortKey))].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    ],
    KeySchema: [
      { AttributeName: d.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: d.sortKey, KeyType: 'RANGE' as const },
    ],
    LocalSecondaryIndexes: d.localIndexes.map((i) => ({
      IndexName: i.name,
      KeySchema: [
        { AttributeName: d.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: i.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: i.projection },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' as const },
  };
}

/**
 * Event filters of the stream consumer (functions/cascade.ts), any of which lets a record in:
 * the REMOVEs of the parents whose children must go, of attachments whose files must go, of
 * comments with attachments (into the trash or away) and of the trash items of labels, issues and
 * comments (restored or purged), and the writes of pending cascades still to
 * continue (lib/jobs/cascade.ts). Lambda drops everything else (every other write, and the thousands
 * of comment REMOVEs a big cascade emits) before invoking, so they cost nothing.
 */
export const cascadeStreamFilters = [
  { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: [...cascadingTypes] } } } },
  // An attachment's file goes once its item is gone, however it went (lib/jobs/cascade.ts).
  { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['attachment'] } } } },
  // A comment with attachments: they follow it into the trash, or go with it (a comment without,
  // the bulk of a cascade, is dropped).
  { eventName: ['REMOVE'], dynamodb: { OldImage: { type: { S: ['comment'] }, has_attachments: { BOOL: [true] } } } },
  // A trashed label purged or expired: its issues lose its id (lib/db/issues/labels.ts); a trashed issue:
  // what lived under it goes, its children lose their parent; a trashed comment restored, purged or
  // expired: its attachments come back, or go (one without attachments is let in too, and asks for
  // nothing: a mapping holds at most five filters, and these removals are a user's few); a trashed
  // attachment: purged or expired, it goes with its file; a trashed sprint or project: purged or
  // expired, it is emptied; restored, its restore ends.
  {
    eventName: ['REMOVE'],
    dynamodb: {
      OldImage: { type: { S: ['trash'] }, kind: { S: ['label', 'issue', 'comment', 'attachment', 'sprint', 'project'] } },
    },
  },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['cascade'] }, status: { S: ['pending'] } } } },
] as const;

/**
 * Event filter of the import jobs' stream consumer (functions/import-jobs.ts): the writes of a job
 * queued to run, or to go on with (lib/services/import-export/job-runner.ts).
 */
export const importJobStreamFilters = [
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['import_job'] }, status: { S: ['queued'] } } } },
] as const;

/**
 * Event filter of the GitHub deliveries' stream consumer (functions/github-events.ts): a delivery
 * the receiver stored (functions/github/receive.ts), once, when it is written. Its later updates and
 * its expiry pass no filter.
 */
export const githubEventStreamFilters = [
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['github_delivery'] } } } },
] as const;

/**
 * Event filters of the change feed consumer (functions/change-feed.ts), any of which lets a record
 * through: every insert and modify, and every remove, of the item types whose changes the activity
 * history, the notifications and the webhooks report, and redelivery requests. Tokens, idempotency
 * records and the deliveries' own progress pass no filter.
 */
export const changeFeedStreamFilters = [
  // A notification's insert is `notification.created`; its changes (read, hidden) are let in and ask for nothing.
  { dynamodb: { NewImage: { type: { S: ['project', 'sprint', 'issue', 'comment', 'notification'] } } } },
  // A trash item's removal: its item restored, or purged (`<kind>.restored`, `<kind>.purged`); a
  // notification's: its expiry, which gives an unread one's place in its inbox's count back.
  {
    eventName: ['REMOVE'],
    dynamodb: { OldImage: { type: { S: ['project', 'sprint', 'issue', 'comment', 'attachment', 'trash', 'notification'] } } },
  },
  // An attachment that became ready (`attachment.added`); its declaration and checks are no event.
  { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['attachment'] }, status: { S: ['ready'] } } } },
  // An import job that ended: its one `import.completed` event (lib/feed/events.ts).
  { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['import_job'] }, status: { S: ['succeeded', 'failed'] } } } },
  // A redelivery asked for (lib/services/webhooks.ts): a finished delivery made pending again.
  {
    eventName: ['MODIFY'],
    dynamodb: {
      NewImage: { type: { S: ['delivery'] }, status: { S: ['pending'] } },
      OldImage: { status: { S: ['succeeded', 'failed', 'cancelled'] } },
    },
  },
] as const;

/**
 * Batches of one stream shard the change feed consumer handles at once (the mapping's
 * ParallelizationFactor). Records of one partition key stay in one lane, in order, and the consumer
 * needs no more (lib/feed/consume.ts: a project's events in order): a project writing thousands of
 * records (a bulk write, an import, a cascade's removals) then delays only the partitions of its
 * own lane, not every organisation's history and webhooks.
 */
export const changeFeedParallelization = 10;

import { inject } from 'vitest';
import { ownTableName, poolSlot } from './own-table-names.ts';
import { testSecretKey } from './secret-key.ts';

// Runs before each test file's imports: the shared modules read these once, on first use.
process.env.DYNAMODB_ENDPOINT = inject('dynamodbEndpoint');
// A file of the `own-table` project (vitest.config.ts) gets a table of its own: its worker slot's,
// made by the global setup and emptied before the file's tests (test/support/own-table.ts).
process.env.TABLE_NAME = process.env.OWN_TABLE ? ownTableName(inject('tableName'), poolSlot()) : inject('tableName');
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
// No EMF line per request in the test output (test/unit/metrics.test.ts turns them on).
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_REGION ??= 'local';
// Webhook secrets sealed with the run's fixed local key (no KMS locally).
process.env.WEBHOOK_SECRET_LOCAL_KEY = testSecretKey;
// The attachments' bucket on the run's local S3-compatible server (test/support/global-setup.ts).
process.env.S3_ENDPOINT = inject('s3Endpoint');
// A file of the `own-table` project gets a bucket of its own too (test/support/own-table.ts makes
// it): its organisations' ids start again with its table, and so would their objects' keys.
process.env.ATTACHMENTS_BUCKET = process.env.OWN_TABLE
  ? `${inject('attachmentsBucket')}-own-${process.pid}`
  : inject('attachmentsBucket');

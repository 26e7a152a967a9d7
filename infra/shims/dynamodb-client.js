/**
 * What the `/mcp` and stream consumer bundles import as `@aws-sdk/client-dynamodb` (an esbuild
 * alias scoped to those functions, infra/bundling.ts): the package's own modules, but only the ones
 * the bundles use.
 *
 * Why: `/mcp` loads its MCP server on the first request with `import()` (lib/mcp/http.ts). In a
 * one-file bundle esbuild then wraps every module the server reaches in a lazy initialiser, and a
 * wrapped module's `export *` lines are kept whole (evanw/esbuild#3987): the package's index would
 * bring all of DynamoDB's commands, paginators, waiters and schemas, about 45 KB over what the
 * data layer uses, which puts the bundle over its 500 KB budget. The stream consumers
 * (functions/cascade.ts, functions/import-jobs.ts, functions/github-events.ts) load their code the
 * same way, with the same result.
 *
 * The list: `DynamoDBClient` (lib/db/core/client.ts) and the low-level commands that
 * `@aws-sdk/lib-dynamodb` wraps. A name missing here fails the bundle's build (esbuild: "No
 * matching export"), never a request; so does a path the SDK moves. Plain JavaScript: nothing runs
 * it unbundled, and the SDK's internal modules carry no type declarations of their own.
 */
export { DynamoDBClient } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/DynamoDBClient.js';
export { BatchExecuteStatementCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchExecuteStatementCommand.js';
export { BatchGetItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchGetItemCommand.js';
export { BatchWriteItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/BatchWriteItemCommand.js';
export { DeleteItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/DeleteItemCommand.js';
export { DescribeExportCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/DescribeExportCommand.js';
export { ExecuteStatementCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExecuteStatementCommand.js';
export { ExecuteTransactionCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExecuteTransactionCommand.js';
export { ExportTableToPointInTimeCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ExportTableToPointInTimeCommand.js';
export { GetItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/GetItemCommand.js';
export { PutItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/PutItemCommand.js';
export { QueryCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/QueryCommand.js';
export { ScanCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/ScanCommand.js';
export { SearchVectorsCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/SearchVectorsCommand.js';
export { TransactGetItemsCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/TransactGetItemsCommand.js';
export { TransactWriteItemsCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/TransactWriteItemsCommand.js';
export { UpdateItemCommand } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commands/UpdateItemCommand.js';

/** Local runtime configuration, read once (docs/configuration.md). */
export const localConfig = {
  port: Number(process.env.PORT ?? 3000),
  /**
   * The address the gateway listens on: this machine only, unless HOST says otherwise (`0.0.0.0`
   * or `::` to serve the network, e.g. inside a container). A first start prints an admin token.
   */
  host: process.env.HOST || '127.0.0.1',
  dynamodbPort: Number(process.env.DYNAMODB_PORT ?? 8000),
  /** When set, use this DynamoDB and launch nothing. */
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
  dataDir: process.env.DATA_DIR ?? '.data',
  tableName: process.env.TABLE_NAME ?? 'sprint-ticketing',
};

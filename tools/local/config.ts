/** Local runtime configuration, read once (README.md: Configuration). */
export const localConfig = {
  port: Number(process.env.PORT ?? 3000),
  dynamodbPort: Number(process.env.DYNAMODB_PORT ?? 8000),
  /** When set, use this DynamoDB and launch nothing. */
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
  dataDir: process.env.DATA_DIR ?? '.data',
  tableName: process.env.TABLE_NAME ?? 'sprint-ticketing',
};

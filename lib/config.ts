/**
 * The service's configuration, read from the environment once, at module load: the one place
 * runtime code reads `process.env`. On Lambda (AWS_LAMBDA_FUNCTION_NAME is set) a missing
 * required value fails the cold start at once, instead of the first request failing obscurely;
 * locally (`npm start`, tests, the admin CLI) the defaults apply.
 */
const env = process.env;

/** True inside an AWS Lambda execution environment. */
export const onLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;

function required(name: string, localDefault: string): string {
  const value = env[name];
  if (value) return value;
  if (onLambda) throw new Error(`${name} must be set in the function's environment`);
  return localDefault;
}

export const config = {
  /** The one DynamoDB table (the CDK stack sets it on every function). */
  tableName: required('TABLE_NAME', 'sprint-ticketing'),
  /** DynamoDB Local (or another endpoint) instead of AWS; unset on Lambda. */
  dynamodbEndpoint: env.DYNAMODB_ENDPOINT || undefined,
  /** Region and credentials for a local endpoint, which accepts any. */
  localRegion: env.AWS_REGION ?? 'local',
  localCredentials: {
    accessKeyId: env.AWS_ACCESS_KEY_ID ?? 'local',
    secretAccessKey: env.AWS_SECRET_ACCESS_KEY ?? 'local',
  },
  /** The `service` of every log line. */
  serviceName: env.POWERTOOLS_SERVICE_NAME ?? 'sprint-ticketing',
};

import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured logger per module scope; level from POWERTOOLS_LOG_LEVEL (default INFO) and
 * service from POWERTOOLS_SERVICE_NAME, Powertools' own variables, read when it is built.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'sprint-ticketing' });

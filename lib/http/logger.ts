import { Logger } from '@aws-lambda-powertools/logger';
import { config } from '../config.ts';

/** One structured logger per module scope; level from POWERTOOLS_LOG_LEVEL (default INFO). */
export const logger = new Logger({ serviceName: config.serviceName });

/**
 * Messages shared by the schemas and the domain, in a module without zod: the domain loads at a
 * Lambda's cold start, the schemas only on the first request that validates (tools/bench/README.md).
 */

/** The message of the one cross-field date rule (also used by the domain against stored dates). */
export const endBeforeStartMessage = 'end_date must be on or after start_date';

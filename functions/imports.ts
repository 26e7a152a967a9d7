import { getImportJobStatus, startImportJob } from '../lib/services/import-export/jobs.ts';
import { routeHandler } from '../lib/http/stack.ts';
import { BadRequestError } from '../lib/vocabulary/errors.ts';
import { parseOrThrow } from '../lib/schemas/validate.ts';

const schemas = () => import('../lib/schemas/imports.ts');

/**
 * `POST /imports` (the body is the file itself, read raw, or the file with its mapping in a JSON
 * envelope) and `GET /imports/{job_id}`: one function for both, the stack being near
 * CloudFormation's 500 resources (docs/deploying.md). The job runs in the stream consumer
 * (functions/cascade.ts); docs/import-export.md.
 */
export const handler = routeHandler(async (req) => {
  if (req.params.job_id !== undefined) return { status: 200, body: await getImportJobStatus(req.principal, req.params.job_id) };
  const { ImportJobQuery, ImportEnvelope } = await schemas();
  const query = parseOrThrow(ImportJobQuery, req.query, false);
  const raw = typeof req.event.body === 'string' ? req.event.body : '';
  const text = req.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const contentType = req.event.headers?.['content-type'] ?? req.event.headers?.['Content-Type'] ?? '';
  const readEnvelope = (body: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw new BadRequestError(400, 'The body is not valid JSON');
    }
    const envelope = parseOrThrow(ImportEnvelope, parsed, false);
    return { text: envelope.file, mapping: envelope.mapping ?? undefined };
  };
  const job = await startImportJob(req.principal, query, { text, contentType }, readEnvelope);
  return { status: 202, body: job, headers: { Location: `/api/v1/imports/${job.id}` } };
});

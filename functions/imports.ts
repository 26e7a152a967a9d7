import { getImportJobStatus, startImportJob } from '../lib/port/jobs.ts';
import { routeHandler } from '../lib/http/stack.ts';
import { parseOrThrow } from '../lib/schemas/validate.ts';

const schemas = () => import('../lib/schemas/imports.ts');

/**
 * `POST /imports` (the body is the file itself: CSV or JSON, read raw), `GET /imports/{job_id}`
 * and `GET /export` (a page of the organisation's export): one function for all three, the stack
 * being near CloudFormation's 500 resources (docs/deploying.md). The import job runs in the stream
 * consumer (functions/cascade.ts); docs/import-export.md.
 */
export const handler = routeHandler(async (req) => {
  if (req.event.resource === '/api/v1/export') {
    const query = parseOrThrow((await import('../lib/schemas/export.ts')).ExportQuery, req.query, false);
    const { exportPage } = await import('../lib/port/export-pages.ts');
    const page = await exportPage(req.principal, query);
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
    };
    if (page.next) {
      const perPage = query.per_page === undefined ? '' : `&per_page=${query.per_page}`;
      headers.Link = `</api/v1/export?cursor=${page.next}${perPage}>; rel="next"`;
    }
    return { status: 200, text: page.text, headers };
  }
  if (req.params.job_id !== undefined) return { status: 200, body: await getImportJobStatus(req.principal, req.params.job_id) };
  const query = parseOrThrow((await schemas()).ImportJobQuery, req.query, false);
  const raw = typeof req.event.body === 'string' ? req.event.body : '';
  const text = req.event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  const contentType = req.event.headers?.['content-type'] ?? req.event.headers?.['Content-Type'] ?? '';
  const job = await startImportJob(req.principal, query, { text, contentType });
  return { status: 202, body: job, headers: { Location: `/api/v1/imports/${job.id}` } };
});

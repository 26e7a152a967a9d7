import { bulkWriteToList } from '../../lib/services/bulk.ts';
import { bulkResults } from '../../lib/http/bulk.ts';
import { bodySchema, pathId } from '../../lib/http/stack.ts';
import { idempotentHandler } from '../../lib/http/idempotent-handler.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';
import { withProjectStatuses } from '../../lib/http/project-statuses.ts';

const schemas = () => import('../../lib/schemas/bulk.ts');

/**
 * Creates and updates up to 100 issues of the backlog or of a sprint (both routes), each item
 * answered on its own, in order; `?dry_run=true` answers what would happen and writes nothing.
 */
export const handler = idempotentHandler(
  async (req) => {
    const projectId = pathId(req, 'project_id', 'Project');
    const at = { projectId, sprintId: req.params.sprint_id === undefined ? null : pathId(req, 'sprint_id', 'Sprint') };
    const { BulkQuery, bulkOps } = await schemas();
    const dryRun = parseOrThrow(BulkQuery, req.query, false).dry_run === 'true';
    const { items } = await req.input();
    const outcomes = await bulkWriteToList(req.principal, at, bulkOps(at, items), { dryRun });
    return { status: 200, body: { dry_run: dryRun, results: bulkResults(outcomes) } };
  },
  {
    body: bodySchema(() => import('../../lib/schemas/bulk.ts'), 'IssueBulkBody', { wrapped: false }),
    statuses: withProjectStatuses,
  },
);

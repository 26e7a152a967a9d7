import type { Principal } from '../model/principal.ts';
// Imported statically: an `import()` of code that reaches lib/db makes esbuild wrap every module it
// reaches, which keeps the DynamoDB client's whole index in the bundle (infra/shims/dynamodb-client.js).
import { writableStatuses } from '../services/states.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import { STATUS_REFUSED } from '../vocabulary/workflow.ts';
import type { StackEvent } from './middleware/types.ts';

/**
 * A body parsed by its schema; one that names an issue status that is no category (a state a team
 * made: "In review") is parsed again against the statuses of the project of the path
 * (docs/workflows.md): its workflow is read only then, so a write naming a category or `state_id`
 * costs no call, and a refusal lists the project's own statuses.
 */
export async function withProjectStatuses<Body>(
  event: StackEvent,
  principal: Principal,
  parse: () => Promise<Body>,
): Promise<Body> {
  try {
    return await parse();
  } catch (err) {
    const projectId = Number(event.pathParameters?.project_id);
    const refusedStatus = err instanceof ValidationError && err.errors.some((e) => e.includes(`status ${STATUS_REFUSED}`));
    if (!refusedStatus || !Number.isSafeInteger(projectId) || projectId < 1) throw err;
    const [statuses, { workflowStatuses }] = await Promise.all([
      writableStatuses(principal, projectId),
      // The schemas load on first use, as the body's own do (lib/http/stack.ts: bodySchema).
      import('../schemas/issues.ts'),
    ]);
    if (!statuses) throw new NotFoundError('Project');
    return workflowStatuses.run(statuses, parse);
  }
}

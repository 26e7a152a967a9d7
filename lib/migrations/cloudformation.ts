/**
 * The migration function is the CDK stack's custom resource handler too (infra/constructs/
 * migrations.ts): CloudFormation sends it a request on create, update and delete, and waits for an
 * answer at the request's pre-signed `ResponseURL`. It answers at once (a deploy never waits for
 * the migrations, which may take hours), then runs them.
 */

/** The request CloudFormation sends a custom resource's handler (the fields used here). */
export interface CustomResourceRequest {
  RequestType: 'Create' | 'Update' | 'Delete';
  ResponseURL: string;
  StackId: string;
  RequestId: string;
  LogicalResourceId: string;
  PhysicalResourceId?: string;
}

/** Whether an invocation's event is CloudFormation's. */
export const isCustomResourceRequest = (event: unknown): event is CustomResourceRequest =>
  typeof event === 'object' &&
  event !== null &&
  typeof (event as CustomResourceRequest).ResponseURL === 'string' &&
  typeof (event as CustomResourceRequest).RequestType === 'string';

/** The resource's physical id: one run of the migrations per table, whatever its properties. */
export const PHYSICAL_ID = 'data-migrations';

/** Answers CloudFormation's request: SUCCESS (the deploy goes on), or FAILED with `reason`. */
export async function answerCloudFormation(request: CustomResourceRequest, failure?: string): Promise<void> {
  const body = JSON.stringify({
    Status: failure === undefined ? 'SUCCESS' : 'FAILED',
    Reason: failure ?? 'data migrations started: npm run admin -- migrations:status shows their progress',
    PhysicalResourceId: request.PhysicalResourceId ?? PHYSICAL_ID,
    StackId: request.StackId,
    RequestId: request.RequestId,
    LogicalResourceId: request.LogicalResourceId,
  });
  // The pre-signed URL was signed with no content type: sending one would break its signature.
  const res = await fetch(request.ResponseURL, { method: 'PUT', headers: { 'content-type': '' }, body });
  if (!res.ok) throw new Error(`CloudFormation did not take the answer: ${res.status}`);
}

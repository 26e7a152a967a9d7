import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/**
 * What the cascade of deletes decides, apart from the table (lib/db/cascade.ts carries it out):
 * which parent a stream record asks to cascade, what a pending cascade is and when one is given
 * up, and what the failure queue is told.
 */

/** What a REMOVE record asks to be cascaded. */
export type CascadeParent =
  | { kind: 'project'; orgId: number; projectId: number }
  | { kind: 'sprint'; orgId: number; projectId: number; sprintId: number }
  | { kind: 'issue'; orgId: number; projectId: number; issueId: number };

const numberOf = (v: AttributeValue | undefined): number | undefined =>
  v?.N !== undefined && Number.isSafeInteger(Number(v.N)) ? Number(v.N) : undefined;

/** The parent a stream record asks to cascade, or undefined for anything else (writes, comments...). */
export function cascadeParentOf(record: DynamoDBRecord): CascadeParent | undefined {
  if (record.eventName !== 'REMOVE') return undefined;
  const old = record.dynamodb?.OldImage;
  if (!old) return undefined;
  const type = old.type?.S;
  const orgId = numberOf(old.org_id);
  const id = numberOf(old.id);
  if (orgId === undefined || id === undefined) return undefined;
  if (type === 'project') return { kind: 'project', orgId, projectId: id };
  const projectId = numberOf(old.project_id);
  if (projectId === undefined) return undefined;
  if (type === 'sprint') return { kind: 'sprint', orgId, projectId, sprintId: id };
  if (type === 'issue') return { kind: 'issue', orgId, projectId, issueId: id };
  return undefined;
}

/** Failures in a row after which a pending cascade is left for an operator (`cascade:resume`). */
export const MAX_ATTEMPTS = 5;

/** A cascade written down to be continued: where it stopped, and how it has fared so far. */
export interface PendingCascade {
  parent: CascadeParent;
  /** Where its paging stopped; undefined to start from the beginning. */
  after?: Record<string, unknown> | undefined;
  /** Failures in a row (a deadline stop is not one). */
  attempts: number;
  /** `pending` brings the consumer back; `failed` waits for `cascade:resume`. */
  status: 'pending' | 'failed';
  error?: string | undefined;
}

export const idOf = (parent: CascadeParent): number =>
  parent.kind === 'project' ? parent.projectId : parent.kind === 'sprint' ? parent.sprintId : parent.issueId;

/** A pending cascade from its stored item (plain attributes). */
export function pendingCascadeFromItem(item: Record<string, unknown>): PendingCascade | undefined {
  const orgId = Number(item.org_id);
  const projectId = Number(item.project_id);
  const id = Number(item.parent_id);
  if (item.type !== 'cascade' || ![orgId, projectId, id].every(Number.isSafeInteger)) return undefined;
  const parent: CascadeParent | undefined =
    item.kind === 'project'
      ? { kind: 'project', orgId, projectId }
      : item.kind === 'sprint'
        ? { kind: 'sprint', orgId, projectId, sprintId: id }
        : item.kind === 'issue'
          ? { kind: 'issue', orgId, projectId, issueId: id }
          : undefined;
  if (!parent) return undefined;
  return {
    parent,
    after: (item.after as Record<string, unknown> | undefined) ?? undefined,
    attempts: Number(item.attempts ?? 0),
    status: item.status === 'failed' ? 'failed' : 'pending',
    error: typeof item.error === 'string' ? item.error : undefined,
  };
}

/** The pending cascade a stream record (its write, still pending) asks to continue, if any. */
export function pendingCascadeOf(record: DynamoDBRecord): PendingCascade | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const image = record.dynamodb?.NewImage;
  if (image?.type?.S !== 'cascade' || image.status?.S !== 'pending') return undefined;
  return pendingCascadeFromItem(unmarshall(image as Record<string, SdkAttributeValue>));
}

/** What the failure queue carries for a cascade given up: everything `cascade:resume` needs. */
export function failureMessage(pending: PendingCascade) {
  const { parent } = pending;
  const child =
    parent.kind === 'sprint' ? ` --sprint ${parent.sprintId}` : parent.kind === 'issue' ? ` --issue ${parent.issueId}` : '';
  return {
    cascade: parent,
    after: pending.after ?? null,
    attempts: pending.attempts,
    error: pending.error ?? null,
    resume: `npm run admin -- cascade:resume --org ${parent.orgId} --project ${parent.projectId}${child}`,
  };
}

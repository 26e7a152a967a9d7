import * as store from '../db/github/github.ts';
import { openForSigning } from '../aws/secret-box.ts';
import { isObject, verifyGithubSignature } from '../model/github.ts';
import { BadRequestError, UnauthorizedError } from '../vocabulary/errors.ts';

/**
 * The receiver of GitHub's deliveries (`POST /api/v1/integrations/github`, docs/github.md): finds
 * the project that connects the repository a delivery names (one read), checks the delivery's
 * signature with that project's secret before anything else, and writes the delivery once by its
 * id (one conditional write) for the stream consumer (lib/services/github-events.ts), which does
 * the work. Two DynamoDB calls, whatever the delivery holds.
 */

/** GitHub's own cap on a delivery's body (its documentation: payloads are capped at 25 MB). */
export const MAX_DELIVERY_BYTES = 25 * 1024 * 1024;

/** The events a delivery is stored for; every other is answered `ignored`. */
const FOLLOWED = new Set(['pull_request', 'push', 'create', 'delete']);

export type ReceiveStatus = 'accepted' | 'duplicate' | 'ignored' | 'pong';

export interface Delivery {
  event: string | undefined;
  id: string | undefined;
  signature: string | undefined;
  body: Buffer;
}

/** A delivery id as GitHub makes them (a GUID), bounded. */
const DELIVERY_ID = /^[A-Za-z0-9-]{1,64}$/;

type Json = Record<string, unknown>;

/** What of a payload the consumer reads, bounded so that a stored delivery stays far under an item's 400 KB. */
const TEXT_LIMIT = 65_536;
const COMMITS_LIMIT = 50;
const MESSAGE_LIMIT = 4_096;

const text = (v: unknown, limit: number) => (typeof v === 'string' ? v.slice(0, limit) : v);
const pick = (o: unknown, fields: string[]): Json | undefined =>
  isObject(o) ? Object.fromEntries(fields.filter((f) => f in o).map((f) => [f, text(o[f], TEXT_LIMIT)])) : undefined;

/** The fields of a payload the normaliser (lib/model/github.ts: githubEvent) reads, and no more. */
export function storedPayload(payload: Json): Json {
  const repository = isObject(payload.repository)
    ? {
        ...pick(payload.repository, ['name', 'full_name', 'html_url', 'default_branch', 'master_branch', 'pushed_at']),
        owner: pick(payload.repository.owner, ['login', 'name']),
      }
    : undefined;
  const pr = isObject(payload.pull_request)
    ? {
        ...pick(payload.pull_request, [
          'number',
          'html_url',
          'title',
          'body',
          'state',
          'draft',
          'merged',
          'merged_at',
          'created_at',
          'updated_at',
          'closed_at',
        ]),
        user: pick(payload.pull_request.user, ['login']),
        head: pick(payload.pull_request.head, ['ref']),
      }
    : undefined;
  const commits = Array.isArray(payload.commits)
    ? payload.commits.slice(0, COMMITS_LIMIT).map((c: unknown) => ({
        ...pick(c, ['id', 'url', 'timestamp']),
        message: isObject(c) ? text(c.message, MESSAGE_LIMIT) : undefined,
        author: isObject(c) ? pick(c.author, ['username', 'name']) : undefined,
      }))
    : undefined;
  return {
    ...pick(payload, ['action', 'ref', 'ref_type', 'deleted', 'created', 'forced']),
    ...(repository ? { repository } : {}),
    ...(pr ? { pull_request: pr } : {}),
    ...(commits ? { commits } : {}),
    ...(isObject(payload.head_commit) ? { head_commit: pick(payload.head_commit, ['timestamp']) } : {}),
    ...(isObject(payload.sender) ? { sender: pick(payload.sender, ['login']) } : {}),
    ...(isObject(payload.pusher) ? { pusher: pick(payload.pusher, ['name']) } : {}),
  };
}

/** The parsed body, or 400. */
function parsed(body: Buffer): Json {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    if (isObject(value)) return value;
  } catch {
    // answered below
  }
  throw new BadRequestError(400, 'The body must be a JSON object (choose application/json in GitHub)');
}

/** Receives one delivery: what it came to (a 401 for a signature that does not hold, a 400 for a body that is no JSON). */
export async function receiveDelivery(delivery: Delivery): Promise<ReceiveStatus> {
  const payload = parsed(delivery.body);
  const fullName = isObject(payload.repository) ? payload.repository.full_name : undefined;
  if (typeof fullName !== 'string' || fullName.length > 140) return 'ignored';
  const repo = await store.getRepository(fullName);
  if (!repo) return 'ignored';
  // A connection with no secret yet (imported) takes no delivery: an empty key would sign anything.
  const secret =
    repo.secret === store.NO_SECRET
      ? undefined
      : await openForSigning(repo.secret, { orgId: repo.orgId, githubProjectId: repo.projectId });
  if (secret === undefined || !verifyGithubSignature(secret, delivery.body, delivery.signature)) {
    throw new UnauthorizedError('The X-Hub-Signature-256 of this delivery does not hold with the repository’s secret');
  }
  if (delivery.event === 'ping') return 'pong';
  if (!delivery.event || !FOLLOWED.has(delivery.event)) return 'ignored';
  if (!delivery.id || !DELIVERY_ID.test(delivery.id))
    throw new BadRequestError(400, 'X-GitHub-Delivery must be the delivery id GitHub sends');
  const now = new Date();
  const written = await store.recordDelivery({
    id: delivery.id,
    orgId: repo.orgId,
    projectId: repo.projectId,
    repository: `${repo.owner}/${repo.name}`,
    event: delivery.event,
    payload: storedPayload(payload),
    receivedAt: now.toISOString(),
    expiresAt: Math.floor(now.getTime() / 1000) + store.DELIVERY_TTL_DAYS * 86_400,
  });
  return written ? 'accepted' : 'duplicate';
}

import { randomBytes } from 'node:crypto';
import { publicUrl } from '../config.ts';
import type { GitHubConnectionRefusal } from '../db/core/refusals.ts';
import { Refused } from '../db/core/transactions.ts';
import * as store from '../db/github/github.ts';
import { getProjectItem, projectItem } from '../db/projects/projects.ts';
import { secretBox } from '../aws/secret-box.ts';
import type { Principal } from '../model/principal.ts';
import type { GitHubAutomationUpdate, GitHubConnect, GitHubConnection } from '../schemas/github.ts';
import { githubEvents } from '../vocabulary/github.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../vocabulary/errors.ts';
import { integrationActor } from './github-actor.ts';
import { refusedAs, type Meanings } from './refusals.ts';

/**
 * A project's GitHub repository (docs/github.md): connect, read, change its status automation,
 * rotate its webhook secret, disconnect. Admins only. The secret is shown once, when it is made,
 * and stored sealed, bound to the project (lib/aws/secret-box.ts); the receiver opens it.
 */

const refusals = {
  repository_taken: () => new ConflictError(['github.repository: is connected to another project']),
  connected: () => new NotFoundError('Project'),
  connection: () => new NotFoundError('GitHub connection'),
} satisfies Meanings<GitHubConnectionRefusal>;

function requireAdmin(caller: Principal) {
  if (caller.role !== 'admin') throw new ForbiddenError('Only admins may connect GitHub');
}

/** The caller's project (admins only), or 404. */
async function ownProject(caller: Principal, projectId: number) {
  requireAdmin(caller);
  const project = await getProjectItem(caller.orgId, projectId);
  if (!project) throw new NotFoundError('Project');
  return projectItem.decode(project);
}

/** The repository the project connects, or 404. */
async function ownConnection(caller: Principal, projectId: number): Promise<store.GitHubRepo> {
  const project = await ownProject(caller, projectId);
  const repo = project.githubRepoOwner && (await store.getRepository(`${project.githubRepoOwner}/${project.githubRepoName}`));
  if (!repo || repo.projectId !== projectId || repo.orgId !== caller.orgId) throw new NotFoundError('GitHub connection');
  return repo;
}

/** The connection as the API answers it. */
export const connectionOf = (repo: store.GitHubRepo): GitHubConnection => ({
  project_id: repo.projectId,
  repository: `${repo.owner}/${repo.name}`,
  repository_owner: repo.owner,
  repository_name: repo.name,
  payload_url: `${publicUrl()}/api/v1/integrations/github`,
  content_type: 'application/json',
  events: [...githubEvents],
  automation: {
    enabled: repo.automationEnabled,
    on_open: repo.onOpen,
    on_merge: repo.onMerge,
    merge_needs_closing_word: repo.mergeNeedsClosingWord,
  },
  last_delivery_at: repo.lastDeliveryAt,
  created_at: repo.createdAt,
  updated_at: repo.updatedAt,
});

/** A new webhook secret: 32 random bytes as hex, as GitHub's settings take it. */
const newSecret = (): string => randomBytes(32).toString('hex');

const automationFields = (a: GitHubAutomationUpdate | undefined) => ({
  ...(a?.enabled !== undefined ? { automationEnabled: a.enabled } : {}),
  ...(a?.on_open !== undefined ? { onOpen: a.on_open } : {}),
  ...(a?.on_merge !== undefined ? { onMerge: a.on_merge } : {}),
  ...(a?.merge_needs_closing_word !== undefined ? { mergeNeedsClosingWord: a.merge_needs_closing_word } : {}),
});

/**
 * PUT /projects/{id}/github: connects `input.repository` (answered with its secret, the only time
 * it is shown), or, when the project connects that repository already, changes its automation.
 * A project connected to another repository is disconnected from it first.
 */
export async function connectRepository(
  caller: Principal,
  projectId: number,
  input: GitHubConnect,
): Promise<GitHubConnection & { secret?: string }> {
  const project = await ownProject(caller, projectId);
  const [owner, name] = input.repository.split('/') as [string, string];
  const current = project.githubRepoOwner ? `${project.githubRepoOwner}/${project.githubRepoName}` : null;
  const now = new Date().toISOString();
  if (current?.toLowerCase() === input.repository.toLowerCase()) {
    const repo = await refusedAs(refusals, () =>
      store.updateRepository(input.repository, projectId, { ...automationFields(input.automation), updatedAt: now }),
    );
    return connectionOf(repo);
  }
  // Its repository before, let go (an item no longer there, or another project's, is no connection of its own to let go).
  if (current) {
    await store.disconnectRepository(caller.orgId, projectId, current, now).catch((err: unknown) => {
      if (!(err instanceof Refused && err.reason === store.githubRefusals.connection)) throw err;
    });
  }
  const secret = newSecret();
  const repo: store.GitHubRepo = {
    orgId: caller.orgId,
    projectId,
    owner,
    name,
    secret: await secretBox().seal(secret, { orgId: caller.orgId, githubProjectId: projectId }),
    automationEnabled: false,
    onOpen: null,
    onMerge: null,
    mergeNeedsClosingWord: true,
    ...automationFields(input.automation),
    actorId: await integrationActor(caller.orgId),
    lastDeliveryAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await refusedAs(refusals, () => store.connectRepository(repo));
  return { ...connectionOf(repo), secret };
}

/** GET /projects/{id}/github. */
export async function getConnection(caller: Principal, projectId: number): Promise<GitHubConnection> {
  return connectionOf(await ownConnection(caller, projectId));
}

/** POST /projects/{id}/github/secret: a new secret, shown once; deliveries signed with the old one are refused from now on. */
export async function rotateSecret(caller: Principal, projectId: number): Promise<GitHubConnection & { secret: string }> {
  const repo = await ownConnection(caller, projectId);
  const secret = newSecret();
  const sealed = await secretBox().seal(secret, { orgId: caller.orgId, githubProjectId: projectId });
  const written = await refusedAs(refusals, () =>
    store.updateRepository(`${repo.owner}/${repo.name}`, projectId, { secret: sealed, updatedAt: new Date().toISOString() }),
  );
  return { ...connectionOf(written), secret };
}

/** DELETE /projects/{id}/github: the links stay on their issues; deliveries of the repository are ignored from now on. */
export async function disconnectRepository(caller: Principal, projectId: number): Promise<void> {
  const repo = await ownConnection(caller, projectId);
  await refusedAs(refusals, () =>
    store.disconnectRepository(caller.orgId, projectId, `${repo.owner}/${repo.name}`, new Date().toISOString()),
  );
}

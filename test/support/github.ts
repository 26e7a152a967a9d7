import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { githubSignature } from '../../lib/model/github.ts';
import { ok, orgWithClients, randomPrefix, type ApiClient } from './api.ts';

/**
 * GitHub's own example payloads (`@octokit/webhooks-examples`), and deliveries of them to the
 * local receiver, signed as GitHub signs them (docs/github.md).
 */
const examples = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: any[] }[];

/** A copy of GitHub's example of `event` (its first of `action`, when given). */
export const example = (event: string, action?: string): any =>
  structuredClone(examples.find((e) => e.name === event)!.examples.find((x) => action === undefined || x.action === action));

/** A payload made to come from `repo` (`owner/name`). */
export function from(payload: any, repo: string) {
  const [owner, name] = repo.split('/');
  payload.repository = {
    ...payload.repository,
    name,
    full_name: repo,
    owner: { ...payload.repository.owner, login: owner, name: owner },
  };
  return payload;
}

/** An issue's links, as `GET /issues/{key}/links` answers them. */
export const linksOf = (client: ApiClient, key: string): Promise<any[]> => ok(client.get(`/api/v1/issues/${key}/links`));

/** Deliveries and connected projects on the local gateway of a test file (`useGateway`). */
export function githubHelpers(gateway: { readonly baseUrl: string }) {
  /** A project of a fresh organisation connected to a repository of its own, with two issues. */
  async function connected(automation?: Record<string, unknown>) {
    const { org, admin, member } = await orgWithClients(gateway);
    const project = await ok(admin.post('/api/v1/projects', { project: { name: 'Hooked', prefix: randomPrefix() } }));
    const repo = `octo-${randomUUID().slice(0, 8)}/hello-world`;
    const connection = await ok(
      admin.put(`/api/v1/projects/${project.id}/github`, { github: { repository: repo, ...(automation ? { automation } : {}) } }),
    );
    const one = await ok(admin.post(`/api/v1/projects/${project.id}/issues`, { issue: { title: 'One' } }));
    const two = await ok(admin.post(`/api/v1/projects/${project.id}/issues`, { issue: { title: 'Two' } }));
    return { org, admin, member, project, repo, connection, one, two };
  }

  /** Delivers `payload` as event `event`, signed with `secret` (null: unsigned) unless `signature` says otherwise. */
  async function deliver(event: string, payload: unknown, secret: string | null, id = randomUUID(), signature?: string) {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': id,
    };
    const signed = signature ?? (secret === null ? undefined : githubSignature(secret, body));
    if (signed) headers['x-hub-signature-256'] = signed;
    const res = await fetch(`${gateway.baseUrl}/api/v1/integrations/github`, { method: 'POST', headers, body });
    return { status: res.status, body: (await res.json()) as any };
  }

  return { connected, deliver };
}

/**
 * A pull request of `repo` titled `title`, as GitHub's example of its opening tells it (updated at
 * 10:00 on 2026-12-01), and the same merged an hour later.
 */
export function pullRequestOf(repo: string, title: string) {
  const opened = from(example('pull_request', 'opened'), repo);
  opened.pull_request.title = title;
  opened.pull_request.created_at = '2026-12-01T09:00:00Z';
  opened.pull_request.updated_at = '2026-12-01T10:00:00Z';
  const merged = structuredClone(opened);
  merged.action = 'closed';
  const at = '2026-12-01T11:00:00Z';
  Object.assign(merged.pull_request, { state: 'closed', merged: true, merged_at: at, closed_at: at, updated_at: at });
  return { opened, merged };
}

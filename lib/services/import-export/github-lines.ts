import { Refused } from '../../db/core/transactions.ts';
import { dropRepositoryClaim, restoreConnection } from '../../db/github/github-export.ts';
import {
  getRepository,
  githubRefusals,
  MAX_LINKS_PER_ISSUE,
  readLinks,
  writeLink,
  type GitHubRepo,
  type LinkPlace,
  type StoredLink,
  NO_SECRET,
} from '../../db/github/github.ts';
import { linkKinds, linkStates, type IssueLink } from '../../schemas/github.ts';
import { str, strOrNull, type Line } from '../../model/formats/records.ts';
import { integrationActor } from '../github-actor.ts';

/**
 * The GitHub lines of an export file (lib/services/import-export/export.ts) as its import writes
 * them (docs/import-export.md, docs/github.md):
 *
 * - `github_link`: a pull request, branch or commit naming an issue, written under the issue's new
 *   id as it was (kind, reference, URL, title, author, state, closing word, what the automation
 *   did, times), through the one write of a link, so the issue's counts follow; written once,
 *   however many runs. The pull requests of an issue are written oldest change first, and the one
 *   whose state the issue showed (`links.pull_request_state` of its line) last, so the issue shows
 *   it again.
 * - `github_connection`: the project's repository and status automation, without a webhook secret
 *   (the file never holds one): an admin rotates one to see it and pastes it into
 *   the repository's webhook settings; until then GitHub's deliveries are refused (401). A
 *   repository connected to some project already is left there, and the project's line's claim on
 *   it taken off: the report says so.
 */

const isTime = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(Date.parse(v));
const timeOrNull = (v: unknown) => (isTime(v) ? v : null);

/** A `github_link` line as the link to store at `place`, or why it is none. */
export function linkOfLine(line: Line, place: Omit<LinkPlace, 'kind' | 'ref'>): StoredLink | string {
  const kind = line.link_kind as IssueLink['kind'];
  const state = line.state as IssueLink['state'];
  if (!linkKinds.includes(kind)) return `github_link: unknown link_kind "${String(line.link_kind)}"`;
  if (!linkStates.includes(state)) return `github_link: unknown state "${String(line.state)}"`;
  const ref = str(line.ref);
  const url = str(line.url);
  if (!ref || !url || !isTime(line.updated_at)) return 'github_link: a link needs its ref, url and updated_at';
  return {
    ...place,
    kind,
    ref,
    url,
    title: str(line.title) ?? ref,
    author: strOrNull(line.author),
    state,
    closing: line.closing === true,
    automation: strOrNull(line.automation),
    createdAt: timeOrNull(line.created_at),
    updatedAt: line.updated_at,
    mergedAt: timeOrNull(line.merged_at),
    closedAt: timeOrNull(line.closed_at),
  };
}

/**
 * The order an issue's links are written in: branches and commits, then its pull requests oldest
 * change first, the latest of those in `prState` (the state its issue showed) last.
 */
export function writeOrder(links: StoredLink[], prState: string | undefined): StoredLink[] {
  const others = links.filter((l) => l.kind !== 'pull_request');
  const prs = links.filter((l) => l.kind === 'pull_request').sort((a, b) => a.updatedAt.localeCompare(b.updatedAt));
  const shown = prs.findLastIndex((l) => l.state === prState);
  if (shown >= 0) prs.push(...prs.splice(shown, 1));
  return [...others, ...prs];
}

const placeOf = (l: StoredLink): LinkPlace => ({
  orgId: l.orgId,
  projectId: l.projectId,
  issueId: l.issueId,
  kind: l.kind,
  ref: l.ref,
});

/** What writing an issue's links did. */
export interface LinksOutcome {
  written: number;
  /** Found there already (an earlier run). */
  already: number;
  /** Links not written, each with why. */
  refused: string[];
}

/**
 * Writes the links of one issue (in `writeOrder`) that are not there yet, each in one transaction
 * with the issue's counts. When some were written and the pull request written last was there
 * already, it is written again over itself: the issue shows its state.
 */
export async function restoreIssueLinks(links: StoredLink[], prState: string | undefined): Promise<LinksOutcome> {
  const ordered = writeOrder(links, prState);
  const found = await readLinks(ordered.map(placeOf));
  const outcome: LinksOutcome = { written: 0, already: 0, refused: [] };
  for (const [i, link] of ordered.entries()) {
    if (found[i]) {
      outcome.already += 1;
      continue;
    }
    try {
      await writeLink(placeOf(link), link, undefined);
      outcome.written += 1;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      // `stale`: written meanwhile; else its issue is gone, or has all the links it may have.
      if (err.reason === githubRefusals.stale) outcome.already += 1;
      else outcome.refused.push(`${link.kind} ${link.ref}: its issue is gone or has ${MAX_LINKS_PER_ISSUE} links`);
    }
  }
  const last = ordered.findLast((l) => l.kind === 'pull_request');
  const lastIndex = last ? ordered.lastIndexOf(last) : -1;
  const stored = found[lastIndex];
  if (last && stored && outcome.written > 0) {
    await writeLink(placeOf(last), stored, stored).catch((err: unknown) => {
      if (!(err instanceof Refused)) throw err;
    });
  }
  return outcome;
}

/**
 * What a connection line came to: a warning for the report (`connected`: with a new secret, or
 * would be; `left`: not connected, and why), nothing (`already`: an earlier run connected it), or
 * an error of its line.
 */
export type ConnectionOutcome = { warning: string; connected: boolean } | { error: string } | { already: true };

/** A connection line's context: the organisation, the project here (0: none, a dry run's new one), its accounts by e-mail. */
export interface ConnectionContext {
  orgId: number;
  projectId: number;
  dryRun: boolean;
  accountFor: (email: unknown) => number | undefined;
}

/**
 * A `github_connection` line: its repository connected to the project here with a new secret (its
 * automation, the account it writes as and its times as the file has them), unless some project
 * connects it already: then left, the project's claim on it taken off.
 */
export async function restoreConnectionLine(line: Line, at: ConnectionContext): Promise<ConnectionOutcome> {
  const owner = str(line.repository_owner);
  const name = str(line.repository_name);
  if (!owner || !name || !isTime(line.created_at) || !isTime(line.updated_at))
    return { error: 'github_connection: a connection needs its repository_owner, repository_name, created_at and updated_at' };
  const fullName = `${owner}/${name}`;
  const existing = await getRepository(fullName);
  if (existing && existing.orgId === at.orgId && existing.projectId === at.projectId) return { already: true };
  if (existing) return taken(fullName, at, owner, name);
  if (at.dryRun || at.projectId === 0)
    return {
      warning: `GitHub repository ${fullName} would be connected without a webhook secret (rotate it to make one)`,
      connected: true,
    };
  const automation = (typeof line.automation === 'object' && line.automation !== null ? line.automation : {}) as Line;
  const repo: GitHubRepo = {
    orgId: at.orgId,
    projectId: at.projectId,
    owner,
    name,
    // No secret: every delivery is refused until an admin rotates one (and pastes it into GitHub).
    secret: NO_SECRET,
    automationEnabled: automation.enabled === true,
    onOpen: strOrNull(automation.on_open),
    onMerge: strOrNull(automation.on_merge),
    mergeNeedsClosingWord: automation.merge_needs_closing_word !== false,
    actorId: at.accountFor(line.actor_email) ?? (await integrationActor(at.orgId)),
    lastDeliveryAt: timeOrNull(line.last_delivery_at),
    createdAt: line.created_at,
    updatedAt: line.updated_at,
  };
  try {
    await restoreConnection(repo);
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    if (err.reason === githubRefusals.repositoryTaken) return taken(fullName, at, owner, name);
    return {
      warning: `GitHub repository ${fullName} was not connected: the project is connected to another repository (or gone)`,
      connected: false,
    };
  }
  return {
    warning:
      `GitHub repository ${fullName} connected without a webhook secret: an admin rotates it ` +
      `(POST /api/v1/projects/${at.projectId}/github/secret) to see one and pastes it into the repository's webhook settings; ` +
      'until then GitHub’s deliveries are refused',
    connected: true,
  };
}

/** A repository some project connects already: left there; the project here no longer names it. */
async function taken(fullName: string, at: ConnectionContext, owner: string, name: string): Promise<ConnectionOutcome> {
  if (!at.dryRun && at.projectId !== 0) await dropRepositoryClaim(at.orgId, at.projectId, owner, name);
  return {
    warning:
      `GitHub repository ${fullName} is connected to another project: its connection was not imported ` +
      '(disconnect it there, then connect it here: PUT /api/v1/projects/{project_id}/github)',
    connected: false,
  };
}

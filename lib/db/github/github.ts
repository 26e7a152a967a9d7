import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../core/client.ts';
import { isConditionFailed } from '../core/errors.ts';
import { keys, skPrefixes } from '../core/keys.ts';
import { alsoIf, attribute, itemKind, type Fields } from '../core/item.ts';
import { batchGet, getItem, Refused, transact, updateIf, type GuardedItem } from '../core/transactions.ts';
import { bumpVersion } from '../core/stamps.ts';
import { holderId } from '../../model/derivations.ts';
import { issueItem, searchRecordItem } from '../issues/issue-item.ts';
import { sendIssueWrite } from '../issues/issue-write.ts';
import { projectItem } from '../projects/projects.ts';
import type { IssueLink } from '../../schemas/github.ts';

/**
 * GitHub (docs/github.md). A connected repository is one item outside every organisation, keyed by
 * its `owner/name` (the receiver finds the project and the sealed secret by the repository a
 * delivery names: one read), written in one transaction with the project's `github_repo_owner` and
 * `github_repo_name`. A delivery is written once by its id (a redelivery finds it there) and worked
 * on by the stream consumer (lib/services/github-events.ts). A link lives under its issue, counted
 * on the issue item in the transaction that writes it, with the pull requests' states that search
 * and the issue's answer read.
 *
 * Refusal reasons: `repository_taken` (connected to a project already), `connected` (the project
 * has another repository, or is gone), `connection` (not connected to this project any more),
 * `issue` (gone), `links_limit`, `stale` (the link or the issue changed since it was read).
 */
export const githubRefusals = {
  repositoryTaken: 'repository_taken',
  connected: 'connected',
  connection: 'connection',
  issue: 'issue',
  linksLimit: 'links_limit',
  stale: 'stale',
} as const;

/**
 * The secret of a connection that has none yet (one an export file's import made: the file never
 * holds a secret): every delivery is refused until an admin rotates one.
 */
export const NO_SECRET = '';

/** Links per issue: the list is one Query, sorted in memory. A push naming an issue past it links nothing more. */
export const MAX_LINKS_PER_ISSUE = 200;
/** How long a delivery's record is kept: GitHub redelivers within days. */
export const DELIVERY_TTL_DAYS = 7;

export const githubRepoItem = itemKind({
  type: 'github_repo',
  key: keys.githubRepo.placement,
  about: 'GitHub repository connected to a project (+ its sealed webhook secret, status automation)',
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    owner: attribute.string('owner'),
    name: attribute.string('name'),
    /** The webhook secret, sealed (lib/aws/secret-box.ts), bound to the project. */
    secret: attribute.string('secret'),
    automationEnabled: attribute.boolean('automation_enabled'),
    onOpen: attribute.nullableString('on_open'),
    onMerge: attribute.nullableString('on_merge'),
    mergeNeedsClosingWord: attribute.boolean('merge_needs_closing_word', true),
    /** The account the status automation writes as (its activity's actor): made at the first connection. */
    actorId: attribute.nullableNumber('actor_id'),
    lastDeliveryAt: attribute.nullableString('last_delivery_at'),
    createdAt: attribute.string('created_at'),
    updatedAt: attribute.string('updated_at'),
  },
});
export type GitHubRepo = Fields<typeof githubRepoItem.attributes>;

export const githubDeliveryItem = itemKind({
  type: 'github_delivery',
  key: keys.githubDelivery.placement,
  about: 'GitHub delivery, the fields of its payload the stream consumer reads (TTL `expires_at`)',
  attributes: {
    id: attribute.string('id'),
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    repository: attribute.string('repository'),
    event: attribute.string('event'),
    /** The fields of GitHub's payload that lib/model/github.ts reads, bounded (lib/services/github-receiver.ts: `storedPayload`). */
    payload: attribute.whole<unknown, 'payload'>('payload'),
    receivedAt: attribute.string('received_at'),
    expiresAt: attribute.expiry(),
  },
});
export type GitHubDelivery = Fields<typeof githubDeliveryItem.attributes>;

export const githubLinkItem = itemKind({
  type: 'github_link',
  key: keys.issueLink.placement,
  about: 'pull request, branch or commit on GitHub naming an issue',
  attributes: {
    orgId: attribute.number('org_id'),
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    kind: attribute.oneOf<IssueLink['kind']>('kind'),
    ref: attribute.string('ref'),
    url: attribute.string('url'),
    title: attribute.string('title'),
    author: attribute.nullableString('author'),
    state: attribute.oneOf<IssueLink['state']>('state'),
    closing: attribute.flag('closing'),
    automation: attribute.nullableString('automation'),
    createdAt: attribute.nullableString('created_at'),
    updatedAt: attribute.string('updated_at'),
    mergedAt: attribute.nullableString('merged_at'),
    closedAt: attribute.nullableString('closed_at'),
  },
});
export type StoredLink = Fields<typeof githubLinkItem.attributes>;

/** The repository `fullName` (`owner/name`, any case) names, if a project connects it: one consistent GetItem. */
export async function getRepository(fullName: string): Promise<GitHubRepo | undefined> {
  const item = await getItem(keys.githubRepo(fullName));
  return item && githubRepoItem.decode(item);
}

const projectGithub = (orgId: number, projectId: number, owner: string | null, name: string | null, now: string): GuardedItem =>
  projectItem.updateAt(
    keys.project(orgId, projectId),
    { set: { githubRepoOwner: owner, githubRepoName: name, updatedAt: now }, if: { exists: true } },
    githubRefusals.connected,
  );

/** The repository's item, new: refused `repository_taken` when some project connects it already. */
export const repositoryPut = (repo: GitHubRepo): GuardedItem => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...keys.githubRepo(`${repo.owner}/${repo.name}`), type: githubRepoItem.type, ...githubRepoItem.encode(repo) },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  },
  reason: githubRefusals.repositoryTaken,
});

/** The repository's item removed, on condition that it still connects that project (refused `connection`). */
const repositoryDelete = (orgId: number, projectId: number, fullName: string): GuardedItem => ({
  item: {
    Delete: {
      TableName: tableName(),
      Key: keys.githubRepo(fullName),
      ...conditionOf(githubRepoItem.update({ set: {}, if: { exists: true, equals: { orgId, projectId } } })),
    },
  },
  reason: githubRefusals.connection,
});

/**
 * Connects `repo` to its project: the repository's item (refused `repository_taken` when some
 * project connects it) and the project's two fields, in one transaction (refused `connected` when
 * the project is gone).
 */
export async function connectRepository(repo: GitHubRepo): Promise<void> {
  await transact([repositoryPut(repo), projectGithub(repo.orgId, repo.projectId, repo.owner, repo.name, repo.updatedAt)]);
}

/** Changes a connected repository's automation or secret; refused `connection` when the project no longer connects it. */
export async function updateRepository(
  fullName: string,
  projectId: number,
  set: Partial<Omit<GitHubRepo, 'orgId' | 'projectId' | 'owner' | 'name' | 'createdAt'>>,
): Promise<GitHubRepo> {
  const { Attributes } = await db
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.githubRepo(fullName),
        ...githubRepoItem.update({ set, if: { exists: true, equals: { projectId } } }),
        ReturnValues: 'ALL_NEW',
      }),
    )
    .catch((err: unknown) => {
      if (isConditionFailed(err)) throw new Refused(githubRefusals.connection);
      throw err;
    });
  return githubRepoItem.decode(Attributes!);
}

/** Notes when a repository's last signed delivery arrived (the stream consumer; best effort). */
export async function noteDelivery(fullName: string, projectId: number, at: string): Promise<void> {
  await updateRepository(fullName, projectId, { lastDeliveryAt: at }).catch((err: unknown) => {
    if (!(err instanceof Refused)) throw err;
  });
}

/** Disconnects the project's repository: its item and the project's two fields, in one transaction. */
export async function disconnectRepository(orgId: number, projectId: number, fullName: string, now: string): Promise<void> {
  await transact([repositoryDelete(orgId, projectId, fullName), projectGithub(orgId, projectId, null, null, now)]);
}

/** The repository item of a project's purge (its cascade): removed when it still points to that project. */
export async function forgetRepository(orgId: number, projectId: number, fullName: string): Promise<void> {
  await transact([repositoryDelete(orgId, projectId, fullName)]).catch((err: unknown) => {
    if (!(err instanceof Refused)) throw err;
  });
}

/** A guard's condition alone (a Delete takes no UpdateExpression). */
function conditionOf(update: ReturnType<typeof githubRepoItem.update>) {
  const { ConditionExpression, ExpressionAttributeNames, ExpressionAttributeValues } = update;
  return { ConditionExpression, ExpressionAttributeNames, ...(ExpressionAttributeValues ? { ExpressionAttributeValues } : {}) };
}

/** Writes a delivery once: false when its id was written before (a redelivery). One conditional PutItem. */
export async function recordDelivery(delivery: GitHubDelivery): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.githubDelivery(delivery.id), type: githubDeliveryItem.type, ...githubDeliveryItem.encode(delivery) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailed(err)) return false;
    throw err;
  }
}

/** A link's place: its issue, its kind and its reference. */
export interface LinkPlace {
  orgId: number;
  projectId: number;
  issueId: number;
  kind: IssueLink['kind'];
  ref: string;
}

const linkKey = (p: LinkPlace) => keys.issueLink(p.orgId, p.projectId, p.issueId, p.kind, p.ref);

/** The links stored at `places` (one BatchGetItem per 100), in their order; undefined where there is none. */
export async function readLinks(places: LinkPlace[]): Promise<(StoredLink | undefined)[]> {
  if (places.length === 0) return [];
  const found = await batchGet(places.map(linkKey));
  return found.map((item) => item && githubLinkItem.decode(item));
}

/** Which issue counters a pull request's state counts in. */
const prCounter = { open: 'prsOpen', draft: 'prsDraft', merged: 'prsMerged', closed: 'prsClosed' } as const;

/**
 * Writes `link` over `before` (what was read there: none, or the link as read), in one transaction
 * with its issue's counts: a new link counts once (refused `links_limit` past MAX_LINKS_PER_ISSUE),
 * a pull request's state moves from one count to the other, and the issue's `pr_state` follows the
 * pull request that changed last. The link is written on condition that it is still as read
 * (refused `stale`), the issue that it is there (`issue`). The issue's version moves: its answer changed.
 * The counts of pull requests by state move on the issue's search record too (`has:pr`, `pr:`,
 * docs/search.md), while it is there: a record not written yet (an issue from before the search
 * index, which searches skip) is left to `issues:reindex`, which fills it with the issue's counts.
 */
export async function writeLink(place: LinkPlace, link: StoredLink, before: StoredLink | undefined): Promise<void> {
  const prs = pullRequestMoves(link, before);
  // The search record last, so that a refusal of the link or the issue is the one reported; dropped
  // (the rest sent again) when the record is not there (lib/db/issues/issue-write.ts: `sendIssueWrite`).
  const send = (latest: boolean) =>
    sendIssueWrite([linkPut(place, link, before), issueCounts(place, link, before, prs, latest), ...searchCounts(place, prs)]);
  if (link.kind !== 'pull_request') return send(false);
  try {
    await send(true);
  } catch (err) {
    // Another pull request of the issue changed later than this one (its event arrived first): this
    // one's counts move, the issue's `pr_state` stays. A refusal for any other reason is met again.
    if (!(err instanceof Refused && err.reason === issueRefusal(before))) throw err;
    await send(false);
  }
}

/** Why the issue's part of a link's write is refused: gone, or (a new link) past the limit. */
const issueRefusal = (before: StoredLink | undefined) => (before ? githubRefusals.issue : githubRefusals.linksLimit);

type PullRequestCounter = (typeof prCounter)[keyof typeof prCounter];

/** The counts of pull requests by state a link's write moves: the same on the issue and on its search record. */
function pullRequestMoves(link: StoredLink, before: StoredLink | undefined): Partial<Record<PullRequestCounter, number>> {
  const prs: Partial<Record<PullRequestCounter, number>> = {};
  if (link.kind === 'pull_request' && before?.state !== link.state) {
    prs[prCounter[link.state]] = 1;
    if (before) prs[prCounter[before.state]] = -1;
  }
  return prs;
}

/** The link, written on condition that it is still as read (refused `stale`). */
const linkPut = (place: LinkPlace, link: StoredLink, before: StoredLink | undefined): GuardedItem => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: { ...linkKey(place), type: githubLinkItem.type, ...githubLinkItem.encode(link) },
      ConditionExpression: before ? '#at = :at' : 'attribute_not_exists(PK)',
      ...(before
        ? {
            ExpressionAttributeNames: { '#at': githubLinkItem.stored('updatedAt') },
            ExpressionAttributeValues: { ':at': before.updatedAt },
          }
        : {}),
    },
  },
  reason: githubRefusals.stale,
});

/**
 * The issue's counts: one more link for a new one (refused `links_limit` past MAX_LINKS_PER_ISSUE),
 * the pull requests' moves, `pr_state` of the one that changed last, and its version (its answer
 * changed); refused `issue` when it is gone.
 */
function issueCounts(
  place: LinkPlace,
  link: StoredLink,
  before: StoredLink | undefined,
  prs: Partial<Record<PullRequestCounter, number>>,
  latest: boolean,
): GuardedItem {
  const counted = issueItem.update({
    set: latest ? { prState: link.state, prStateAt: link.updatedAt } : {},
    add: { ...(before ? {} : { linkCount: 1 }), ...prs },
    if: { exists: true },
  });
  // `pr_state` is the pull request's that changed last: written only over an earlier one's.
  const ordered = latest
    ? alsoIf(counted, {
        ConditionExpression: '(attribute_not_exists(#prStateAt) OR #prStateAt <= :prStateAt)',
        ExpressionAttributeNames: { '#prStateAt': issueItem.stored('prStateAt') },
      })
    : counted;
  const update = before
    ? ordered
    : alsoIf(ordered, {
        ConditionExpression: '(attribute_not_exists(#linkCount) OR #linkCount < :maxLinks)',
        ExpressionAttributeNames: { '#linkCount': issueItem.stored('linkCount') },
        ExpressionAttributeValues: { ':maxLinks': MAX_LINKS_PER_ISSUE },
      });
  return {
    item: {
      Update: { TableName: tableName(), Key: keys.issue(place.orgId, place.projectId, place.issueId), ...bumpVersion(update) },
    },
    reason: issueRefusal(before),
  };
}

/** The same moves on the issue's search record, while it is there (`has:pr`, `pr:`: docs/search.md). */
function searchCounts({ orgId, projectId, issueId }: LinkPlace, prs: Partial<Record<PullRequestCounter, number>>): GuardedItem[] {
  if (Object.keys(prs).length === 0) return [];
  return [
    searchRecordItem.updateAt(
      keys.searchIssue(orgId, projectId, issueId),
      { add: prs, if: { exists: true } },
      `if-present:${holderId({ kind: 'search', orgId, projectId, issueId })}`,
    ),
  ];
}

/** Records on a link what the status automation did for it (or why it did not): one UpdateItem, if the link is there. */
export async function noteAutomation(place: LinkPlace, automation: string): Promise<void> {
  await updateIf({ Key: linkKey(place), ...githubLinkItem.update({ set: { automation }, if: { exists: true } }) });
}

/** Every link of an issue (at most MAX_LINKS_PER_ISSUE): one consistent Query. */
export async function issueLinks(orgId: number, projectId: number, issueId: number): Promise<StoredLink[]> {
  const { Items = [] } = await db.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.issue(orgId, projectId, issueId).PK, ':prefix': skPrefixes.issueLinks(issueId) },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => githubLinkItem.decode(item));
}

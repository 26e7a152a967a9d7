import type { DynamoDBRecord } from 'aws-lambda';
import { asActor } from '../context/actor.ts';
import { Refused } from '../db/core/transactions.ts';
import { itemOfImage } from '../db/core/stream-images.ts';
import * as store from '../db/github/github.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { issuesOfNumbers } from '../db/issues/issue-lookup.ts';
import { readIssueItem } from '../db/issues/issue-refs.ts';
import { getProjectItem, projectItem } from '../db/projects/projects.ts';
import { githubEvent, isBackward, laterObservation, moveFor, type KeyMention, type LinkObservation } from '../model/github.ts';
import { forEachLimited } from '../model/limited.ts';
import type { Principal } from '../model/principal.ts';
import { updateIssue } from './issues.ts';

/**
 * The stream consumer's work on a GitHub delivery the receiver stored (lib/services/github-receiver.ts):
 * the pull request, branch or commits it tells of are linked to the issues they name, each link
 * written over what was stored only when it is the later observation (events arrive in any
 * order), and, when the project asks for it, a linked pull request moves its issue through the one
 * issue write path, as the organisation's GitHub account. Calls per delivery: two reads (the
 * repository, the project), one BatchGetItem of the issues named, one of their links, then a
 * transaction per link that changed and, per move, the issue's read and its update.
 */

/** Links written at once. */
const PARALLEL = 8;

/** One link to write: the observation, the issue it names, and how. */
interface Named {
  observation: LinkObservation;
  mention: KeyMention;
}

/** Handles a stream batch; a delivery that failed is reported (and the rest of the batch after it, in order). */
export async function handleGitHubDeliveries(
  records: DynamoDBRecord[],
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    try {
      await handleDelivery(store.githubDeliveryItem.decode(itemOfImage(image)));
    } catch (err) {
      console.error('GitHub delivery failed', (err as Error).message);
      return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
    }
  }
  return { batchItemFailures: [] };
}

/** The links and moves of one delivery; nothing when its repository is no longer connected to its project, or the project is gone. */
export async function handleDelivery(delivery: store.GitHubDelivery): Promise<void> {
  const repo = await store.getRepository(delivery.repository);
  if (!repo || repo.orgId !== delivery.orgId || repo.projectId !== delivery.projectId) return;
  const project = await getProjectItem(repo.orgId, repo.projectId);
  if (!project) return;
  const prefix = projectItem.decode(project).prefix;
  const event = githubEvent(delivery.event, delivery.payload, prefix);
  const observations =
    event.kind === 'pull_request' || event.kind === 'branch' ? [event.link] : event.kind === 'push' ? event.links : [];
  const named: Named[] = observations.flatMap((observation) => observation.mentions.map((mention) => ({ observation, mention })));
  const keys = [...new Set(named.map((n) => n.mention.key))];
  const pointers = new Map((await issuesOfNumbers(repo.orgId, keys)).map((p, i) => [keys[i]!, p]));
  const linked = named.flatMap((n) => {
    const pointer = pointers.get(n.mention.key);
    return pointer && pointer.projectId === repo.projectId
      ? [{ ...n, issueId: pointer.issueId, sprintId: pointer.sprintId }]
      : [];
  });
  const places = linked.map((l) => ({
    orgId: repo.orgId,
    projectId: repo.projectId,
    issueId: l.issueId,
    kind: l.observation.kind,
    ref: l.observation.ref,
  }));
  const stored = await store.readLinks(places);
  await forEachLimited(
    linked.map((l, i) => ({ ...l, place: places[i]!, before: stored[i] })),
    PARALLEL,
    async ({ observation, mention, place, before }) => {
      const written = await writeLinked(place, observation, mention, before);
      if (!written) return;
      const automation = {
        enabled: repo.automationEnabled,
        onOpen: repo.onOpen,
        onMerge: repo.onMerge,
        mergeNeedsClosingWord: repo.mergeNeedsClosingWord,
      };
      const move = moveFor(observation, mention, automation, before?.state ?? null);
      if (move && repo.actorId !== null) await moveIssue(place, move, repo.actorId, observation.url);
    },
  );
  await store.noteDelivery(delivery.repository, repo.projectId, delivery.receivedAt);
}

const observationOf = (link: store.StoredLink): LinkObservation => ({ ...link, mentions: [] });

/** What a redelivery (or the same commit pushed again) tells: nothing new to write. */
const sameObservation = (link: store.StoredLink, o: LinkObservation) =>
  link.updatedAt === o.updatedAt &&
  link.state === o.state &&
  link.title === o.title &&
  link.url === o.url &&
  link.author === o.author;

/** Writes the link when the observation is the later one; false when the stored one stands, or the issue takes no more links. */
async function writeLinked(
  place: store.LinkPlace,
  observation: LinkObservation,
  mention: KeyMention,
  before: store.StoredLink | undefined,
): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const choice = laterObservation(before && observationOf(before), observation);
    if (choice.winner === 'stored' || (before && sameObservation(before, observation))) return false;
    const { mentions: _m, ...fields } = observation;
    const link: store.StoredLink = {
      ...fields,
      orgId: place.orgId,
      projectId: place.projectId,
      issueId: place.issueId,
      closing: mention.closing || (before?.closing ?? false),
      automation: before?.automation ?? null,
    };
    try {
      await store.writeLink(place, link, before);
      return true;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      if (err.reason !== store.githubRefusals.stale) return false;
      [before] = await store.readLinks([place]);
    }
  }
  return false;
}

/** Moves the issue as the automation asks, unless that moves it back; the link records what happened. */
async function moveIssue(
  place: store.LinkPlace,
  move: { category: 'in_progress' | 'done'; stateName: string | null },
  actorId: number,
  url: string,
) {
  const item = await readIssueItem(place.orgId, place.projectId, place.issueId);
  if (!item) return;
  const issue = issueItem.decode(item);
  if (issue.status === move.category && move.stateName === null) return;
  if (isBackward(issue.status, move.category)) {
    await store.noteAutomation(place, `not moved: the issue is ${issue.status} already`);
    return;
  }
  const caller: Principal = { orgId: place.orgId, accountId: actorId, role: 'member', tokenHash: 'github' };
  try {
    const moved = await asActor(actorId, () =>
      updateIssue(
        caller,
        { projectId: place.projectId, sprintId: issue.sprintId },
        place.issueId,
        { status: move.stateName ?? move.category },
        { via: url },
      ),
    );
    await store.noteAutomation(place, `moved to ${moved.status} by ${url}`);
  } catch (err) {
    await store.noteAutomation(place, `not moved: ${(err as Error).message}`);
  }
}

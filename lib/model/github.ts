import { createHmac, timingSafeEqual } from 'node:crypto';
import type { StateCategory } from '../vocabulary/workflow.ts';

/**
 * GitHub's webhooks (docs/github.md): pure rules, no I/O. Whether a delivery is signed with a
 * project's secret, which issue keys a text names (and whether it closes them, as GitHub reads
 * `Fixes #12`), what a delivery says in a small shape the service stores, which of two observations
 * of one pull request, branch or commit stands when events arrive out of order, and which move of a
 * linked issue the status automation asks for.
 */

// ---------------------------------------------------------------------------------------------
// Signatures
// ---------------------------------------------------------------------------------------------

/** The `X-Hub-Signature-256` header GitHub sends with a body signed with `secret`: `sha256=` and the hex HMAC-SHA256. */
export function githubSignature(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

const SIGNATURE_HEADER = /^sha256=[0-9a-fA-F]{64}$/;

/**
 * Whether `header` is the signature of the raw `body` with `secret`. The digests are compared in
 * constant time; a missing or malformed header (another algorithm, a wrong length, not hex) or an
 * empty secret is false.
 */
export function verifyGithubSignature(secret: string, body: Buffer | string, header: string | undefined): boolean {
  if (typeof header !== 'string' || header.length !== 71 || !SIGNATURE_HEADER.test(header) || secret === '') return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ---------------------------------------------------------------------------------------------
// Mentions of issue keys
// ---------------------------------------------------------------------------------------------

/** How much of a text is read for keys: GitHub's cap on a pull request's body (65,536 characters). */
export const MENTION_TEXT_LIMIT = 65_536;

/** How many keys one text (or one pull request) links at most; the rest are not read. */
export const MENTIONS_LIMIT = 25;

/** An issue key a text names: its number, the key as the service spells it (`APL-12`), and whether a closing word came before it. */
export interface KeyMention {
  number: number;
  key: string;
  closing: boolean;
}

/** GitHub's closing keywords ("Linking a pull request to an issue using a keyword"), in any case. */
export const closingKeywords = ['close', 'closes', 'closed', 'fix', 'fixes', 'fixed', 'resolve', 'resolves', 'resolved'] as const;
const closingWords = new Set<string>(closingKeywords);
const LONGEST_KEYWORD = 8;

const PREFIX = /^[A-Za-z0-9]{2,4}$/;
const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isDigitCode = (c: number) => c >= 48 && c <= 57;
const isSpaceCode = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11 || c === 0xa0;

/**
 * Every key of the project whose prefix is `prefix` that `text` names (`APL-12`, in any case, as a
 * whole word: not in `XAPL-12`, `APL-12a` or `APL-012`), once per number, in the order of its first
 * mention. A key is closing when one of its mentions follows a closing keyword (`Fixes APL-12`,
 * `closes: apl-12`). One pass over at most `MENTION_TEXT_LIMIT` characters; at most `MENTIONS_LIMIT` keys.
 */
export function issueKeyMentions(text: string, prefix: string): KeyMention[] {
  if (typeof text !== 'string' || !PREFIX.test(prefix)) return [];
  // A word cut by the limit is no word: the character after the limit still bounds it.
  const limit = Math.min(text.length, MENTION_TEXT_LIMIT);
  const wanted = prefix.toLowerCase();
  const found = new Map<number, KeyMention>();
  let i = 0;
  while (i < limit) {
    if (!isWordCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    // A word starts at i (the character before it is no word character): read it whole.
    let end = i;
    while (end < limit && isWordCode(text.charCodeAt(end))) end++;
    if (end - i === wanted.length && end < limit && text.charCodeAt(end) === 45 && text.slice(i, end).toLowerCase() === wanted) {
      const number = keyNumber(text, end + 1, limit);
      if (number !== undefined) record(found, number, prefix, closedBy(text, i));
    }
    i = end;
  }
  return [...found.values()];
}

/** The number of a key whose digits start at `start` (before `limit`): 1 to 16 digits, no leading zero, then no word character. */
function keyNumber(text: string, start: number, limit: number): number | undefined {
  let end = start;
  while (end < limit && end - start <= 16 && isDigitCode(text.charCodeAt(end))) end++;
  const length = end - start;
  if (length === 0 || length > 16 || text.charCodeAt(start) === 48 || isWordCode(text.charCodeAt(end))) return undefined;
  const number = Number(text.slice(start, end));
  return Number.isSafeInteger(number) ? number : undefined;
}

/** Whether the key starting at `start` follows a closing keyword, an optional `:` and whitespace. */
function closedBy(text: string, start: number): boolean {
  let at = start - 1;
  const spaceEnd = at;
  while (at >= 0 && isSpaceCode(text.charCodeAt(at))) at--;
  if (at === spaceEnd) return false;
  if (text.charCodeAt(at) === 58) at--;
  const wordEnd = at + 1;
  while (at >= 0 && wordEnd - at <= LONGEST_KEYWORD && isWordCode(text.charCodeAt(at))) at--;
  if (at >= 0 && isWordCode(text.charCodeAt(at))) return false;
  return closingWords.has(text.slice(at + 1, wordEnd).toLowerCase());
}

/** Notes a mention of `number`: a new key while there is room, or a closing one of a key already found. */
function record(found: Map<number, KeyMention>, number: number, prefix: string, closing: boolean) {
  const known = found.get(number);
  if (known) known.closing ||= closing;
  else if (found.size < MENTIONS_LIMIT) found.set(number, { number, key: `${prefix.toUpperCase()}-${number}`, closing });
}

/** The mentions of several texts in order, once per number (closing if closing in any), at most `MENTIONS_LIMIT`. */
function mergeMentions(...lists: KeyMention[][]): KeyMention[] {
  const found = new Map<number, KeyMention>();
  for (const list of lists)
    for (const m of list) {
      const known = found.get(m.number);
      if (known) known.closing ||= m.closing;
      else if (found.size < MENTIONS_LIMIT) found.set(m.number, { ...m });
    }
  return [...found.values()];
}

/** A branch's name names keys, but never closes them: GitHub reads closing words in titles, bodies and messages only. */
const branchMentions = (branch: string, prefix: string) =>
  issueKeyMentions(branch, prefix).map((m) => ({ ...m, closing: false }));

// ---------------------------------------------------------------------------------------------
// Deliveries, normalised
// ---------------------------------------------------------------------------------------------

/** At most this many commits of one push become links (the first that name a key). */
export const PUSH_COMMITS_LIMIT = 50;
/** Titles (a pull request's, a commit message's first line) and author names are cut to these lengths. */
export const TITLE_LIMIT = 256;
const AUTHOR_LIMIT = 100;
const URL_LIMIT = 512;
/** A branch whose name is longer is no link (Git's refs are at most 255 bytes on GitHub). */
export const BRANCH_LIMIT = 256;

export type LinkKind = 'pull_request' | 'branch' | 'commit';
/** A link's state: a commit is `merged` once pushed to the default branch; a deleted branch is `closed`. */
export type LinkState = 'open' | 'draft' | 'merged' | 'closed';

/** A repository as GitHub spells it. */
export interface GithubRepository {
  owner: string;
  name: string;
  /** `owner/name`. */
  fullName: string;
}

/**
 * What one delivery says of one pull request, branch or commit: `ref` is the pull request's
 * number, the branch's name or the commit's SHA; times are ISO 8601 in UTC; `updatedAt` is the time
 * the observation describes, which orders observations of the same link (`laterObservation`).
 */
export interface LinkObservation {
  kind: LinkKind;
  ref: string;
  url: string;
  title: string;
  author: string | null;
  state: LinkState;
  createdAt: string | null;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
  mentions: KeyMention[];
}

/** A delivery, normalised: small and bounded, to be stored as it is. */
export type GithubEvent =
  | { kind: 'ping'; repository: GithubRepository | null }
  | { kind: 'pull_request'; repository: GithubRepository; action: string; link: LinkObservation }
  | { kind: 'push'; repository: GithubRepository; branch: string; links: LinkObservation[] }
  | { kind: 'branch'; repository: GithubRepository; link: LinkObservation }
  | { kind: 'ignored'; reason: string };

/** The pull request actions that say something of its state, title, body or branch; others are ignored. */
export const pullRequestActions = [
  'opened',
  'edited',
  'closed',
  'reopened',
  'ready_for_review',
  'converted_to_draft',
  'synchronize',
] as const;

type Json = Record<string, unknown>;
/** A JSON object (not an array, not null): what a payload and each of its parts must be. */
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringOf = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const ignored = (reason: string): GithubEvent => ({ kind: 'ignored', reason });

/**
 * The delivery of event `event` (the `X-GitHub-Event` header) with body `payload` (its parsed
 * JSON), normalised for the project whose keys start with `prefix`: a ping, a pull request, a push's
 * commits and branch, or a branch created or deleted. Anything else, tags, and anything not in
 * GitHub's shape is `ignored`, with the reason; it never throws.
 */
export function githubEvent(event: string, payload: unknown, prefix: string): GithubEvent {
  if (!isObject(payload)) return ignored('the payload is not an object');
  if (event === 'ping') return { kind: 'ping', repository: repositoryOf(payload.repository) ?? null };
  const repository = repositoryOf(payload.repository);
  if (!repository) return ignored('the payload names no repository');
  switch (event) {
    case 'pull_request':
      return pullRequestEvent(payload, repository, prefix);
    case 'push':
      return pushEvent(payload, repository, prefix);
    case 'create':
    case 'delete':
      return branchEvent(event, payload, repository, prefix);
    default:
      return ignored(`the event ${JSON.stringify(clip(String(event), 64))} is not followed`);
  }
}

const OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** `payload.repository` as owner, name and full name, when it is in GitHub's shape. */
function repositoryOf(value: unknown): GithubRepository | undefined {
  if (!isObject(value) || !isObject(value.owner)) return undefined;
  const owner = stringOf(value.owner.login) ?? stringOf(value.owner.name);
  const name = stringOf(value.name);
  if (owner === undefined || name === undefined || !OWNER.test(owner) || !NAME.test(name)) return undefined;
  const fullName = stringOf(value.full_name);
  return { owner, name, fullName: fullName?.toLowerCase() === `${owner}/${name}`.toLowerCase() ? fullName : `${owner}/${name}` };
}

/** The repository's web address: its `html_url`, else github.com's. */
function repositoryUrl(payload: Json, repository: GithubRepository): string {
  const given = isObject(payload.repository) ? webUrl(payload.repository.html_url) : undefined;
  return given ?? `https://github.com/${repository.fullName}`;
}

/** An https address of a reasonable length, else undefined. */
const webUrl = (v: unknown) => (typeof v === 'string' && v.startsWith('https://') && v.length <= URL_LIMIT ? v : undefined);

/** A time as ISO 8601 in UTC: GitHub's strings (with any offset), or seconds since the epoch (a push's `pushed_at`). */
export function githubTime(v: unknown): string | null {
  const ms = typeof v === 'string' ? Date.parse(v) : typeof v === 'number' ? v * 1000 : NaN;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : null;
}

/** `text` cut to `limit` characters, never between the two halves of a surrogate pair. */
function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}

/** A commit message's first line, cut to `TITLE_LIMIT`. */
function firstLine(message: string): string {
  const head = message.length > TITLE_LIMIT * 4 ? message.slice(0, TITLE_LIMIT * 4) : message;
  const end = head.search(/\r|\n/);
  return clip(end < 0 ? head : head.slice(0, end), TITLE_LIMIT);
}

const authorOf = (v: unknown) => (typeof v === 'string' && v !== '' ? clip(v, AUTHOR_LIMIT) : null);

/** A pull request's state: merged, else closed, else draft, else open. */
function pullRequestState(pr: Json): LinkState {
  if (pr.merged === true || githubTime(pr.merged_at) !== null) return 'merged';
  if (pr.state === 'closed') return 'closed';
  return pr.draft === true ? 'draft' : 'open';
}

function pullRequestEvent(payload: Json, repository: GithubRepository, prefix: string): GithubEvent {
  const action = stringOf(payload.action);
  if (action === undefined || !(pullRequestActions as readonly string[]).includes(action))
    return ignored(`the pull request action ${JSON.stringify(clip(String(action), 64))} is not followed`);
  const pr = payload.pull_request;
  if (!isObject(pr)) return ignored('the payload has no pull request');
  const number = pr.number;
  const url = webUrl(pr.html_url);
  const title = stringOf(pr.title);
  const updatedAt = githubTime(pr.updated_at);
  const branch = isObject(pr.head) ? stringOf(pr.head.ref) : undefined;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) return ignored('the pull request has no number');
  if (url === undefined || title === undefined || updatedAt === null || branch === undefined)
    return ignored('the pull request is not in the shape GitHub sends');
  const body = stringOf(pr.body) ?? '';
  const link: LinkObservation = {
    kind: 'pull_request',
    ref: String(number),
    url,
    title: clip(title, TITLE_LIMIT),
    author: isObject(pr.user) ? authorOf(pr.user.login) : null,
    state: pullRequestState(pr),
    createdAt: githubTime(pr.created_at),
    updatedAt,
    mergedAt: githubTime(pr.merged_at),
    closedAt: githubTime(pr.closed_at),
    mentions: mergeMentions(issueKeyMentions(title, prefix), issueKeyMentions(body, prefix), branchMentions(branch, prefix)),
  };
  return { kind: 'pull_request', repository, action, link };
}

/**
 * A branch's link: its name is its title, its address the repository's `tree/<name>`; `createdAt`
 * only when this event created it (null otherwise: keep the one stored).
 */
function branchLink(
  branch: string,
  repoUrl: string,
  prefix: string,
  at: { time: string; author: string | null; closed: boolean; created: boolean },
): LinkObservation {
  return {
    kind: 'branch',
    ref: branch,
    url: `${repoUrl}/tree/${branch.split('/').map(encodeURIComponent).join('/')}`,
    title: branch,
    author: at.author,
    state: at.closed ? 'closed' : 'open',
    createdAt: at.created ? at.time : null,
    updatedAt: at.time,
    mergedAt: null,
    closedAt: at.closed ? at.time : null,
    mentions: branchMentions(branch, prefix),
  };
}

/**
 * A push to a branch: one link per commit naming a key (at most `PUSH_COMMITS_LIMIT`), `merged`
 * when the branch is the repository's default branch, else `open`, at the commit's own time; and the
 * branch's link when its name names a key, `closed` when the push deleted it, at the push's time.
 */
function pushEvent(payload: Json, repository: GithubRepository, prefix: string): GithubEvent {
  const ref = stringOf(payload.ref);
  if (ref === undefined) return ignored('the push names no ref');
  if (ref.startsWith('refs/tags/')) return ignored('a tag was pushed');
  if (!ref.startsWith('refs/heads/')) return ignored('the push is to no branch');
  const branch = ref.slice('refs/heads/'.length);
  const repo = payload.repository as Json;
  const defaultBranch = stringOf(repo.default_branch) ?? stringOf(repo.master_branch);
  const head = isObject(payload.head_commit) ? payload.head_commit : {};
  const pushedAt = githubTime(repo.pushed_at) ?? githubTime(head.timestamp);
  const repoUrl = repositoryUrl(payload, repository);
  const links = commitLinks(payload.commits, prefix, { merged: branch === defaultBranch, pushedAt });
  const sender = isObject(payload.sender) ? authorOf(payload.sender.login) : null;
  const pusher = isObject(payload.pusher) ? authorOf(payload.pusher.name) : null;
  if (pushedAt !== null && branch !== '' && branch.length <= BRANCH_LIMIT && issueKeyMentions(branch, prefix).length > 0)
    links.push(
      branchLink(branch, repoUrl, prefix, {
        time: pushedAt,
        author: sender ?? pusher,
        closed: payload.deleted === true,
        created: payload.created === true,
      }),
    );
  return { kind: 'push', repository, branch: clip(branch, BRANCH_LIMIT), links };
}

const SHA = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** The links of a push's commits that name a key, in the push's order. */
function commitLinks(commits: unknown, prefix: string, push: { merged: boolean; pushedAt: string | null }): LinkObservation[] {
  const links: LinkObservation[] = [];
  if (!Array.isArray(commits)) return links;
  for (const commit of commits) {
    if (links.length >= PUSH_COMMITS_LIMIT) break;
    if (!isObject(commit)) continue;
    const [sha, message, url] = [stringOf(commit.id), stringOf(commit.message), webUrl(commit.url)];
    const time = githubTime(commit.timestamp) ?? push.pushedAt;
    if (sha === undefined || !SHA.test(sha) || message === undefined || url === undefined || time === null) continue;
    const mentions = issueKeyMentions(message, prefix);
    if (mentions.length === 0) continue;
    const author = isObject(commit.author) ? (authorOf(commit.author.username) ?? authorOf(commit.author.name)) : null;
    links.push({
      kind: 'commit',
      ref: sha,
      url,
      title: firstLine(message),
      author,
      state: push.merged ? 'merged' : 'open',
      createdAt: time,
      updatedAt: time,
      mergedAt: push.merged ? (push.pushedAt ?? time) : null,
      closedAt: null,
      mentions,
    });
  }
  return links;
}

/** A branch created (`open`) or deleted (`closed`), at the repository's `pushed_at`; tags are ignored. */
function branchEvent(event: 'create' | 'delete', payload: Json, repository: GithubRepository, prefix: string): GithubEvent {
  if (payload.ref_type !== 'branch') return ignored(`a ${event} of a ${payload.ref_type === 'tag' ? 'tag' : 'ref'}`);
  const branch = stringOf(payload.ref);
  if (branch === undefined || branch === '' || branch.length > BRANCH_LIMIT) return ignored('the branch has no usable name');
  const time = githubTime((payload.repository as Json).pushed_at);
  if (time === null) return ignored('the repository has no pushed_at');
  const author = isObject(payload.sender) ? authorOf(payload.sender.login) : null;
  const link = branchLink(branch, repositoryUrl(payload, repository), prefix, {
    time,
    author,
    closed: event === 'delete',
    created: event === 'create',
  });
  return { kind: 'branch', repository, link };
}

// ---------------------------------------------------------------------------------------------
// Out-of-order events
// ---------------------------------------------------------------------------------------------

/** How far along each state is: on a tie of times, the further one stands. */
const stateRank: Record<LinkState, number> = { draft: 0, open: 1, closed: 2, merged: 3 };

/** Which observation stands, and whether it is the one stored (nothing to write) or the one arriving. */
export type ObservationChoice =
  { winner: 'stored'; observation: LinkObservation } | { winner: 'incoming'; observation: LinkObservation };

/**
 * Which of two observations of one link stands, whatever order their events arrived in: a merge is
 * final (nothing moves a merged link back; a later observation of it merged still updates it);
 * otherwise the later `updatedAt` stands, and on a tie the further state (closed or merged over open
 * or draft, open over draft), then the one arriving. With nothing stored, the one arriving stands.
 */
export function laterObservation(stored: LinkObservation | null | undefined, incoming: LinkObservation): ObservationChoice {
  if (!stored) return { winner: 'incoming', observation: incoming };
  const keep: ObservationChoice = { winner: 'stored', observation: stored };
  const take: ObservationChoice = { winner: 'incoming', observation: incoming };
  const [storedMerged, incomingMerged] = [stored.state === 'merged', incoming.state === 'merged'];
  if (storedMerged !== incomingMerged) return storedMerged ? keep : take;
  const [s, i] = [Date.parse(stored.updatedAt), Date.parse(incoming.updatedAt)];
  if (s !== i) return i > s || Number.isNaN(s) ? take : keep;
  return stateRank[incoming.state] >= stateRank[stored.state] ? take : keep;
}

// ---------------------------------------------------------------------------------------------
// Status automation
// ---------------------------------------------------------------------------------------------

/** A project's status automation: off unless enabled; a state name, or null for the first state of the category. */
export interface GithubAutomation {
  enabled: boolean;
  onOpen: string | null;
  onMerge: string | null;
  mergeNeedsClosingWord: boolean;
}

/** The move the automation asks for: into `stateName`, or, when null, into the first state of `category`. */
export interface GithubMove {
  category: 'in_progress' | 'done';
  stateName: string | null;
}

/**
 * The move a linked pull request asks of the issue `mention` names, when it enters a state: opened,
 * reopened or marked ready (`open`) asks for `onOpen` (started); merged asks for `onMerge`
 * (completed), when the mention is closing or the project does not ask for one. Drafts, closes, and
 * events that leave the state as it was (`previous`, the state the link had, null for a new link) ask
 * for nothing, so an edit or a new commit never moves the issue again. Branches and commits ask for nothing.
 */
export function moveFor(
  observation: LinkObservation,
  mention: KeyMention,
  automation: GithubAutomation,
  previous: LinkState | null = null,
): GithubMove | null {
  if (!automation.enabled || observation.kind !== 'pull_request' || observation.state === previous) return null;
  if (observation.state === 'open') return { category: 'in_progress', stateName: automation.onOpen };
  if (observation.state === 'merged' && (mention.closing || !automation.mergeNeedsClosingWord))
    return { category: 'done', stateName: automation.onMerge };
  return null;
}

/** How far along each category is; `cancelled` ends as `done` does. */
const categoryRank: Record<StateCategory, number> = { backlog: 0, todo: 1, in_progress: 2, done: 3, cancelled: 3 };

/**
 * Whether the automation moving an issue from a state of category `from` to one of `to` would move
 * it back: out of `done` or `cancelled` into another category, or to an earlier category. The
 * automation makes no such move.
 */
export function isBackward(from: StateCategory, to: StateCategory): boolean {
  if (from === 'done' || from === 'cancelled') return to !== from;
  return categoryRank[to] < categoryRank[from];
}

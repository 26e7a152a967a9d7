import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { closed, dateTime, wrapped } from './common.ts';

import { githubEvents, linkKinds, linkStates } from '../vocabulary/github.ts';

export { githubEvents, linkKinds, linkStates };

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

/** GitHub's spelling of an owner (39 characters) and of a repository name (100). */
const repository = () =>
  meta(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .check(
        z.regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/, {
          error: 'must be a GitHub repository as owner/name (hello-org/hello-world)',
        }),
      )
      .check(
        z.refine((v) => !/\/\.{1,2}$/.test(v), { error: 'must be a GitHub repository as owner/name (hello-org/hello-world)' }),
      ),
    { description: 'The repository, as `owner/name`.', example: 'hello-org/hello-world' },
  );

const stateName = (what: string) =>
  meta(z.optional(z.nullable(z.string({ error: 'must be a state name or null' }).check(z.minLength(1), z.maxLength(255)))), {
    description: `The state an issue enters when ${what}: a state name or category of the project's workflow; null: the default.`,
  });

const AutomationFields = meta(
  z.object(
    {
      enabled: meta(z.optional(z.boolean({ error: 'must be true or false' })), {
        description: 'Move linked issues as their pull requests move. Off until turned on.',
      }),
      on_open: stateName('a linked pull request is opened or marked ready (default: the first state of `in_progress`)'),
      on_merge: stateName('a linked pull request is merged (default: the first state of `done`)'),
      merge_needs_closing_word: meta(z.optional(z.boolean({ error: 'must be true or false' })), {
        description:
          'Move on merge only issues the pull request names with a closing word (`Fixes APL-12`, `Closes`, `Resolves`, as GitHub ' +
          'spells them), not a bare mention. Default true.',
      }),
    },
    objectError,
  ),
  { id: 'GitHubAutomationUpdate' },
);

export const GitHubConnectFields = meta(
  z.object({ repository: repository(), automation: z.optional(closed(AutomationFields)) }, objectError),
  { id: 'GitHubConnect' },
);
export type GitHubConnect = z.output<typeof GitHubConnectFields>;
export type GitHubAutomationUpdate = z.output<typeof AutomationFields>;

export const GitHubAutomation = meta(
  z.object({
    enabled: z.boolean(),
    on_open: meta(z.nullable(z.string()), {
      description: 'The state a pull request opened moves to; null: the first of `in_progress`.',
    }),
    on_merge: meta(z.nullable(z.string()), {
      description: 'The state a pull request merged moves to; null: the first of `done`.',
    }),
    merge_needs_closing_word: z.boolean(),
  }),
  { id: 'GitHubAutomation' },
);

export const GitHubConnection = meta(
  z.object({
    project_id: z.number().check(z.int()),
    repository: meta(z.string(), { description: 'The repository as `owner/name`, as a connect names it.' }),
    repository_owner: z.string(),
    repository_name: z.string(),
    payload_url: meta(z.string(), { description: "The receiver's URL: GitHub's repository settings, Webhooks, Payload URL." }),
    content_type: meta(z.literal('application/json'), { description: 'The content type to choose in GitHub.' }),
    events: meta(z.array(z.enum(githubEvents)), { description: 'The events to tick: "Let me select individual events".' }),
    automation: GitHubAutomation,
    last_delivery_at: meta(z.nullable(dateTime()), {
      description: 'When the last signed delivery arrived; null before the first.',
    }),
    created_at: dateTime(),
    updated_at: dateTime(),
  }),
  { id: 'GitHubConnection' },
);
export type GitHubConnection = z.infer<typeof GitHubConnection>;

export const GitHubConnectionWithSecret = meta(
  z.extend(GitHubConnection, {
    secret: meta(z.string(), {
      description: "The webhook secret to paste in GitHub's settings. Shown once; rotate it to see a new one.",
      example: '9f2c6d1e0b7a4c3d8e5f1a2b3c4d5e6f9f2c6d1e0b7a4c3d8e5f1a2b3c4d5e6f',
    }),
  }),
  { id: 'GitHubConnectionWithSecret' },
);

export const GitHubConnectAnswer = meta(
  z.extend(GitHubConnection, {
    secret: meta(z.optional(z.string()), {
      description: 'The webhook secret, when this request connected the repository: shown once, as rotating shows it.',
    }),
  }),
  { id: 'GitHubConnectAnswer' },
);

export const GitHubConnectBody = wrapped('github', GitHubConnectFields, GitHubConnectAnswer);

/** What the receiver reads of a delivery's body (GitHub's payload: every other field is kept out). */
export const GitHubDeliveryBody = meta(z.looseObject({ repository: z.optional(z.looseObject({ full_name: z.string() })) }), {
  id: 'GitHubDelivery',
  description: "GitHub's webhook payload, as GitHub sends it (`application/json`).",
});

export const GitHubDeliveryHeaders = z.object({
  'X-GitHub-Event': meta(z.string(), { description: 'The event: `ping`, `pull_request`, `push`, `create`, `delete`.' }),
  'X-GitHub-Delivery': meta(z.string(), { description: 'The delivery id: a redelivery with the same id changes nothing.' }),
  'X-Hub-Signature-256': meta(z.string(), { description: '`sha256=` and the HMAC-SHA256 of the body with the secret.' }),
});

export const GitHubDeliveryAnswer = meta(
  z.object({
    status: meta(z.enum(['accepted', 'duplicate', 'ignored', 'pong']), {
      description:
        'accepted: stored, worked on within seconds; duplicate: this delivery id was seen; ignored: nothing to do (an event ' +
        'or repository the service does not follow); pong: a ping answered.',
    }),
  }),
  { id: 'GitHubDeliveryAnswer' },
);

export const IssueLink = meta(
  z.object({
    kind: z.enum(linkKinds),
    ref: meta(z.string(), { description: "The pull request's number, the branch's name or the commit's SHA." }),
    url: z.string(),
    title: meta(z.string(), { description: "The pull request's title, the branch's name, the commit message's first line." }),
    author: meta(z.nullable(z.string()), { description: "The author's GitHub login, when GitHub names one." }),
    state: meta(z.enum(linkStates), {
      description: 'open, draft, merged or closed (a deleted branch). A commit is merged once pushed to the default branch.',
    }),
    closing: meta(z.boolean(), { description: 'Named with a closing word (`Fixes APL-12`): a merge completes the issue.' }),
    automation: meta(z.nullable(z.string()), {
      description: 'What the status automation last did for this link: the state it moved the issue to, or why it did not.',
    }),
    created_at: meta(z.nullable(dateTime()), { description: 'When GitHub made it.' }),
    updated_at: meta(dateTime(), { description: 'The time of the latest event applied to it.' }),
    merged_at: z.nullable(dateTime()),
    closed_at: z.nullable(dateTime()),
  }),
  { id: 'IssueLink', description: 'A pull request, branch or commit on GitHub that names the issue.' },
);
export type IssueLink = z.infer<typeof IssueLink>;

export const IssueLinksSummary = meta(
  z.object({
    count: meta(z.number().check(z.int()), { description: 'How many pull requests, branches and commits name the issue.' }),
    pull_request_state: meta(z.nullable(z.enum(linkStates)), {
      description: 'The state of the pull request that changed last; null without one.',
    }),
    pull_requests: meta(
      z.object({
        open: z.number().check(z.int()),
        draft: z.number().check(z.int()),
        merged: z.number().check(z.int()),
        closed: z.number().check(z.int()),
      }),
      { description: 'Its linked pull requests by state (`has:pr`, `pr:open` in a search).' },
    ),
  }),
  { id: 'IssueLinksSummary', description: 'What GitHub holds for the issue (GET /issues/{issue_key}/links for the list).' },
);

/**
 * `npm run events`: writes `events/<operationId>.json`, a sample API Gateway REST proxy event for
 * every row of the route table, plus `events/authorizer.json` (a REQUEST authorizer event) and
 * `events/cascade.json` (a DynamoDB stream batch for the cascade consumer). `npm run invoke` and the
 * tests run them through the real handlers.
 *
 * The files are generated: change `samples` below (path ids, query, body, headers of a route) and
 * run `npm run events` again. A new route gets an event with ids 1 and no body by default; a route
 * that takes a body should have its sample here.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, DynamoDBStreamEvent } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { keys } from '../../lib/db/core/keys.ts';
import { type Route, routes } from '../../lib/routes.ts';
import { repoRoot } from '../../infra/paths.ts';
import { proxyEvent } from './gateway.ts';

export const eventsDir = resolve(repoRoot, 'events');

/** Stands in for a real token: `npm run invoke -- ... --token stk_...` (or API_TOKEN) replaces it. */
export const SAMPLE_TOKEN = 'stk_SAMPLE-replace-with-a-real-token-via--token';

export interface Sample {
  /** Path parameters; any not given is `1`. */
  params?: Record<string, string>;
  query?: Record<string, string>;
  /**
   * JSON body (sent with `Content-Type: application/json`), or a form (`URLSearchParams`: sent
   * form-encoded, as OAuth's endpoints take it).
   */
  body?: unknown;
  headers?: Record<string, string>;
}

const listQuery = { query: { page: '1', per_page: '25' } };
/** An authorization request of a client the sample table does not know. */
const oauthRequest = {
  response_type: 'code',
  client_id: 'stc_SAMPLE-not-registered',
  redirect_uri: 'http://127.0.0.1:8123/callback',
  code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  code_challenge_method: 'S256',
  scope: 'read write',
  state: 'sample',
};
/** In a fresh organisation the backlog issue is issue 1 and the sprint issue issue 2. */
const sprintIssue = { issue_id: '2' };

/**
 * Per-route samples, by operation id. Together, run in order (creates, parents first; reads and
 * updates; sprint transitions; deletes, children first), they make a small story in a fresh
 * organisation: project 1, sprint 1, issue 1 in the backlog, issue 2 in the sprint, a comment on
 * each (comment 1 on the backlog issue), label 1, state 6 (after the project's five).
 */
export const samples: Record<string, Sample> = {
  listAccounts: listQuery,
  createAccount: { body: { account: { name: 'Grace Hopper', email: 'grace@example.com', role: 'member' } } },
  listProjects: listQuery,
  // Not the README's project (Apollo, APL): after the README's first requests this one is created too.
  createProject: { body: { project: { name: 'Gemini', prefix: 'GEM', description: 'Practise in orbit.' } } },
  updateProject: { body: { project: { description: 'Land on the moon and come back.' } } },
  replaceProject: { body: { project: { production_url: 'https://apollo.example.com' } } },
  listSprints: listQuery,
  createSprint: { body: { sprint: { name: 'Sprint 1', start_date: '2026-11-23', end_date: '2026-12-04' } } },
  updateSprint: { body: { sprint: { description: 'Two weeks to the launch pad.' } } },
  replaceSprint: { body: { sprint: { name: 'Sprint 1: launch pad' } } },
  completeSprint: { body: { carry_over: { sprint_id: null } } },
  createSprintCompletion: { body: {} },
  listLabels: listQuery,
  createLabel: { body: { label: { name: 'bug', color: '#d73a4a', description: 'Something does not work.' } } },
  updateLabel: { body: { label: { name: 'defect' } } },
  replaceLabel: { body: { label: { color: '#b60205' } } },
  // The project's states are 1..5 (one per category); the one created here is state 6.
  createState: { body: { state: { name: 'In review', category: 'in_progress', wip_limit: 3 } } },
  getState: { params: { state_id: '6' } },
  updateState: { params: { state_id: '6' }, body: { state: { name: 'Code review' } } },
  replaceState: { params: { state_id: '6' }, body: { state: { color: '#8b5cf6' } } },
  deleteState: { params: { state_id: '6' } },
  // The project's first custom field (docs/custom-fields.md): a select, field 1 (its options take 2 and 3).
  createCustomField: {
    body: { field: { name: 'Severity', type: 'select', options: [{ name: 'low' }, { name: 'high', color: '#b60205' }] } },
  },
  getCustomField: { params: { field_id: '1' } },
  updateCustomField: { params: { field_id: '1' }, body: { field: { description: 'How badly it hurts.' } } },
  replaceCustomField: { params: { field_id: '1' }, body: { field: { required: false } } },
  deleteCustomField: { params: { field_id: '1' } },
  getIssueByKey: { params: { issue_key: 'GEM-1' } },
  // An issue by its key, wherever it lives (docs/api.md: Issues by key).
  updateIssueByKey: { params: { issue_key: 'GEM-1' }, body: { issue: { priority: 'high' } } },
  replaceIssueByKey: { params: { issue_key: 'GEM-1' }, body: { issue: { story_points: 3 } } },
  deleteIssueByKey: { params: { issue_key: 'GEM-3' } },
  listIssueCommentsByKey: { params: { issue_key: 'GEM-1' }, ...listQuery },
  createIssueCommentByKey: { params: { issue_key: 'GEM-1' }, body: { comment: { body: 'Checked by its key.' } } },
  listIssueActivityByKey: { params: { issue_key: 'GEM-1' }, ...listQuery },
  listSubIssues: { params: { issue_key: 'GEM-1' }, ...listQuery },
  // GEM-2 (the sprint's issue) blocks GEM-1 (the backlog's): relation 2-blocks-1, on both.
  listIssueRelations: { params: { issue_key: 'GEM-1' } },
  createIssueRelation: { params: { issue_key: 'GEM-2' }, body: { relation: { type: 'blocks', issue_key: 'GEM-1' } } },
  deleteIssueRelation: { params: { issue_key: 'GEM-1', relation_id: '2-blocks-1' } },
  // A screenshot on GEM-1: declared (pending), then its upload completed, listed, downloaded, deleted.
  createAttachment: {
    params: { issue_key: 'GEM-1' },
    body: { attachment: { name: 'screenshot.png', content_type: 'image/png', size: 48213 } },
  },
  listAttachments: { params: { issue_key: 'GEM-1' } },
  downloadAttachment: { params: { issue_key: 'GEM-1', attachment_id: '1' } },
  completeAttachment: { params: { issue_key: 'GEM-1', attachment_id: '1' } },
  deleteAttachment: { params: { issue_key: 'GEM-1', attachment_id: '1' } },
  listSprintIssues: listQuery,
  createSprintIssue: {
    body: {
      issue: { title: 'Build the lunar module', story_points: 8, priority: 'high', type: 'story', due_date: '2026-12-04' },
    },
  },
  bulkSprintIssues: {
    body: {
      items: [
        { issue: { title: 'Check the docking radar', story_points: 2 } },
        { issue: { title: 'Stow the samples', position: 1 } },
        { id: 1, issue: { status: 'in_progress' } },
      ],
    },
  },
  getSprintIssue: { params: sprintIssue },
  updateSprintIssue: { params: sprintIssue, body: { issue: { status: 'in_progress' } } },
  replaceSprintIssue: { params: sprintIssue, body: { issue: { story_points: 5, type: 'bug' } } },
  deleteSprintIssue: { params: sprintIssue },
  listSprintIssueActivity: { params: sprintIssue, ...listQuery },
  listBacklogIssues: listQuery,
  listMyIssues: { query: { priority: 'high,urgent', due_before: '2026-12-31' } },
  searchIssues: { query: { q: 'is:open type:bug assignee:@me updated:>-7d', per_page: '25' } },
  searchIssuesJson: {
    body: {
      and: [{ is: 'open' }, { label: { in: ['bug'] } }, { points: { gte: 3 } }],
      sort: { field: 'updated', order: 'desc' },
    },
  },
  createBacklogIssue: { body: { issue: { title: 'Plan the return trip', story_points: 3, priority: 'low' } } },
  bulkBacklogIssues: {
    query: { dry_run: 'true' },
    body: { items: [{ issue: { title: 'Book the recovery ship' } }, { id: 2, version: 3, issue: { priority: 'high' } }] },
  },
  updateBacklogIssue: { body: { issue: { description: 'Splashdown in the Pacific.' } } },
  replaceBacklogIssue: { body: { issue: { story_points: 2 } } },
  listComments: { params: { issue_id: '2' }, ...listQuery },
  createComment: { params: { issue_id: '2' }, body: { comment: { body: 'The descent engine needs another test.' } } },
  listBacklogIssueComments: listQuery,
  createBacklogIssueComment: { body: { comment: { body: 'Which ocean?' } } },
  updateComment: { body: { comment: { body: 'The descent engine passed its test.' } } },
  replaceComment: { body: { comment: { body: 'Test passed twice.' } } },
  mcp: {
    headers: { Accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  },
  mcpStream: { headers: { Accept: 'text/event-stream' } },
  listWebhooks: listQuery,
  createWebhook: {
    body: {
      webhook: {
        url: 'https://hooks.example.com/sprint-ticketing',
        events: ['issue.created'],
        filter: 'type:bug priority:>=high',
      },
    },
  },
  updateWebhook: { body: { webhook: { events: ['issue.created', 'sprint.completed'] } } },
  replaceWebhook: { body: { webhook: { active: true } } },
  // The organisation's trash retention (docs/api.md): 14 days, then back to the stage's default.
  updateOrganisation: { body: { organisation: { trash_retention_days: 14 } } },
  updateMe: { body: { account: { handle: 'sample' } } },
  // The caller's inbox (docs/notifications.md): all of it read; a query followed, then no longer.
  markNotificationsRead: { body: { all: true } },
  followQuery: { body: { subscription: { query: 'label:bug is:open' } } },
  unfollowQuery: { params: { subscription_id: '1' } },
  watchIssue: { params: { issue_key: 'GEM-1' } },
  unwatchIssue: { params: { issue_key: 'GEM-1' } },
  replaceOrganisation: { body: { organisation: { trash_retention_days: null } } },
  redeliverWebhookDelivery: { params: { delivery_id: 'msg_sample' } },
  // An import job of GitHub issues into project 1 (docs/import-export.md); its id is answered by the POST.
  createImportJob: {
    query: { format: 'github-json', project_id: '1' },
    body: [
      {
        number: 7,
        title: 'Retro-rockets misfire',
        body: 'Seen twice in the simulator.',
        state: 'OPEN',
        labels: [{ name: 'bug' }],
        assignees: [],
        milestone: { number: 1, title: 'Sprint 1' },
        createdAt: '2026-11-20T10:00:00Z',
        updatedAt: '2026-11-21T10:00:00Z',
        url: 'https://github.com/acme/apollo/issues/7',
      },
    ],
  },
  getImportJob: { params: { job_id: '00000000-0000-4000-8000-000000000001' } },
  // The sample webhook, once deleteWebhook has put it in the trash (docs/trash.md).
  getTrashItem: { params: { trash_id: 'webhook-1' } },
  restoreTrashItem: { params: { trash_id: 'webhook-1' } },
  purgeTrashItem: { params: { trash_id: 'webhook-1' } },
  exportOrganisation: { query: { per_page: '1000' } },
  // OAuth for /mcp (docs/mcp.md): a registration; the rest name a client, code or token that a
  // fresh table does not hold, so they show the refusals (an error page, invalid_grant, a no-op revocation).
  registerOAuthClient: { body: { client_name: 'Sample assistant', redirect_uris: ['http://127.0.0.1:8123/callback'] } },
  getOAuthAuthorization: { query: oauthRequest },
  answerOAuthAuthorization: { body: new URLSearchParams({ ...oauthRequest, decision: 'deny', csrf: 'x' }) },
  getOAuthToken: {
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: oauthRequest.client_id,
      code: `stk_oac_${'A'.repeat(43)}`,
      code_verifier: 'B'.repeat(43),
    }),
  },
  revokeOAuthToken: { body: new URLSearchParams({ token: `stk_ort_${'A'.repeat(43)}` }) },
  // GitHub: project 1 connects a repository (its secret answered once), reads and rotates it, then
  // disconnects; GEM-1's links. The receiver's sample is a push of a repository no project connects,
  // answered 202 and ignored: a connected one's needs the signature of its secret.
  connectGitHubRepository: { body: { github: { repository: 'hello-org/hello-world', automation: { enabled: true } } } },
  listIssueLinks: { params: { issue_key: 'GEM-1' } },
  receiveGitHubDelivery: {
    headers: {
      Accept: '*/*',
      'User-Agent': 'GitHub-Hookshot/sample',
      'X-GitHub-Event': 'push',
      'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'X-GitHub-Hook-ID': '1',
      'X-Hub-Signature-256': `sha256=${'0'.repeat(64)}`,
    },
    body: {
      ref: 'refs/heads/GEM-1-docking-radar',
      before: '0'.repeat(40),
      after: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
      repository: {
        id: 1,
        name: 'not-connected',
        full_name: 'sample-org/not-connected',
        owner: { login: 'sample-org' },
        html_url: 'https://github.com/sample-org/not-connected',
        default_branch: 'main',
        // A push's times are seconds since the epoch (2026-11-21T09:30:00Z).
        pushed_at: 1795253400,
      },
      commits: [
        {
          id: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
          message: 'GEM-1: check the docking radar',
          timestamp: '2026-11-21T09:30:00Z',
          url: 'https://github.com/sample-org/not-connected/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246',
          author: { name: 'Grace Hopper', email: 'grace@example.com', username: 'grace' },
        },
      ],
      sender: { login: 'grace', id: 1 },
    },
  },
};

/** A UUID-shaped id derived from a name: generated files stay the same from run to run. */
function stableId(name: string): string {
  const h = createHash('sha256').update(name).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const SAMPLE_TIME = Date.parse('2026-11-21T09:30:00.000Z');

/** The proxy event API Gateway would send for the route's sample request. */
export function sampleEvent(route: Route): APIGatewayProxyEvent {
  const sample = samples[route.operation.id] ?? {};
  const params: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\+?\}/g, (_m, name: string) => (params[name] = sample.params?.[name] ?? '1'));
  const url = new URL(`http://localhost:3000${path}`);
  for (const [k, v] of Object.entries(sample.query ?? {})) url.searchParams.set(k, v);
  const form = sample.body instanceof URLSearchParams;
  const body = sample.body === undefined ? null : form ? String(sample.body) : JSON.stringify(sample.body);
  const headers: Record<string, string> = {
    Accept: 'application/json',
    Host: 'localhost:3000',
    'User-Agent': 'sample-event',
    'X-Forwarded-Proto': 'http',
    ...(route.auth ? { Authorization: `Bearer ${SAMPLE_TOKEN}` } : {}),
    ...(body === null ? {} : { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
    ...sample.headers,
  };
  const multiHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  const event = proxyEvent(
    { method: route.method, url, headers, multiHeaders, body, sourceIp: '127.0.0.1' },
    route,
    params,
    null,
  );
  event.requestContext.requestId = stableId(route.operation.id);
  event.requestContext.requestTimeEpoch = SAMPLE_TIME;
  return event;
}

/** A REQUEST authorizer event for `GET /api/v1/me`. */
export function sampleAuthorizerEvent(): APIGatewayRequestAuthorizerEvent {
  const me = routes.find((r) => r.operation.id === 'getMe') ?? routes.find((r) => r.auth)!;
  const event = sampleEvent(me);
  return {
    ...event,
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/local/${me.method}${me.path}`,
  } as APIGatewayRequestAuthorizerEvent;
}

/**
 * A stream batch as Lambda hands it to the cascade consumer: a project deleted. The sample's
 * project (999999 of organisation 1) is one no table is likely to hold, so running it is harmless;
 * with real ids it removes everything under that project.
 */
export function sampleStreamEvent(orgId = 1, projectId = 999_999): DynamoDBStreamEvent {
  const project = {
    type: 'project',
    org_id: orgId,
    id: projectId,
    name: 'Gemini',
    prefix: 'GEM',
    description: null,
    sprints_count: 1,
    created_at: '2026-11-21T09:00:00.000Z',
    updated_at: '2026-11-21T09:00:00.000Z',
  };
  const key = keys.project(orgId, projectId);
  return {
    Records: [
      {
        eventID: stableId('cascade'),
        eventName: 'REMOVE',
        eventVersion: '1.1',
        eventSource: 'aws:dynamodb',
        awsRegion: 'local',
        dynamodb: {
          ApproximateCreationDateTime: SAMPLE_TIME / 1000,
          Keys: marshall(key) as never,
          OldImage: marshall({ ...key, ...project }) as never,
          SequenceNumber: '100000000000000000001',
          SizeBytes: 250,
          StreamViewType: 'NEW_AND_OLD_IMAGES',
        },
        eventSourceARN: 'arn:aws:dynamodb:local:000000000000:table/sprint-ticketing/stream/2026-11-21T00:00:00.000',
      },
    ],
  };
}

/** Every generated file: name -> content. */
export function generatedEvents(): Map<string, string> {
  const files = new Map<string, string>();
  const write = (name: string, event: unknown) => files.set(name, `${JSON.stringify(event, null, 2)}\n`);
  for (const route of routes) write(`${route.operation.id}.json`, sampleEvent(route));
  write('authorizer.json', sampleAuthorizerEvent());
  write('cascade.json', sampleStreamEvent());
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  mkdirSync(eventsDir, { recursive: true });
  const files = generatedEvents();
  for (const [name, content] of files) writeFileSync(resolve(eventsDir, name), content);
  const unknown = Object.keys(samples).filter((id) => !routes.some((r) => r.operation.id === id));
  for (const id of unknown) process.stderr.write(`warning: sample "${id}" matches no route\n`);
  process.stdout.write(`wrote ${files.size} events to events/\n`);
}

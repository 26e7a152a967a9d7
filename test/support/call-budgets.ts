import type { Route } from '../../lib/routes.ts';

/**
 * DynamoDB calls per request, authorizer and rate limit included: the floor of the design is one
 * call for the token and its bucket, then one for a read's work, two for a write's (the read it
 * checks against, then the write). `test/e2e/call-budgets.test.ts` sends a request to every route
 * of the route table and holds it to this; docs/data-model.md shows the table it renders.
 */
export const floor = { read: 2, write: 3 } as const;

/**
 * Serial round trips per request: the longest chain of DynamoDB calls sent one after another
 * (lib/db/core/metrics.ts), authorizer included. The floor is the same two and three: a read's token
 * and its work, a write's token, the read it checks against and the write.
 */
export interface Budget {
  calls: number;
  /** Serial round trips, at most, where more than the floor (the reason says why). */
  roundTrips?: number;
  /** Why a route takes more (or less) than the floor. */
  reason?: string;
}

const project = '/api/v1/projects/{project_id}';
const sprint = `${project}/sprints/{sprint_id}`;

/** Every spelling of a route (PATCH and its PUT spelling share a handler, so a budget). */
const both = (path: string, budget: Budget) => ({ [`PATCH ${path}`]: budget, [`PUT ${path}`]: budget });

const list: Budget = {
  calls: 3,
  reason:
    "A page: the list's Query, and one BatchGetItem of its ancestors (a deleted one is 404 at once) and of the counter behind `X-Total-Count`, in parallel (one after the other for `page=N`: where page N starts is read from the counters first, 3 serial round trips). A Query reads one item collection from a cursor on; the ancestors live in others.",
  roundTrips: 3,
};
const rank = 'docs/issue-lists.md';
const newBlock =
  "Once in 32 creates in a project its block of issue ids is used up: the next is reserved from the organisation's sequence and installed, 2 more (lib/db/core/sequences.ts).";
const movedComment =
  "The comment's pointer, then one transaction with every check a read would make: 3. When the comment's issue has moved to another sprint since the pointer last saw it, that transaction is refused and the comment is read and written: 5, once (the write points the pointer at the issue's sprint).";
/** The routes by key: the nested path's work, on the list the key's pointer names. */
const byKey =
  "The key's pointer (it keeps the issue's list), then what the issue's path under its list takes: a number leads to its issue only through its pointer, in another partition, so the one more call is serial.";
const issueWrite = `The issue with its ancestors, then one transaction that keeps the rank counters, with, for an issue left where it is, the keys-only Query of its place for the answer's \`position\` beside it: 3 serial round trips (${rank}). A move reads what its place needs beside the issue: the keys around a place among the first 43 of its list (they start at the list's first key), or the allocation of a place at the end of another list; the keys around a deeper place are read after the issue, whose list's rank index says where they start: 4.`;
/** A PATCH or PUT by key: the pointer, then its list's path, beside whose issue read a move reads what its place needs. */
const writeByKey = `The key's pointer (it keeps the issue's list), then what the issue's path under its list takes: the issue with its ancestors (a move reads what its place needs beside it: the keys around a place among the first 43 of its list, or the allocation of a place at the end of another list), then the transaction, with the Query of the issue's place for the answer beside it: 5 calls, 4 serial round trips, one more than its list's path. A number leads to its issue only through its pointer, in another partition, so the one more call is serial. A place past the 43rd: its keys after the issue's read, 5 serial; a new parent's ancestors, as on its list's path.`;

const parentChange =
  'Only when `parent_id` changes (the new parent is read with the issue): to an issue that has a parent itself, each ancestor above it is read, one GetItem after another (at most 3 more; 5 for a grandparent, as measured here); when the issue has sub-issues of its own, they are read level by level, a Query per issue that has sub-issues and a BatchGetItem of their children (lib/services/sub-issues.ts).';

/**
 * A bulk write is as many writes as it has items, one after the other (docs/api.md: Bulk writes):
 * its bound grows with them, stated per item. The request measured has 5 items.
 */
const bulk: Budget = {
  calls: 16,
  roundTrips: 16,
  reason:
    "The token, then the path's project and sprint (one BatchGetItem): 2. Then, item after item (serial round trips as calls, but for the runs written together): a run of creates into the list without `parent_id` takes 4 for all (what they check in one BatchGetItem, their ids and their numbers side by side, then one transaction per 100 items: about 30 issues each), and each of them given a `position` before the end is then moved there as a PATCH moves it (3 calls; 2 serial round trips to one of the first 43 places); a run of updates of different issues of the list without `version`, `position`, a move or a new parent takes the issues in one read (a BatchGetItem per 100, side by side), their places side by side (a keys-only Query each) and one transaction per about 30 updates, one after another: 100 updates in at most 9 serial round trips (test/e2e/bulk.test.ts measures 4 for 10, 7 for 90); any other create, or an update, what its single route takes (POST …/issues 5, 6 in a sprint; with `position` +4; PATCH 5). 100 items: at most 2 + 100 × 9 calls (more only for parents deep in a tree, as on the single routes), one serial round trip each but the ids and numbers' pair and a move's reads beside its issue's; 100 plain creates: at most 10 (test/e2e/bulk.test.ts). `?dry_run=true`: reads only, at most 7 per item. `Idempotency-Key`: 2 more.",
};

const search: Budget = {
  calls: 4,
  roundTrips: 3,
  reason:
    "A page: one Query of the organisation's search partition (at most 1,000 records) and one Query of its projects (prefixes, label catalogues), in parallel: 3. With `sprint:active`, the sprints its records name are read after them (one BatchGetItem): 4, 3 serial round trips. A Query reads one item collection; the projects live in another, and which sprints to read is known only from the records.",
};

/** Exceptions, by `METHOD path` as in `lib/routes.ts`, with their reason. */
export const exceptions: Record<string, Budget> = {
  // Lists (first page, `next` link, `page=N`)
  'GET /api/v1/accounts': list,
  'GET /api/v1/projects': list,
  [`GET ${project}/sprints`]: list,
  [`GET ${project}/labels`]: list,
  [`GET ${sprint}/issues`]: list,
  [`GET ${project}/issues`]: list,
  [`GET ${sprint}/issues/{issue_id}/comments`]: list,
  [`GET ${project}/issues/{issue_id}/comments`]: list,
  [`GET ${sprint}/issues/{issue_id}/activity`]: list,
  [`GET ${project}/issues/{issue_id}/activity`]: list,
  [`GET ${sprint}/activity`]: list,
  'GET /api/v1/webhooks': list,
  'GET /api/v1/me/issues': {
    calls: 4,
    roundTrips: 4,
    reason: `The index Query, the issues with their ancestors in one BatchGetItem, then for their places one keys-only Query per list on the page (per run of 128 issues in a long one): 3 + the lists, 4 for a page from one sprint as measured here (${rank}).`,
  },
  // Search (docs/search.md): the search partition and the projects in parallel; the sprints after, for `sprint:active`
  'GET /api/v1/issues': search,
  'POST /api/v1/issues/search': search,
  // Issues: an issue's place is a count in its list's rank index, read after the issue
  'GET /api/v1/issues/{issue_key}': {
    calls: 4,
    roundTrips: 3,
    reason: `The key's pointer, which keeps the issue's list and its stored list key as of its last move; then the issue with its ancestors (one BatchGetItem) beside the keys-only Query of its place at that key: 4 calls, 3 serial round trips, the serial round trips of its list's path. When the issue's key is another now (a neighbour's move renumbered it since), that Query is spent and one for its own key follows the read: 5 calls, 4 serial (${rank}). A pointer written before it kept the key: 4, 4; before it kept the list: the issue is read first, 5, 4.`,
  },
  [`GET ${sprint}/issues/{issue_id}`]: {
    calls: 3,
    roundTrips: 3,
    reason: `The issue with its ancestors, then its place: its rank in its block is known only once the issue is read (${rank}).`,
  },
  [`GET ${project}/issues/{issue_id}`]: {
    calls: 3,
    roundTrips: 3,
    reason: `The issue with its ancestors, then its place: its rank in its block is known only once the issue is read (${rank}).`,
  },
  [`POST ${sprint}/issues`]: {
    calls: 6,
    roundTrips: 5,
    reason: `The issue's id, number and position in one UpdateItem on the project, with the sprint read beside it for the answer's place, then the transaction: 4 (${rank}). ${newBlock}`,
  },
  [`POST ${project}/issues`]: {
    calls: 5,
    roundTrips: 5,
    reason: `The issue's id, number and position in one UpdateItem on the project, then the transaction: 3. ${newBlock}`,
  },
  ...Object.fromEntries([sprint, project].map((list) => [`POST ${list}/issues/bulk`, bulk])),
  ...both(`${sprint}/issues/{issue_id}`, { calls: 5, roundTrips: 4, reason: `${issueWrite} ${parentChange}` }),
  ...both(`${project}/issues/{issue_id}`, { calls: 5, roundTrips: 4, reason: `${issueWrite} ${parentChange}` }),
  ...both('/api/v1/issues/{issue_key}', { calls: 6, roundTrips: 4, reason: writeByKey }),
  'DELETE /api/v1/issues/{issue_key}': { calls: 4, roundTrips: 4, reason: `${byKey} 1 more than its list's path.` },
  'GET /api/v1/issues/{issue_key}/comments': {
    ...list,
    calls: 4,
    roundTrips: 4,
    reason: `${byKey} 1 more than its list's path.`,
  },
  'GET /api/v1/issues/{issue_key}/activity': {
    ...list,
    calls: 4,
    roundTrips: 4,
    reason: `${byKey} 1 more than its list's path.`,
  },
  'POST /api/v1/issues/{issue_key}/comments': {
    calls: 4,
    reason:
      "The key's pointer beside the comment's id (read side by side: no more serial round trips than its list's path), then the transaction.",
  },
  // Activity: a revert (docs/activity.md) finds its entry from its id alone, then writes as a PATCH or a relation's route does
  'POST /api/v1/activity/{activity_id}/revert': {
    calls: 7,
    roundTrips: 7,
    reason: `The entry with its project and issue (one BatchGetItem: the id says where it lives), then the write that reverts it. A change of fields, state, list or parent: what the issue's PATCH takes (the issue with its ancestors, beside it a move back's allocation; then the transaction, its place beside it), 5 calls, 4 serial round trips (more only for a parent deep in a tree, as a PATCH). A relation's: what its route takes (the keys' pointers, the issues with their projects, the transaction), then the issue and its place for the answer: 7. A 409 (fields changed since) or 422: 2.`,
  },
  // Comments
  'GET /api/v1/comments/{id}': {
    calls: 4,
    roundTrips: 4,
    reason:
      "The path names no project: the comment's pointer (in the organisation's partition), then the comment with its ancestors, both consistently: 3. 4 when its issue has moved to another sprint since the pointer last saw it (that sprint is read too), until an edit of the comment.",
  },
  ...both('/api/v1/comments/{id}', { calls: 5, roundTrips: 5, reason: movedComment }),
  'DELETE /api/v1/comments/{id}': { calls: 5, roundTrips: 5, reason: movedComment },
  // Sprints
  ...Object.fromEntries(
    ['complete', 'completion'].map((verb) => [
      `POST ${sprint}/${verb}`,
      {
        calls: 5,
        roundTrips: 4,
        reason:
          'All or nothing at any size: the sprint is marked completing, its open issues are read and moved, then it is finished with its report (docs/sprint-outcomes.md). 5 while the open issues fit one batch; past that, 7 and one transaction per batch of 32, the last one finishing (one allocation of places for all the moves): 39 for 1,000 open issues.',
      },
    ]),
  ),
  [`GET ${project}/velocity`]: {
    calls: 3,
    reason: "The project (the organisation's partition) and its sprint summaries (the project's partition), read in parallel.",
  },
  // Relations: the path names an issue by its key, so its pointer is read first (lib/services/relations.ts)
  'GET /api/v1/issues/{issue_key}/relations': {
    calls: 3,
    roundTrips: 3,
    reason: "The key's pointer, then the issue with its project in one BatchGetItem: the relations are stored on the issue.",
  },
  'POST /api/v1/issues/{issue_key}/relations': {
    calls: 4,
    roundTrips: 4,
    reason:
      "Both keys' pointers in one BatchGetItem, both issues with their projects in another, then the transaction that writes both sides and the blocked issue's count of open blockers.",
  },
  'DELETE /api/v1/issues/{issue_key}/relations/{relation_id}': {
    calls: 6,
    roundTrips: 6,
    reason:
      "The key's pointer, the issue with its project (its side names the other issue), then the transaction: 4. Removing a `blocked_by` relation whose blocker is done or cancelled: the transaction, which assumed the blocker open for the count, is refused, the blocker read and the write sent again: 6.",
  },
  // Attachments (docs/attachments.md): the issue by its key first, as every route of an issue key
  'POST /api/v1/issues/{issue_key}/attachments': {
    calls: 6,
    roundTrips: 5,
    reason:
      "The key's pointer, beside the attachment's id from the organisation's sequence (and the uploader's name for a token issued before tokens carried names); then the issue with its project (one BatchGetItem) and, for an issue in a sprint, the sprint; then the transaction that writes the pending attachment with the issue's count, the organisation's bytes and pending count and the uploader's pending count (the limits and caps, under any concurrency): 6 calls, 5 serial round trips in a sprint (4 in the backlog). Signing the upload form calls nothing.",
  },
  'GET /api/v1/issues/{issue_key}/attachments': {
    calls: 4,
    roundTrips: 3,
    reason:
      "The key's pointer, then the issue with its project (one BatchGetItem) beside the Query of the issue's attachments, which the pointer locates: 4 calls, 3 serial round trips (4 for an issue in a sprint, whose sprint is checked after). Signing each download URL calls nothing.",
  },
  'GET /api/v1/issues/{issue_key}/attachments/{attachment_id}': {
    calls: 4,
    roundTrips: 3,
    reason:
      "The key's pointer, then the issue with its project (one BatchGetItem) beside the attachment: 4 calls, 3 serial round trips (4 in a sprint).",
  },
  'POST /api/v1/issues/{issue_key}/attachments/{attachment_id}/complete': {
    calls: 5,
    roundTrips: 4,
    reason:
      "The key's pointer, the issue with its project beside the attachment, then (after S3's HeadObject of the posted file and its CopyObject to the attachment's key) the transaction that makes it ready and gives back its pending counts: 5 calls, 4 serial round trips (5 in a sprint).",
  },
  'DELETE /api/v1/issues/{issue_key}/attachments/{attachment_id}': {
    calls: 5,
    roundTrips: 4,
    reason:
      "The key's pointer, the issue with its project beside the attachment (its size) and the organisation (its trash retention) in one BatchGetItem, then the transaction that moves a ready one into the trash (a pending one: deletes it, with the organisation's bytes and its pending counts) and gives back its place in the issue's count: 5 calls, 4 serial round trips (5 in a sprint).",
  },
  // Export (docs/import-export.md): a page of an organisation-wide walk, bounded by calls as well as bytes
  'GET /api/v1/export': {
    calls: 41,
    roundTrips: 41,
    reason:
      "A page of the whole organisation's export: one Query page after another (the organisation, its accounts, then project by project its labels, sprints, issues, comments), each read where the cursor says, until 2 MiB, `per_page` lines or 40 calls (more only while the page has no line yet, e.g. when the accounts take more than 40 pages to re-read).",
  },
  // Workflow states (docs/workflows.md)
  [`DELETE ${project}/states/{state_id}`]: {
    calls: 4,
    reason:
      "The project with the state (one BatchGetItem) and the project's sprints (one Query), side by side: how many issues the state has is the sum of the board's column counters of the backlog (on the project) and of every sprint. Then one transaction. A Query reads one item collection; the project lives in another.",
  },
  [`GET ${sprint}/board`]: {
    calls: 3,
    reason:
      "The project and the sprint (one BatchGetItem: the workflow and the column counters) and the list's issues in order (one Query), side by side: one round trip after the token's, 2 serial round trips in all. A Query reads one item collection; the counters live on other items.",
  },
  [`GET ${project}/backlog/board`]: {
    calls: 3,
    reason:
      "The project and the sprint (one BatchGetItem: the workflow and the column counters) and the list's issues in order (one Query), side by side: one round trip after the token's, 2 serial round trips in all. A Query reads one item collection; the counters live on other items.",
  },
  // The trash (docs/trash.md)
  'POST /api/v1/trash/{trash_id}/restore': {
    calls: 8,
    roundTrips: 8,
    reason:
      "The token, the trash item, then the transaction that writes the item back: 3 for a webhook endpoint (as measured here), a label or a comment. An issue's answer is what its GET answers, read after the write as a PATCH's is (the issue with its ancestors, then its place: its rank in its block is known only once it is back): 5 (test/e2e/issues-trash.test.ts); its relations' other issues, its parent and its children, when it has any, read before the write (one BatchGetItem and one Query, side by side; a parent's ancestors one GetItem each, as a PATCH of `parent_id` reads them): 6; its sprint gone, the transaction refused, the sprint read and a place at the end of the backlog taken before it is written again: 8; its state deleted while it was away, the transaction refused, the project read and written again: 7 (test/e2e/issues-trash.test.ts measures both).",
  },
  // GitHub (docs/github.md)
  [`GET ${project}/github`]: {
    calls: 3,
    roundTrips: 3,
    reason: "The project, then its repository's item (its key is the repository the project names): 3 serial round trips.",
  },
  [`PUT ${project}/github`]: {
    calls: 7,
    roundTrips: 6,
    reason:
      "A change of the automation: the project, then the repository's item, written (3). A new connection: the project, the organisation's GitHub account (its e-mail's guard; the first time, the account made and its token revoked: 3 more), then one transaction of the repository's item and the project's two fields.",
  },
  [`DELETE ${project}/github`]: {
    calls: 4,
    roundTrips: 4,
    reason:
      "The project, then the repository's item (its key is the repository the project names), then one transaction of both.",
  },
  [`POST ${project}/github/secret`]: {
    calls: 4,
    roundTrips: 4,
    reason: "The project, then the repository's item, then its update.",
  },
  'GET /api/v1/issues/{issue_key}/links': {
    calls: 3,
    roundTrips: 3,
    reason: "The key's pointer, then the issue's links (one Query under the issue): 3 serial round trips.",
  },
  // Webhooks
  'GET /api/v1/webhooks/{webhook_id}/deliveries': {
    calls: 3,
    reason: "The endpoint (the organisation's partition) and its deliveries (the endpoint's partition), read side by side.",
  },
};

const key = (route: Pick<Route, 'method' | 'path'>) => `${route.method} ${route.path}`;

/**
 * The budget of one request to `route`. `kind` says what the request does where the route does
 * both (an MCP message runs a read tool or a write tool); by default the route's table access.
 */
export function budgetOf(route: Route, kind: 'read' | 'write' = route.access): Required<Omit<Budget, 'reason'>> & Budget {
  if (!route.auth && !route.authServer && !route.receiver)
    return { calls: 0, roundTrips: 0, reason: 'Public: no token to check, no table to read.' };
  const exception = exceptions[key(route)];
  return {
    ...exception,
    calls: exception?.calls ?? floor[kind],
    roundTrips: exception?.roundTrips ?? Math.min(floor[kind], exception?.calls ?? floor[kind]),
  };
}

const api = '/api/v1';
const inSprint = '/sprints/{sprint_id}';

/**
 * A row's routes, short: paths under `/api/v1`, the methods of one path together
 * (`PATCH, PUT, DELETE /comments/{id}`), and a sprint's route with its backlog twin as one path
 * with an optional segment (`/projects/{project_id}[/sprints/{sprint_id}]/issues`).
 */
export function shortRoutes(keys: string[]): string[] {
  const methodsOf = new Map<string, string[]>();
  for (const k of keys) {
    const [method, path] = k.split(' ') as [string, string];
    const short = path.startsWith(api) ? path.slice(api.length) : path;
    methodsOf.set(short, [...(methodsOf.get(short) ?? []), method]);
  }
  const merged = new Set<string>();
  const short: string[] = [];
  for (const [path, methods] of methodsOf) {
    if (merged.has(path)) continue;
    const twin = path.replace(inSprint, '');
    const sameMethods = twin !== path && methodsOf.get(twin)?.join() === methods.join();
    if (sameMethods) merged.add(twin);
    short.push(`${methods.join(', ')} ${sameMethods ? path.replace(inSprint, `[${inSprint}]`) : path}`);
  }
  return short;
}

/** The exceptions as the Markdown table of docs/data-model.md, one row per reason, its routes a short list. */
export function renderExceptions(): string {
  const rows = new Map<string, { routes: string[]; budget: Budget }>();
  for (const [route, b] of Object.entries(exceptions)) {
    const id = `${b.calls} ${b.roundTrips} ${b.reason}`;
    const row = rows.get(id) ?? { routes: [], budget: b };
    row.routes.push(route);
    rows.set(id, row);
  }
  const lines = [...rows.values()].map(({ routes, budget }) => {
    const list = shortRoutes(routes)
      .map((r) => `\`${r}\``)
      .join('<br>');
    return `| ${list} | ${budget.calls} | ${budget.roundTrips ?? '–'} | ${budget.reason ?? ''} |`;
  });
  return [
    '| Routes (under `/api/v1`) | Calls, at most | Serial round trips, at most (where above the floor) | Why |',
    '| --- | --: | --: | --- |',
    ...lines,
  ].join('\n');
}

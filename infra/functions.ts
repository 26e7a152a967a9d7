/**
 * Which Lambda functions the service has, derived from the route table. Plain TypeScript (no
 * aws-cdk-lib), shared by the stack, the bundle bench and `npm run invoke`.
 */
import type { Route } from '../lib/routes.ts';

/** The REQUEST authorizer in front of every authenticated route. */
export const authorizerEntry = 'functions/authorizer.ts';
/** The table stream consumer. */
export const cascadeEntry = 'functions/cascade.ts';
/** The import jobs' stream consumer. */
export const importJobsEntry = 'functions/import-jobs.ts';
/** The GitHub deliveries' stream consumer: links and status moves from what the receiver stored. */
export const githubEventsEntry = 'functions/github-events.ts';
/** The change feed's stream consumer (activity). */
export const changeFeedEntry = 'functions/change-feed.ts';
/** The webhook delivery function, fed by the delivery queue. */
export const deliveryEntry = 'functions/webhooks/deliver.ts';
/** The data migrations (lib/migrations): run on deploy by the stack's custom resource, continuing itself. */
export const migrateEntry = 'functions/migrate.ts';
/** The change feed's functions. */
export const changeFeedEntries = [changeFeedEntry, deliveryEntry];

export interface HandlerModule {
  /** Handler module relative to the repository root. */
  entry: string;
  /** `write` when any of its routes writes. */
  access: Route['access'];
  routes: Route[];
}

/** One function per handler module: rows sharing a module (PUT/PATCH, two spellings) share it. */
export function handlerModules(routes: Route[]): HandlerModule[] {
  const modules = new Map<string, HandlerModule>();
  for (const route of routes) {
    const module = modules.get(route.handler) ?? { entry: route.handler, access: route.access, routes: [] };
    module.routes.push(route);
    if (route.access === 'write') module.access = 'write';
    modules.set(route.handler, module);
  }
  return [...modules.values()];
}

/** `functions/me/regenerate-token.ts` -> `MeRegenerateToken`: a stable construct id per module. */
export function functionId(entry: string): string {
  return entry
    .replace(/^functions\//, '')
    .replace(/\.ts$/, '')
    .split(/[/_.-]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Every function of the stack: one per handler module, the authorizer, the stream consumers, the deliverer and the migrations. */
export function allFunctionEntries(routes: Route[]): string[] {
  return [
    ...handlerModules(routes).map((m) => m.entry),
    authorizerEntry,
    cascadeEntry,
    importJobsEntry,
    githubEventsEntry,
    ...changeFeedEntries,
    migrateEntry,
  ];
}

/**
 * The nested stacks that hold the route functions (each function with its role and inline policy,
 * its log group and its API Gateway permission), by route family: the folder of its handler module
 * under `functions/` (`functions/issues/get.ts`: `issues`), or the module's name for one at the top
 * (`functions/mcp.ts`: `mcp`). CloudFormation counts 500 resources per template, nested ones apart;
 * a function costs four. A family keeps its group for good (moving one replaces its functions), and
 * a family not named here goes to `OtherRoutes`; docs/deploying.md says how to place a new one.
 */
export const routeGroups = {
  /** An issue wherever it lives: sprint and backlog issues, keys, sub-issues, relations, comments, activity. */
  IssueRoutes: ['issues', 'backlog', 'issue-keys', 'relations', 'comments', 'activity', 'attachments', 'trash'],
  /** Projects and how work is planned in them: sprints, labels, workflow states, the board, custom fields. */
  PlanningRoutes: ['projects', 'sprints', 'labels', 'workflow-states', 'board', 'custom-fields'],
  /** Accounts and tokens, the organisation's settings, OAuth and /mcp, webhooks, GitHub, import and export, the documentation. */
  AccountRoutes: [
    'me',
    'accounts',
    'organisation',
    'oauth',
    'mcp',
    'webhooks',
    'github',
    'imports',
    'export',
    'api-docs',
    'api-reference',
  ],
} as const satisfies Record<string, readonly string[]>;

export type RouteGroup = keyof typeof routeGroups | 'OtherRoutes';

/** The route family of a handler module: its folder under `functions/`, or its name when it sits at the top. */
export function familyOf(entry: string): string {
  const [first = '', ...rest] = entry.replace(/^functions\//, '').split('/');
  return rest.length === 0 ? first.replace(/\.ts$/, '') : first;
}

/** The nested stack of a handler module's function. */
export function routeGroupOf(entry: string): RouteGroup {
  const family = familyOf(entry);
  const named = Object.entries(routeGroups).find(([, families]) => (families as readonly string[]).includes(family));
  return (named?.[0] as keyof typeof routeGroups | undefined) ?? 'OtherRoutes';
}

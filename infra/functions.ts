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

/** Every function of the stack: one per handler module, the authorizer, the stream consumers and the migrations. */
export function allFunctionEntries(routes: Route[]): string[] {
  return [
    ...handlerModules(routes).map((m) => m.entry),
    authorizerEntry,
    cascadeEntry,
    importJobsEntry,
    ...changeFeedEntries,
    migrateEntry,
  ];
}

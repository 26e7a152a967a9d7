import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { APIGatewayAuthorizerResult, DynamoDBBatchResponse } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { regenerateToken } from '../../lib/services/accounts.ts';
import { type Invocation, invoke, type Target, targetOfEvent } from '../../tools/local/invoke.ts';
import { eventsDir, generatedEvents, samples, sampleStreamEvent } from '../../tools/local/sample-events.ts';
import { commonErrors, type Route, routes } from '../../lib/routes.ts';
import { newOrganisation } from '../support/api.ts';

const generated = generatedEvents();
const files = readdirSync(eventsDir)
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('events/', () => {
  it.each(routes.map((r) => r.operation.id))('holds the sample event of %s, as `npm run events` writes it', (id) => {
    const file = resolve(eventsDir, `${id}.json`);
    expect(existsSync(file), `events/${id}.json is missing: run npm run events`).toBe(true);
    expect(readFileSync(file, 'utf8'), `events/${id}.json is out of date: run npm run events`).toBe(generated.get(`${id}.json`));
  });

  it('holds the authorizer event and the stream consumer event', () => {
    for (const name of ['authorizer.json', 'cascade.json']) {
      expect(readFileSync(resolve(eventsDir, name), 'utf8'), `events/${name}: run npm run events`).toBe(generated.get(name));
    }
  });

  it('has a sample body for every route that takes one, and no sample for a route that is gone', () => {
    const missing = routes
      .filter((r) => r.operation.body && samples[r.operation.id]?.body === undefined)
      .map((r) => r.operation.id);
    expect(missing, 'add a body to `samples` in tools/local/sample-events.ts').toEqual([]);
    const stale = Object.keys(samples).filter((id) => !routes.some((r) => r.operation.id === id));
    expect(stale).toEqual([]);
  });
});

/**
 * The order the events run in, so that they tell one story in a fresh organisation: creates
 * (parents first), reads and updates, sprint transitions and other actions, deletes (children
 * first), the stream consumer on the deleted project, and last the token's own regeneration and
 * revocation.
 */
function rank(target: Target): number {
  if (target.kind === 'authorizer') return 0;
  if (target.kind === 'cascade') return 90;
  const r = target.route;
  const depth = (r.path.match(/\{/g) ?? []).length;
  if (r.path.endsWith('/me/token')) return r.method === 'POST' ? 95 : 96;
  // A relation names its issues by key, and so does an attachment: after both sample issues exist.
  if (r.method === 'POST' && (r.path.endsWith('/relations') || r.path.endsWith('/attachments'))) return 13;
  // An import goes into the sample project: after it exists (its GET reads the job it answers).
  if (r.operation.id === 'createImportJob') return 12;
  if (r.method === 'POST' && r.operation.body && !r.operation.optionalBody) return 10 + depth;
  // What a started or completed sprint shows: after the transitions.
  if (r.method === 'GET' && /\/(report|burndown)$/.test(r.path)) return 65;
  // The trash holds the sample webhook once it is deleted: read it, restore it, then purge (404: restored).
  if (r.path.startsWith('/api/v1/trash/')) return r.method === 'GET' ? 77 : r.method === 'POST' ? 78 : 79;
  if (r.method === 'DELETE')
    return r.path.includes('comments') ? 70 : r.path.includes('issues') ? 72 : r.path.includes('sprints') ? 74 : 76;
  if (r.method === 'POST') return 60;
  return 40;
}

/** The statuses a route may answer (its OpenAPI operation). */
function declared(route: Route): number[] {
  return [route.operation.success.status, ...route.operation.errors, ...(route.auth ? commonErrors : [])];
}

/** The sample GET of an import job, naming the job the sample POST created (its id is random). */
function withImportJob(event: unknown, target: Target, jobId: string | undefined): unknown {
  if (target.kind !== 'route' || target.route.operation.id !== 'getImportJob' || !jobId) return event;
  const sample = event as { path: string; pathParameters: Record<string, string>; requestContext: { path: string } };
  const path = `/api/v1/imports/${jobId}`;
  return { ...sample, path, pathParameters: { job_id: jobId }, requestContext: { ...sample.requestContext, path } };
}

const WRITE_COMMAND = /Put|Update|Delete|BatchWrite|TransactWrite/;

describe('every event in events/ runs through its handler against DynamoDB Local', () => {
  const outcomes = new Map<string, Invocation | Error>();

  beforeAll(async () => {
    const org = await newOrganisation();
    let importJobId: string | undefined;
    const runs = files
      .map((file) => {
        const event = JSON.parse(readFileSync(resolve(eventsDir, file), 'utf8')) as unknown;
        return { file, event, target: targetOfEvent(event) };
      })
      .sort((a, b) => (a.target ? rank(a.target) : 0) - (b.target ? rank(b.target) : 0) || a.file.localeCompare(b.file));
    for (const { file, event, target } of runs) {
      if (!target) {
        outcomes.set(file, new Error(`${file} is an event for no route, authorizer or stream consumer`));
        continue;
      }
      // The sample stream event names a project of organisation 1: here, this test's deleted project.
      const input = target.kind === 'cascade' ? sampleStreamEvent(org.orgId, 1) : event;
      // A fresh token per event: the token routes regenerate and revoke the caller's own.
      const token = await regenerateToken(org.orgId, org.admin.id);
      const outcome = await invoke(target, withImportJob(input, target, importJobId), { token }).catch((err: Error) => err);
      // A job's id is random: the sample GET reads the job the sample POST answered.
      if (target.kind === 'route' && target.route.operation.id === 'createImportJob' && !(outcome instanceof Error)) {
        importJobId = (JSON.parse((outcome.result as { body: string }).body) as { id: string }).id;
      }
      outcomes.set(file, outcome);
    }
  }, 180_000);

  it.each(files)('%s', (file) => {
    const outcome = outcomes.get(file);
    if (outcome instanceof Error) throw outcome;
    expect(outcome, 'not run').toBeDefined();
    const event = JSON.parse(readFileSync(resolve(eventsDir, file), 'utf8')) as unknown;
    const target = targetOfEvent(event)!;
    const { result, error, handlerCalls, status } = outcome!;
    expect(error).toBeUndefined();
    if (target.kind === 'authorizer') {
      const policy = result as APIGatewayAuthorizerResult;
      expect(policy.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
      expect(policy.usageIdentifierKey).toMatch(/^org-\d{16}$/);
      return;
    }
    if (target.kind === 'cascade') {
      expect(result as DynamoDBBatchResponse).toEqual({ batchItemFailures: [] });
      return;
    }
    const route = target.route;
    expect(declared(route), `${route.method} ${route.path} answered ${status}: ${JSON.stringify(result)}`).toContain(status);
    const builds =
      route.method === 'POST' &&
      route.operation.body !== undefined &&
      !route.operation.optionalBody &&
      route.path.startsWith('/api/v1/');
    const reads = route.method === 'GET' && route.path.startsWith('/api/v1/');
    const updates = route.method === 'PUT' || route.method === 'PATCH';
    // The sample attachment's file is never uploaded (a client posts it to S3, no event does): its
    // download answers that it is still pending.
    if (route.operation.id === 'downloadAttachment') {
      expect(status, JSON.stringify(result)).toBe(422);
    } else if (builds || reads || updates) {
      expect(status, `${route.method} ${route.path}: ${JSON.stringify(result)}`).toBe(route.operation.success.status);
    }
    // Read-only routes get read-only IAM grants in AWS: here they must not write either.
    if (route.access === 'read') expect(handlerCalls.filter((c) => WRITE_COMMAND.test(c))).toEqual([]);
  });
});

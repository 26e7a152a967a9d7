import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../tools/openapi/document.ts';

/**
 * A small client written against types generated from the document, as an SDK user would: if the
 * document changes in a way that breaks it, it stops compiling.
 */
const client = `
import type { paths } from './api';

type CreateProject = paths['/api/v1/projects']['post'];
type ListProjects = paths['/api/v1/projects']['get'];
type GetProject = paths['/api/v1/projects/{project_id}']['get'];
type GetMe = paths['/api/v1/me']['get'];
type GetIssue = paths['/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}']['get'];
type UpdateIssue = paths['/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}']['patch'];

/** Sends a request and answers the parsed JSON body (fetch, a test double...). */
export type Transport = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<unknown>;

/** A conditional update: the ETag last read goes in If-Match; 412 means someone changed the issue since. */
export const updateIssueIfMatch = (
  send: Transport,
  at: UpdateIssue['parameters']['path'],
  headers: NonNullable<UpdateIssue['parameters']['header']>,
  body: UpdateIssue['requestBody']['content']['application/json'],
) =>
  send('PATCH', '/api/v1/projects/' + at.project_id + '/sprints/' + at.sprint_id + '/issues/' + at.issue_id, body, {
    'If-Match': headers['If-Match'] ?? '*',
  }) as Promise<
    UpdateIssue['responses'][200]['content']['application/json'] | UpdateIssue['responses'][412]['content']['application/json']
  >;

/** What a cached read keeps: the ETag header of the 200, sent back in If-None-Match (a 304 has no content). */
export type CachedIssue = { etag: GetIssue['responses'][200]['headers']['ETag']; ifNoneMatch: NonNullable<GetIssue['parameters']['header']>['If-None-Match'] };
export type NotModified = GetIssue['responses'][304] extends { content?: never } ? true : false;

export const createProject = (send: Transport, body: CreateProject['requestBody']['content']['application/json']) =>
  send('POST', '/api/v1/projects', body) as Promise<CreateProject['responses'][201]['content']['application/json']>;

export const listProjects = (send: Transport, query: NonNullable<ListProjects['parameters']['query']>) =>
  send('GET', '/api/v1/projects?' + Object.entries(query).map(([k, v]) => k + '=' + String(v)).join('&')) as Promise<
    ListProjects['responses'][200]['content']['application/json']
  >;

export const getProject = (send: Transport, id: GetProject['parameters']['path']['project_id']) =>
  send('GET', '/api/v1/projects/' + id) as Promise<
    GetProject['responses'][200]['content']['application/json'] | GetProject['responses'][404]['content']['application/json']
  >;

export const getMe = (send: Transport) => send('GET', '/api/v1/me') as Promise<GetMe['responses'][200]['content']['application/json']>;

export const getIssue = (send: Transport, at: GetIssue['parameters']['path']) =>
  send('GET', '/api/v1/projects/' + at.project_id + '/sprints/' + at.sprint_id + '/issues/' + at.issue_id) as Promise<
    GetIssue['responses'][200]['content']['application/json']
  >;

export async function sprintPlanning(send: Transport): Promise<string> {
  const created = await createProject(send, { project: { name: 'Apollo', prefix: 'APL', description: null } });
  const id: number = created.id;
  const description: string | null = created.description;
  const prefixes: string[] = (await listProjects(send, { page: 1, per_page: 25 })).map((p) => p.prefix);
  const found = await getProject(send, id);
  const title: string = 'error' in found ? found.error : found.name + ' ' + found.created_at;
  const me = await getMe(send);
  const role: 'admin' | 'member' = me.account.role;
  const issue = await getIssue(send, { project_id: id, sprint_id: 1, issue_id: 1 });
  const sprint: number | null = issue.sprint_id;
  // status names the issue's workflow state (any name a team gives it); its category is one of the five.
  const category: 'backlog' | 'todo' | 'in_progress' | 'done' | 'cancelled' = issue.status_category;
  const status: string = issue.status + ':' + category + ':' + String(issue.state_id ?? '');
  const points: number | null = issue.story_points;
  const cached: CachedIssue = { etag: '"1-abc"', ifNoneMatch: '"1-abc"' };
  const notModified: NotModified = true;
  const updated = await updateIssueIfMatch(send, { project_id: id, sprint_id: 1, issue_id: 1 }, { 'If-Match': cached.etag }, { issue: { title: 'Landed' } });
  const outcome: string = 'error' in updated ? updated.error : updated.title;
  return [outcome, String(notModified), created.name, description ?? '', ...prefixes, title, role, String(created.sprints_count), sprint, status, points].join(' ');
}
`;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Generates types from `doc`, writes them beside the client and compiles both; answers the errors. */
async function compileClientAgainst(doc: unknown): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-client-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(structuredClone(doc) as OpenAPI3)));
  writeFileSync(join(dir, 'client.ts'), client);
  const program = ts.createProgram([join(dir, 'client.ts')], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? d.file.fileName.replace(dir, '') : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const doc = buildOpenApiDocument() as Record<string, any>;

describe('a client typed from the document (openapi-typescript)', () => {
  it('compiles against the document', async () => {
    expect(await compileClientAgainst(doc)).toEqual([]);
  });

  it('stops compiling when a response field is renamed', async () => {
    const renamed = structuredClone(doc);
    const project = renamed.components.schemas.Project;
    project.properties.title = project.properties.name;
    delete project.properties.name;
    project.required = project.required.map((f: string) => (f === 'name' ? 'title' : f));
    const errors = await compileClientAgainst(renamed);
    expect(errors.join('\n')).toMatch(/Property 'name' does not exist/);
  });

  it('stops compiling when a conditional write loses its 412, or a GET its ETag header', async () => {
    const changed = structuredClone(doc);
    const issuePath = changed.paths['/api/v1/projects/{project_id}/sprints/{sprint_id}/issues/{issue_id}'];
    delete issuePath.patch.responses['412'];
    delete issuePath.get.responses['200'].headers.ETag;
    const errors = (await compileClientAgainst(changed)).join('\n');
    expect(errors).toMatch(/Property '412' does not exist/);
    // without the header, the tag is an unknown index signature value
    expect(errors).toMatch(/Type 'unknown' is not assignable to type 'string \| undefined'/);
  });

  it('stops compiling when a nullable field becomes an integer, or an operation disappears', async () => {
    const changed = structuredClone(doc);
    changed.components.schemas.Project.properties.description = { type: 'integer' };
    delete changed.paths['/api/v1/me'];
    const errors = (await compileClientAgainst(changed)).join('\n');
    expect(errors).toMatch(/Type 'number' is not assignable to type 'string'/);
    expect(errors).toMatch(/Property '\/api\/v1\/me' does not exist on type 'paths'/);
  });
});

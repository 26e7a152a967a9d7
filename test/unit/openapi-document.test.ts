import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildOpenApiDocument, renderOpenApi } from '../../tools/openapi/document.ts';
import { etags as servedEtags, servedDocument } from '../../lib/openapi/documents.ts';
import { outputs, queryParametersFile } from '../../tools/openapi/write.ts';
import { commonErrors, routes } from '../../lib/routes.ts';

type Json = Record<string, any>;
const doc = buildOpenApiDocument() as Json;
const operationOf = (method: string, path: string): Json => doc.paths[path][method.toLowerCase()];
const deref = (node: Json): Json => {
  const ref: string | undefined = node.$ref;
  if (!ref) return node;
  return ref
    .split('/')
    .slice(1)
    .reduce((at: Json, key) => at[key], doc);
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.0 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.0');
  });

  it('would be refused by the validator if it were broken (the check can fail)', async () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v1/projects'].get.responses = { '200': { content: {} } }; // a response without description
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('is what lib/openapi/openapi.v1.yaml and the served copy hold (run `npm run openapi` after changing routes or schemas)', () => {
    const fresh = renderOpenApi(buildOpenApiDocument());
    // Booleans, not strings: a stale copy should say what to do, not print two 40 kB documents.
    const stale = 'is stale: run `npm run openapi` and commit lib/openapi/';
    expect(readFileSync(outputs.yaml, 'utf8') === fresh.yaml, `lib/openapi/openapi.v1.yaml ${stale}`).toBe(true);
    const [yaml, json] = [servedDocument('yaml'), servedDocument('json')];
    expect(yaml === fresh.yaml && json === fresh.json, `lib/openapi/served.json ${stale}`).toBe(true);
    expect(servedEtags).toEqual(fresh.etags);
    expect(parse(yaml)).toEqual(JSON.parse(json));
    const known = readFileSync(outputs.queryParameters, 'utf8') === queryParametersFile(buildOpenApiDocument());
    expect(known, `lib/openapi/query-parameters.json ${stale}`).toBe(true);
  });

  it('is versioned v1, has a templated server, both security schemes and a tag per resource', () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('v1');
    expect(doc.servers[0].url).toBe('{protocol}://{host}');
    expect(doc.servers[0].variables.protocol).toEqual({ enum: ['https', 'http'], default: 'https' });
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiToken: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Token' }),
    });
    expect(doc.tags.map((t: Json) => t.name).sort()).toEqual([...new Set(routes.map((r) => r.operation.tag))].sort());
  });

  it('has one operation per route row, with a unique operationId, its summary and tag', () => {
    const ids = routes.map((r) => r.operation.id);
    expect(new Set(ids).size).toBe(ids.length);
    const count = Object.values(doc.paths as Json).reduce((n: number, item: Json) => n + Object.keys(item).length, 0);
    expect(count).toBe(routes.length);
    for (const route of routes) {
      const op = operationOf(route.method, route.path);
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op.operationId).toBe(route.operation.id);
      expect(op.summary).toBe(route.operation.summary);
      expect(op.tags).toEqual([route.operation.tag]);
    }
  });

  it('declares every status a route can answer, and no other', () => {
    for (const route of routes) {
      const op = operationOf(route.method, route.path);
      const expected = [
        route.operation.success.status,
        ...(route.operation.accepted ? [202] : []),
        ...route.operation.errors,
        ...(route.auth ? commonErrors : []),
      ];
      expect(Object.keys(op.responses).map(Number).sort(), route.operation.id).toEqual([...new Set(expected)].sort());
    }
  });

  it('lets either the bearer token or X-API-Token authenticate, and asks nothing of public routes', () => {
    for (const route of routes) {
      const op = operationOf(route.method, route.path);
      expect(op.security, route.operation.id).toEqual(route.auth ? [{ bearerAuth: [] }, { apiToken: [] }] : []);
    }
    expect(routes.some((r) => !r.auth && r.path === '/api-docs/v1/swagger.yaml')).toBe(true);
  });

  it('types every path parameter as what the service takes (ids as positive integers, the others by their pattern), and gives lists page, per_page and cursor', () => {
    // What real ones look like, as the service writes them.
    const real: Record<string, string[]> = {
      issue_key: ['APL-42', 'apl-7'],
      relation_id: ['65-blocks-66', '3-relates_to-9', '12-duplicates-7'],
      job_id: [randomUUID()],
      delivery_id: ['msg_2bq9R0u1x7Xn2p3K6dZ8vA1yQw'],
      activity_id: [
        '12-345-49602745177004327146052263106013829406',
        '1-2-000000000000000000017',
        '3-s7-120',
        '3-7--000000000004',
        '3-7-.000000000000',
      ],
      trash_id: ['webhook-12', 'comment-3'],
    };
    for (const route of routes) {
      const op = operationOf(route.method, route.path);
      const params: Json[] = op.parameters ?? [];
      for (const [, name] of route.path.matchAll(/\{(\w+)\}/g)) {
        const p = params.find((x) => x.in === 'path' && x.name === name);
        const examples = real[name!];
        if (!examples) {
          expect(p, `${route.operation.id} {${name}}`).toMatchObject({ required: true, schema: { type: 'integer', minimum: 1 } });
          continue;
        }
        expect(p, `${route.operation.id} {${name}}`).toMatchObject({
          required: true,
          schema: { type: 'string', pattern: expect.any(String) },
        });
        const pattern = new RegExp(p!.schema.pattern, 'u');
        for (const example of examples) expect(pattern.test(example), `${name}: ${example}`).toBe(true);
        for (const wrong of ['1', 'x', '']) expect(pattern.test(wrong), `${name}: ${wrong}`).toBe(false);
      }
      const query = params.filter((x) => x.in === 'query').map((x) => x.name);
      if (route.operation.success.list)
        expect(query, route.operation.id).toEqual(expect.arrayContaining(['page', 'per_page', 'cursor']));
    }
    const perPage = operationOf('GET', '/api/v1/projects').parameters.find((p: Json) => p.name === 'per_page');
    expect(perPage).toMatchObject({ required: false, schema: { type: 'integer', minimum: 1, default: 25 } });
  });

  it('describes request bodies with their wrapper object, required unless the route makes its body optional', () => {
    const body = operationOf('POST', '/api/v1/projects').requestBody;
    expect(body.required).toBe(true);
    expect(body.content['application/json'].schema).toEqual({
      type: 'object',
      properties: { project: { $ref: '#/components/schemas/ProjectCreate' } },
      required: ['project'],
      // Nothing may stand beside the wrapper (docs/api.md: Requests).
      additionalProperties: false,
    });
    for (const route of routes.filter((r) => r.operation.body)) {
      expect(operationOf(route.method, route.path).requestBody?.required, route.operation.id).toBe(!route.operation.optionalBody);
    }
    // Only the completion's body (the optional `carry_over`) may be left out.
    expect(routes.filter((r) => r.operation.optionalBody).map((r) => r.operation.id)).toEqual([
      'completeSprint',
      'createSprintCompletion',
    ]);
    expect(
      operationOf('POST', '/api/v1/projects/{project_id}/sprints/{sprint_id}/complete').requestBody.content['application/json']
        .schema,
    ).toEqual({
      $ref: '#/components/schemas/SprintComplete',
    });
  });

  it("declares every media type an import's upload takes: each format's file, and any file with its mapping as JSON", () => {
    const content = operationOf('POST', '/api/v1/imports').requestBody.content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/x-ndjson', 'text/csv']);
    expect(content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ImportJsonBody' });
    const json = doc.components.schemas.ImportJsonBody;
    expect(json.anyOf).toEqual([expect.objectContaining({ type: 'array' }), { $ref: '#/components/schemas/ImportEnvelope' }]);
    expect(doc.components.schemas.ImportEnvelope).toMatchObject({ required: ['file'], additionalProperties: false });
    const query = operationOf('POST', '/api/v1/imports').parameters.map((p: { name: string }) => p.name);
    expect(query).toEqual(expect.arrayContaining(['format', 'project_id', 'dry_run', 'keep_numbers']));
  });

  it('puts the rate-limit headers on every authenticated response, pagination headers on lists, Retry-After on 409 (but on a taken handle), 429 and 503', () => {
    for (const route of routes) {
      const op = operationOf(route.method, route.path);
      for (const [status, entry] of Object.entries(op.responses as Json)) {
        const response = deref(entry as Json);
        const headers = response.headers ?? {};
        const label = `${route.operation.id} ${status}`;
        for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) {
          expect(Boolean(headers[name]), `${label} ${name}`).toBe(route.auth);
          // Required wherever the handler answers; the gateway/authorizer may answer 401/429/500/503 first,
          // and API Gateway a 413 (a body past Lambda's 6 MB or its own 10 MB).
          if (route.auth)
            expect(deref(headers[name]).required, `${label} ${name}`).toBe(![...commonErrors, 413].includes(Number(status)));
        }
        // A taken handle's 409 has nothing to wait for: no Retry-After.
        const own = status === '409' ? route.operation.conflict : undefined;
        const retry = ['409', '429', '503'].includes(status) && (!own || own.retryAfter !== undefined);
        expect(Boolean(headers['Retry-After']), label).toBe(retry);
        // A revert's 409 (fields changed since) has nothing to wait for: Retry-After only on its sprint-busy `{error}`.
        if (retry) expect(deref(headers['Retry-After']).required).toBe(!own);
        const listed = route.operation.success.list && Number(status) === route.operation.success.status;
        for (const name of ['Link', 'X-Total-Count', 'X-Page', 'X-Per-Page']) {
          expect(Boolean(headers[name]), `${label} ${name}`).toBe(Boolean(listed));
        }
      }
    }
  });

  it('answers errors as Error, validation failures as ValidationErrors, and lists as arrays', () => {
    const create = operationOf('POST', '/api/v1/projects').responses;
    expect(deref(create['422']).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ValidationErrors' });
    expect(deref(create['401']).content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(doc.components.schemas.Error).toMatchObject({ required: ['error'], additionalProperties: false });
    expect(doc.components.schemas.ValidationErrors).toMatchObject({
      properties: { errors: { type: 'array', items: { type: 'string' } } },
      required: ['errors'],
    });
    const list = operationOf('GET', '/api/v1/projects').responses['200'].content['application/json'].schema;
    expect(list).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Project' } });
    expect(operationOf('DELETE', '/api/v1/projects/{project_id}').responses['204'].content).toBeUndefined();
  });

  it('marks always-present fields required, null-able ones nullable, and closes resources to extra fields', () => {
    const project = doc.components.schemas.Project;
    expect(project.additionalProperties).toBe(false);
    expect(project.required).toEqual(
      expect.arrayContaining(['id', 'name', 'prefix', 'description', 'sprints_count', 'created_at']),
    );
    expect(project.properties.description).toMatchObject({ type: 'string', nullable: true });
    expect(project.properties.name.nullable).toBeUndefined();
    expect(project.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    // Inputs are closed too (an unknown key is refused), the answer's read-only fields listed as accepted.
    expect(doc.components.schemas.ProjectCreate.additionalProperties).toBe(false);
    expect(doc.components.schemas.ProjectCreate.properties.sprints_count).toMatchObject({ readOnly: true });
    expect(doc.components.schemas.ProjectCreate.properties.name.readOnly).toBeUndefined();
  });

  it('carries the limits, patterns and formats the validation enforces', () => {
    const create = doc.components.schemas.ProjectCreate.properties;
    expect(create.name).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(create.prefix).toMatchObject({ pattern: '^[A-Z0-9]{2,4}$' });
    expect(create.description).toMatchObject({ maxLength: 100000, nullable: true });
    expect(create.documentation_url).toMatchObject({ format: 'uri', maxLength: 2048 });
    expect(doc.components.schemas.ProjectCreate.required).toEqual(['name', 'prefix']);
    expect(doc.components.schemas.ProjectUpdate.required).toBeUndefined();
  });
});

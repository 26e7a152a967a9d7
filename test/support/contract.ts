/**
 * Contract checks: a response is held against the OpenAPI document. The operation is found by
 * method and path template; its status must be declared, its body must match the declared schema
 * for its media type (ajv, every error reported), its required headers must be present and valid.
 *
 * `test/support/contract-setup.ts` runs this on every response the e2e suites receive through
 * `apiClient`, so a response that drifts from the document fails the test that got it.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { compileRoute, matchRoute } from '../../tools/local/gateway.ts';
import { allowedMethods, allowHeader } from '../../lib/http/method-not-allowed.ts';
import { inject } from 'vitest';
import type { OpenApiDocument } from '../../tools/openapi/document.ts';
import type { HttpMethod, Route } from '../../lib/routes.ts';
import { undeclaredRoutes } from './response-observers.ts';

/** What a check needs of a response (an `ApiResponse` has it). */
export interface ObservedResponse {
  status: number;
  headers: Headers;
  text: string;
}

export class ContractViolation extends Error {
  override name = 'ContractViolation';
}

type Schema = Record<string, unknown>;
/**
 * A schema's validator, compiled by ajv when first asked for: a test file meets a few of the
 * document's responses, and compiling all of them (over a second of CPU) for each file cost more
 * than its checks. `compileAll` compiles every one (test/unit/openapi-contract.test.ts).
 */
type Validator = () => ValidateFunction;
interface HeaderCheck {
  name: string;
  required: boolean;
  validate: Validator;
  type: unknown;
}
interface ResponseCheck {
  headers: HeaderCheck[];
  /** Media type -> body validator; undefined: the response has no body. */
  content?: Map<string, Validator>;
}
interface Operation {
  id: string;
  method: string;
  template: string;
  responses: Map<string, ResponseCheck>;
}

// ajv-formats is CommonJS: its default export arrives wrapped under NodeNext resolution.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const DOC_ID = 'openapi.json';
const schemaRef = (ref: string) => `${DOC_ID}#/definitions/${ref.replace('#/components/schemas/', '')}`;

/**
 * OpenAPI 3.0 schema objects to JSON Schema (draft-07) for ajv: `nullable` becomes a `null` type
 * (or an `anyOf` with null), `$ref`s point into one shared schema, annotations ajv does not know go.
 */
export function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const { nullable, example: _example, discriminator: _d, xml: _x, externalDocs: _e, ...rest } = node as Schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref' && typeof value === 'string') out.$ref = schemaRef(value);
    else if (key === 'properties') {
      out.properties = Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, toJsonSchema(v)]));
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) out[key] = toJsonSchema(value);
    else out[key] = value;
  }
  if (nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  // `{nullable: true}` alone is "anything, null included".
  return Object.keys(out).length === 0 ? out : { anyOf: [out, { type: 'null' }] };
}

/** The checks for one document. */
export function contractFor(doc: OpenApiDocument) {
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const definitions = Object.entries(doc.components?.schemas ?? {}).map(([name, schema]) => [name, toJsonSchema(schema)]);
  ajv.addSchema({ $id: DOC_ID, definitions: Object.fromEntries(definitions) });
  const validators: Validator[] = [];
  const validatorOf = (schema: Schema): Validator => {
    let compiled: ValidateFunction | undefined;
    const validator = () => (compiled ??= ajv.compile(schema));
    validators.push(validator);
    return validator;
  };

  const components = doc.components as { responses?: Record<string, Schema>; headers?: Record<string, Schema> } | undefined;
  const deref = <T>(node: unknown, kind: 'responses' | 'headers'): T => {
    const r = (node as { $ref?: string }).$ref;
    if (!r) return node as T;
    const target = components?.[kind]?.[r.replace(`#/components/${kind}/`, '')];
    if (!target) throw new Error(`unresolved ${r}`);
    return target as T;
  };

  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, { operationId?: string; responses?: Schema }>)) {
      if (!op?.responses) continue;
      const responses = new Map<string, ResponseCheck>();
      for (const [status, entry] of Object.entries(op.responses)) {
        const response = deref<{ headers?: Record<string, unknown>; content?: Record<string, { schema?: unknown }> }>(
          entry,
          'responses',
        );
        const headers = Object.entries(response.headers ?? {}).map(([name, h]) => {
          const header = deref<{ required?: boolean; schema?: Schema }>(h, 'headers');
          return {
            name,
            required: header.required === true,
            validate: validatorOf(toJsonSchema(header.schema ?? {}) as Schema),
            type: header.schema?.type,
          };
        });
        const content = response.content
          ? new Map(
              Object.entries(response.content).map(([media, m]) => [media, validatorOf(toJsonSchema(m.schema ?? {}) as Schema)]),
            )
          : undefined;
        responses.set(status, { headers, content });
      }
      operations.push({ id: op.operationId ?? `${method} ${template}`, method: method.toUpperCase(), template, responses });
    }
  }
  // Matched exactly as the gateway matches routes (its code, on the document's templates).
  const compiled = operations.map((o) => compileRoute({ method: o.method as HttpMethod, path: o.template } as Route));
  const byRoute = new Map(operations.map((o) => [`${o.method} ${o.template}`, o]));
  const errorBody = validatorOf({ $ref: schemaRef('#/components/schemas/Error') });

  /** The operation for a request, as API Gateway picks it (literal segments win over parameters). */
  function operationFor(method: string, path: string): Operation | undefined {
    const hit = matchRoute(compiled, method.toUpperCase(), pathOf(path));
    return hit && byRoute.get(`${hit.route.method} ${hit.route.path}`);
  }

  /** Every way `res` departs from the document; empty when it conforms. */
  function problems(method: string, path: string, res: ObservedResponse, options: { undeclaredRoute?: boolean } = {}): string[] {
    const op = operationFor(method, path);
    if (!op) {
      if (!options.undeclaredRoute) return [`${method} ${pathOf(path)} is not an operation of the document`];
      // Deliberately unknown routes: only the gateway's own 404 `{error}` is acceptable, or its 405
      // `{error}` whose `Allow` lists the methods the document has for the path.
      if (res.status === 405) {
        const allow = allowHeader(
          allowedMethods(
            operations.map((o) => ({ method: o.method, path: o.template })),
            pathOf(path),
          ),
        );
        if (!allow || res.headers.get('allow') !== allow)
          return [`a 405 with Allow ${res.headers.get('allow')}, not ${allow || '404'}`];
      } else if (res.status !== 404) return [`an undeclared route answered ${res.status}, not 404 or 405`];
      return bodyProblems(errorBody(), parseJson(res.text));
    }
    const response = op.responses.get(String(res.status)) ?? op.responses.get('default');
    if (!response) {
      return [`${op.id} answered ${res.status}, which it does not declare (declared: ${[...op.responses.keys()].join(', ')})`];
    }
    const found: string[] = [];
    for (const header of response.headers) {
      const value = res.headers.get(header.name);
      if (value === null) {
        if (header.required) found.push(`header ${header.name} is missing`);
        continue;
      }
      const typed =
        header.type === 'integer' || header.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
      const validate = header.validate();
      if (!validate(typed)) found.push(`header ${header.name}: ${JSON.stringify(value)} ${ajv.errorsText(validate.errors)}`);
    }
    if (!response.content) {
      if (res.text !== '') found.push(`declares no body, but got ${JSON.stringify(res.text.slice(0, 200))}`);
      return found.map((p) => `${op.id} ${res.status}: ${p}`);
    }
    const media = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const validate = response.content.get(media);
    if (!validate) {
      found.push(`Content-Type ${JSON.stringify(media)} is not declared (declared: ${[...response.content.keys()].join(', ')})`);
    } else {
      const json = media === 'application/json' || media.endsWith('+json');
      found.push(...bodyProblems(validate(), json ? parseJson(res.text) : res.text));
    }
    return found.map((p) => `${op.id} ${res.status}: ${p}`);
  }

  /** Compiles every validator of the document (ajv in strict mode refuses a schema it cannot hold); how many. */
  function compileAll(): number {
    for (const validator of validators) validator();
    return validators.length;
  }

  return { operations, operationFor, problems, compileAll };
}

/** The path as the gateway sees it (fetch normalises it the same way): no query, percent-encoded. */
const pathOf = (path: string) => new URL(path, 'http://localhost').pathname;

const NOT_JSON = Symbol('not JSON');
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

function bodyProblems(validate: ValidateFunction, body: unknown): string[] {
  if (body === NOT_JSON) return ['the body is not JSON'];
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => {
    const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
    return `body${e.instancePath} ${e.message ?? e.keyword}${extra}`;
  });
}

/**
 * The contract of the service: the document generated from the route table as it is now (the
 * committed copy that `/api-docs` serves is held equal to it by `test/unit/openapi-document.test.ts`),
 * generated once for the run by the global setup (test/support/global-setup.ts) rather than in
 * every test file (loading the generator and generating cost each file about half a second of CPU).
 * Its validators are kept by the worker for the files it runs after (test/support/fresh-file.ts):
 * they are the document's alone, the same for every file.
 */
export function serviceContract(): ReturnType<typeof contractFor> {
  const kept = globalThis as { __serviceContract?: ReturnType<typeof contractFor> };
  kept.__serviceContract ??= contractFor(inject('openApiDocument'));
  return kept.__serviceContract;
}

/**
 * For a test that deliberately requests routes the API does not have: its responses to undeclared
 * method/path pairs are accepted if they are the gateway's 404 `{error}`, or its 405 with `Allow`. Reset before each test
 * (test/support/contract-setup.ts).
 */
export function allowUndeclaredRoutes(): void {
  undeclaredRoutes.allowed = true;
}

/** Throws a ContractViolation naming every problem of `res`. */
export function assertConforms(method: string, path: string, res: ObservedResponse): void {
  const found = serviceContract().problems(method, path, res, { undeclaredRoute: undeclaredRoutes.allowed });
  if (found.length) {
    throw new ContractViolation(`${method} ${path} breaks the OpenAPI contract:\n  - ${found.join('\n  - ')}`);
  }
}

/**
 * The OpenAPI 3 document of the API, generated from THE route table and the zod schemas the
 * handlers validate with. Nothing here is specific to one route: a new row in `lib/routes.ts`
 * appears in the document with its parameters, body, responses and headers.
 *
 * Build time only (zod-to-openapi is heavy): `npm run openapi` writes the result to
 * `lib/openapi/openapi.v1.yaml` (reviewed in diffs) and `lib/openapi/served.json` (what
 * `functions/api-docs.ts` serves); a test fails when either is stale.
 */
import { OpenAPIRegistry, OpenApiGeneratorV3, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import * as z from 'zod/mini';
import { meta } from '../../lib/schemas/zod.ts';
import { forGenerator, objectForGenerator } from './mini-compat.ts';
import { OAUTH_REGISTRATIONS_PER_ADDRESS } from '../../lib/config.ts';
import { RATE_LIMIT } from '../../lib/model/ratelimit.ts';
import { commonErrors, routes as allRoutes, type Route } from '../../lib/routes.ts';
import { ErrorBody, ErrorsBody, PaginationQuery } from '../../lib/schemas/common.ts';
import { pathParam } from '../../lib/schemas/path-params.ts';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV3['generateDocument']>;
type Schema = Record<string, unknown>;
type ResponseEntry = RouteConfig['responses'][string];

const securitySchemes = {
  bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API token: `Authorization: Bearer <token>`.' },
  apiToken: { type: 'apiKey', in: 'header', name: 'X-API-Token', description: 'The API token: `X-API-Token: <token>`.' },
} as const;

/** Either header satisfies an authenticated operation (if both are sent they must carry the same token). */
const authenticated = Object.keys(securitySchemes).map((name) => ({ [name]: [] as string[] }));

const integer = (description: string, extra: Schema = {}) => ({ description, schema: { type: 'integer', ...extra } }) as const;

/** Response headers, by name; `required` is set where they are used. */
const headers = {
  'X-RateLimit-Limit': integer(`Requests the token may make in a burst (the bucket holds ${RATE_LIMIT.capacity}).`, {
    example: RATE_LIMIT.capacity,
  }),
  'X-RateLimit-Remaining': integer('Requests left in the bucket after this one.', { minimum: 0 }),
  'X-RateLimit-Reset': integer('Unix time (seconds) at which the bucket is full again.'),
  'Retry-After': integer('Whole seconds to wait before retrying.', { minimum: 1 }),
  Link: {
    description:
      'RFC 8288 links `first`, `prev`, `next`, `last`; `next` carries an opaque `cursor` to follow as is, and is present exactly when more items follow. Page numbers (`page`, `last`) count `per_page` items; a page cut short by the 5 MiB response byte budget is continued by its `next` cursor, not by the next page number.',
    schema: { type: 'string' },
  },
  'X-Total-Count': integer('Items in the whole collection.', { minimum: 0 }),
  'X-Page': integer('This page (from 1).', { minimum: 1 }),
  ETag: {
    description:
      'Strong entity tag of this answer: changes whenever what it shows changes. Send it back in `If-None-Match` (a GET: 304 while unchanged) or `If-Match` (a write: 412 if the resource changed since).',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      '`no-store`: the answer carries a token or a secret, shown once; no cache may keep it. A resource answered with its secret (a webhook) has the ETag of the resource as a GET shows it, secret left out; a token answer has none.',
    schema: { type: 'string', example: 'no-store' },
  },
  'X-Per-Page': integer(
    'Items per page (after clamping to 100); fewer when the page was cut short to stay within the response byte budget: then it is the number of items returned, and `next` continues right after the last one.',
    { minimum: 1, maximum: 100 },
  ),
} as const;
type HeaderName = keyof typeof headers;

const rateLimitHeaders: HeaderName[] = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const pageHeaders: HeaderName[] = ['Link', 'X-Total-Count', 'X-Page', 'X-Per-Page'];

const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const optionalHeaders = (names: HeaderName[], why: string) =>
  Object.fromEntries(names.map((n) => [n, { ...headers[n], description: `${headers[n].description} ${why}`, required: false }]));

const ref = (kind: 'schemas' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const jsonOf = (schema: Schema) => ({ 'application/json': { schema } });

/** What each status means, and the name of its shared response. */
const statusText: Record<number, { name: string; description: string }> = {
  304: {
    name: 'NotModified',
    description: 'Not modified since the `ETag` given in `If-None-Match`: no body, the headers of a 200.',
  },
  412: {
    name: 'PreconditionFailed',
    description:
      'The resource changed since the `ETag` given in `If-Match`, or the header lists `*` beside tags: nothing was written. (A resource that is gone is 404.)',
  },
  400: { name: 'BadRequest', description: 'Malformed request (e.g. a body that is not valid JSON).' },
  401: { name: 'Unauthorized', description: 'Missing, invalid, revoked or regenerated API token.' },
  403: {
    name: 'Forbidden',
    description:
      'Authenticated, but not allowed to do this; on `/mcp`, a request from a browser origin (`Origin`) or to a host (`Host`) it does not allow.',
  },
  404: { name: 'NotFound', description: "No such resource in the caller's organisation (non-integer ids included)." },
  405: { name: 'MethodNotAllowed', description: 'This method is not offered here.' },
  406: { name: 'NotAcceptable', description: 'The `Accept` header names no media type this operation answers with.' },
  409: {
    name: 'Conflict',
    description: 'A request with the same `Idempotency-Key` is still being processed; retry after `Retry-After` seconds.',
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The body is larger than 1 MiB (past 6 MB API Gateway refuses it before the service sees it).',
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'A body whose `Content-Type` is not JSON, or names a charset other than UTF-8 (`charset=utf-8` or none).',
  },
  429: {
    name: 'TooManyRequests',
    description: `Rate limit exceeded (${RATE_LIMIT.capacity} requests per minute per token); retry after \`Retry-After\` seconds.`,
  },
  500: { name: 'InternalError', description: 'Unexpected failure; nothing internal is disclosed.' },
  503: { name: 'ServiceUnavailable', description: 'Busy: nothing was applied; retry after `Retry-After` seconds.' },
};

/** 422 bodies: `{errors}` for validation, `{error}` for a refused transition. */
const unprocessable = {
  errors: {
    name: 'ValidationFailed',
    description:
      'Validation failed: one message per problem (a query parameter the operation does not list, a value out of range, a body field).',
    schema: ref('schemas', 'ValidationErrors'),
  },
  error: {
    name: 'TransitionRefused',
    description: 'The change is not allowed in the current state.',
    schema: ref('schemas', 'Error'),
  },
  either: {
    name: 'Unprocessable',
    description:
      'Validation failed (`{errors}`; a query parameter the operation does not list, too), or the change is not allowed in the current state (`{error}`).',
    schema: { oneOf: [ref('schemas', 'ValidationErrors'), ref('schemas', 'Error')] },
  },
} as const;

/**
 * The 422 body a route answers: `{errors}`, since every route refuses a query parameter it does not
 * list (lib/http/strict-query.ts), or either shape where the row's own 422 is `{error}` (a refused transition).
 */
function unprocessableOf(route: Route) {
  const declared = route.operation.unprocessable ?? 'errors';
  return unprocessable[declared === 'error' ? 'either' : declared];
}

/**
 * A non-success response. Authenticated routes share named components (they carry the rate-limit
 * headers; the common 401/429/500/503 only when the request got past the token check, since the
 * gateway or authorizer may answer them first); unauthenticated routes get them inline.
 */
function otherResponse(status: number, route: Route, components: Map<string, ResponseConfig>): ResponseEntry {
  if (status === 302) return redirectResponse;
  const own = route.operation.errorBody;
  if (own && status !== 422) {
    // The authorization server's refusals: OAuth's `{error, error_description}` or the page's HTML.
    return {
      description: oauthStatusText[status] ?? `HTTP ${status}.`,
      content: { [own.mediaType ?? 'application/json']: { schema: forGenerator(own.schema) } },
      ...(status === 429 ? { headers: headerRefs(['Retry-After']) } : {}),
    };
  }
  const conflict = route.operation.conflict;
  if (status === 409 && conflict) {
    // The row's own 409 body (a revert's fields changed since), or the `{error}` of a sprint being
    // completed, which alone carries Retry-After; or a plain `{error}` that waiting does not change (a handle taken).
    const schema = conflict.schema === ErrorBody ? ref('schemas', 'Error') : forGenerator(z.union([conflict.schema, ErrorBody]));
    return {
      description: conflict.description,
      content: { 'application/json': { schema } },
      headers: {
        ...(conflict.retryAfter ? optionalHeaders(['Retry-After'], conflict.retryAfter) : {}),
        ...headerRefs(rateLimitHeaders),
      },
    };
  }
  const notFound = route.operation.notFound;
  if (status === 404 && notFound) {
    // The row's own 404 body (an issue in another list says where), or the plain `{error}`.
    return {
      description: notFound.description,
      content: { 'application/json': { schema: forGenerator(z.union([notFound.schema, ErrorBody])) } },
      headers: headerRefs(rateLimitHeaders),
    };
  }
  const special = status === 422 ? unprocessableOf(route) : undefined;
  const text = special ?? statusText[status] ?? { name: `Status${status}`, description: `HTTP ${status}.` };
  // A 413 may be API Gateway's own (a body over its 10 MB, or over Lambda's 6 MB invocation limit).
  const common = route.auth && (commonErrors.includes(status) || status === 413);
  const retry: HeaderName[] = status === 409 || status === 429 || status === 503 ? ['Retry-After'] : [];
  const response: ResponseConfig = {
    description: text.description,
    ...(status === 304 ? {} : { content: jsonOf(special?.schema ?? ref('schemas', 'Error')) }),
    headers: {
      ...headerRefs(retry),
      ...(status === 304 ? headerRefs(['ETag']) : {}),
      ...(!route.auth
        ? {}
        : common
          ? optionalHeaders(rateLimitHeaders, 'Absent when the gateway or the token check answered.')
          : headerRefs(rateLimitHeaders)),
    },
  };
  if (!route.auth) return response;
  components.set(text.name, response);
  return ref('responses', text.name);
}

/** What the authorization server's refusals mean. */
const oauthStatusText: Record<number, string> = {
  400: 'Refused (OAuth error, or the page saying why: an unknown client or redirect URI).',
  401: 'The API token on the page is unknown or revoked: the page again, saying so.',
  403: 'The form did not come from this page (CSRF check): the page again.',
  429: `Too many requests (the API token on the page; the registrations of one source address, ${OAUTH_REGISTRATIONS_PER_ADDRESS} an hour): retry after \`Retry-After\` seconds.`,
};

/** A redirect back to the OAuth client. */
const redirectResponse: ResponseConfig = {
  description: "Back to the client's redirect URI, with `code` or `error`, and `state` and `iss`.",
  headers: { Location: { description: 'The redirect URI with its parameters.', schema: { type: 'string' } } },
};

/** A resource answered with a secret (a webhook with its signing secret) has an `id`; a token answer has none. */
const isResource = (schema: z.ZodMiniType) => 'id' in ((schema as { shape?: Record<string, unknown> }).shape ?? {});

/** A row's other success: 202 with no body, or with its schema and where to follow the work (`Location`). */
function acceptedResponse(accepted: NonNullable<Route['operation']['accepted']>): ResponseConfig {
  if (typeof accepted === 'string') return { description: accepted, headers: headerRefs(rateLimitHeaders) };
  return {
    description: accepted.description,
    content: { 'application/json': { schema: forGenerator(accepted.schema) } },
    headers: {
      Location: { description: 'Where the work shows its progress.', schema: { type: 'string' } },
      ...headerRefs(rateLimitHeaders),
    },
  };
}

function successResponse(route: Route): ResponseConfig {
  const { success } = route.operation;
  if (success.status === 302 && route.auth) {
    // An authenticated redirect (to a pre-signed download URL): the rate-limit headers as on every answer.
    return {
      description: success.description,
      headers: {
        Location: { description: 'Where to go (a URL valid for minutes).', schema: { type: 'string', format: 'uri' } },
        ...headerRefs(rateLimitHeaders),
      },
    };
  }
  if (success.status === 302) return redirectResponse;
  if (success.status === 405) {
    // What the row always answers: no success at all (GET and DELETE /mcp).
    return {
      description: success.description,
      content: jsonOf(ref('schemas', 'Error')),
      headers: {
        Allow: { description: 'The methods this path offers.', schema: { type: 'string', example: 'POST' } },
        ...headerRefs(rateLimitHeaders),
      },
    };
  }
  const schema = success.schema && (success.list ? z.array(success.schema) : success.schema);
  return {
    description: success.description,
    ...(schema ? { content: { [success.mediaType ?? 'application/json']: { schema: forGenerator(schema) } } } : {}),
    headers: {
      ...headerRefs([
        ...(route.auth ? rateLimitHeaders : []),
        ...(success.list ? pageHeaders : []),
        ...(route.operation.secret ? (['Cache-Control'] as HeaderName[]) : []),
        ...(schema && (route.auth || route.operation.errors.includes(304)) && (!route.operation.secret || isResource(schema))
          ? (['ETag'] as HeaderName[])
          : []),
      ]),
      ...(route.operation.idempotent ? { 'Idempotent-Replayed': replayedHeader } : {}),
    },
  };
}

const replayedHeader = {
  description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.',
  required: false,
  schema: { type: 'string' as const },
};

/** `Idempotency-Key` on the POST routes that honour it (`lib/http/idempotency.ts`). */
const idempotencyHeader = z.object({
  'Idempotency-Key': meta(z.optional(z.string().check(z.regex(/^[\x21-\x7e]{1,255}$/))), {
    param: {
      description:
        'Makes a retry safe for 24 hours: the same key with the same body replays the first successful response ' +
        '(`Idempotent-Replayed: true`) without acting twice; with another body it is 422. Scoped to the calling ' +
        'account and to this path. 1 to 255 visible ASCII characters, e.g. a UUID.',
    },
  }),
});

/** `If-None-Match` on the GETs that answer 304, `If-Match` on the conditional writes (lib/http/conditional.ts). */
const ifNoneMatchHeader = z.object({
  'If-None-Match': meta(z.optional(z.string()), {
    param: { description: 'ETags of representations the client holds: 304, no body, while one is current.' },
  }),
});
const ifMatchHeader = z.object({
  'If-Match': meta(z.optional(z.string()), {
    param: {
      description:
        'ETags the client last saw (or `*`: the resource exists): the write applies only if the resource is still at one of them, else 412 and nothing is written.',
    },
  }),
});

function requestHeaders(route: Route) {
  const parts = [
    ...(route.operation.headers ? [route.operation.headers] : []),
    ...(route.operation.idempotent ? [idempotencyHeader] : []),
    ...(route.method === 'GET' && route.operation.errors.includes(304) ? [ifNoneMatchHeader] : []),
    ...(route.operation.conditional ? [ifMatchHeader] : []),
  ];
  if (parts.length === 0) return undefined;
  return parts.reduce((all, part) => z.extend(all, part.shape) as typeof all);
}

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\+?\}/g)].map((m) => m[1] ?? '');

const pageQuery = z.object({
  page: meta(PaginationQuery.shape.page, { param: { description: 'Page number, from 1.' } }),
  per_page: meta(PaginationQuery.shape.per_page, {
    param: { description: 'Items per page, 1 to 100; larger values are clamped to 100.' },
  }),
  cursor: meta(PaginationQuery.shape.cursor, {
    param: { description: 'Opaque position carried by the `next` link; keeps deep pages as cheap as the first.' },
  }),
});

function routeConfig(route: Route, components: Map<string, ResponseConfig>): RouteConfig {
  const op = route.operation;
  const names = pathParams(route.path);
  const query = op.success.list ? (op.query ? z.extend(pageQuery, op.query.shape) : pageQuery) : op.query;
  const statuses = [...new Set([...op.errors, ...(route.auth ? commonErrors : [])])].sort((a, b) => a - b);
  const headerParams = requestHeaders(route);
  return {
    method: route.method.toLowerCase() as RouteConfig['method'],
    path: route.path,
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: route.auth ? authenticated : [],
    request: {
      ...(names.length ? { params: objectForGenerator(z.object(Object.fromEntries(names.map((n) => [n, pathParam(n)])))) } : {}),
      ...(query ? { query: objectForGenerator(query) } : {}),
      ...(headerParams ? { headers: objectForGenerator(headerParams) } : {}),
      ...(op.body
        ? {
            body: {
              required: !op.optionalBody,
              content: op.bodies
                ? Object.fromEntries(Object.entries(op.bodies).map(([type, schema]) => [type, { schema: forGenerator(schema) }]))
                : { [op.bodyMediaType ?? 'application/json']: { schema: forGenerator(op.body) } },
            },
          }
        : {}),
    },
    responses: {
      [op.success.status]: successResponse(route),
      ...(op.accepted ? { 202: acceptedResponse(op.accepted) } : {}),
      ...Object.fromEntries(statuses.map((s) => [s, otherResponse(s, route, components)])),
    },
  };
}

/** Builds the whole document for `routes` (all of `lib/routes.ts` unless given). */
export function buildOpenApiDocument(routes: readonly Route[] = allRoutes): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  const responses = new Map<string, ResponseConfig>();
  for (const route of routes) registry.registerPath(routeConfig(route, responses));
  for (const [name, scheme] of Object.entries(securitySchemes)) registry.registerComponent('securitySchemes', name, scheme);
  for (const [name, header] of Object.entries(headers))
    registry.registerComponent('headers', name, { ...header, required: true });
  // The shared error responses reference these by their ids; zod-to-openapi only emits what it sees.
  const errorSchemas = [ErrorBody, ErrorsBody].map((schema) => ({ type: 'schema' as const, schema: forGenerator(schema) }));
  const generator = new OpenApiGeneratorV3([...registry.definitions, ...errorSchemas], { sortComponents: 'alphabetically' });
  const doc = generator.generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'Sprint Ticketing Service',
      version: 'v1',
      description: [
        'Projects, sprints, issues (tickets) and comments over JSON.',
        '',
        'Authenticate every request with the API token, as `Authorization: Bearer <token>` or `X-API-Token: <token>`.',
        'Writes wrap their attributes in an object named after the resource (`{"project": {...}}`). A key a body does not take is 422, ' +
          'naming it and the key it most likely meant (a typo never acts); the read-only fields of the resource (`readOnly`) may be sent back, and are ignored.',
        'Errors are `{"error": "..."}`, or `{"errors": ["...", ...]}` for validation failures (422).',
        'A query parameter an operation does not list is 422 on every operation (names are case-sensitive): a misspelt filter never answers everything.',
        `Each token may make ${RATE_LIMIT.capacity} requests per minute (\`X-RateLimit-*\` headers; 429 with \`Retry-After\`).`,
        'Collections take `page` and `per_page` and answer with `Link`, `X-Total-Count`, `X-Page` and `X-Per-Page`.',
      ].join('\n'),
    },
    servers: [
      {
        url: '{protocol}://{host}',
        description: 'The service; all paths are absolute (`/api/v1/...`).',
        variables: {
          protocol: { enum: ['https', 'http'], default: 'https' },
          host: {
            default: 'localhost:3000',
            description: 'Host (and port) of the deployment; `npm start` serves localhost:3000.',
          },
        },
      },
    ],
    tags: [...new Set(routes.map((r) => r.operation.tag))].map((name) => ({ name, description: tagDescriptions[name] ?? '' })),
  });
  // Response components go in afterwards (they hold no zod). A plain JSON tree: no shared objects,
  // so that closing a response object cannot close a request one, and YAML gets no anchors.
  const { parameters: _none, ...components } = doc.components ?? {};
  const plain = JSON.parse(
    JSON.stringify({ ...doc, components: { ...components, responses: sortedObject(Object.fromEntries(responses)) } }),
  ) as OpenApiDocument;
  closeResponseObjects(plain);
  typedNullables(plain);
  return plain;
}

/** What each tag of operations holds (the reference page's sections). */
const tagDescriptions: Record<string, string> = {
  Documentation: 'This document and the interactive reference that renders it (no token needed).',
  Accounts: 'The caller, the accounts of its organisation, and API tokens.',
  Organisation: "The caller's organisation and its settings (the trash's retention period; admins change them).",
  Issues: "Issues of a sprint, an organisation's search, and an issue by its key.",
  Imports: 'Importing issues from Jira (CSV) and GitHub (JSON), and exporting an organisation.',
  Projects: 'Projects: the top of the hierarchy, each with its issue prefix.',
  Labels: "A project's label catalogue.",
  'Custom fields':
    "A project's own typed fields, which issues carry as `custom_fields` and searches name as `cf.<key>` (docs/custom-fields.md).",
  States: "A project's workflow: its states, each in one of five fixed categories (docs/workflows.md).",
  Comments: 'Comments on issues.',
  Sprints: 'Sprints, their transitions (activate, complete) and their outcomes (report, velocity, burndown).',
  Relations: 'Relations between issues (blocks, relates to, duplicates).',
  Attachments:
    'Files on issues and their comments, stored in S3: declared, uploaded with a pre-signed form, completed, downloaded by pre-signed URL.',
  Backlog: "A project's backlog: the issues in no sprint.",
  Activity: 'The history of changes of an issue or a sprint, and the revert of one change of an issue.',
  Webhooks: 'Signed webhooks: endpoints, their deliveries and their secrets (admins only).',
  GitHub:
    "A project's GitHub repository (admins connect it), the public receiver of GitHub's signed deliveries, and the pull requests, branches and commits linked to an issue (docs/github.md).",
  Notifications:
    "Each account's inbox (assigned, mentioned, watched issues changed, followed queries), the issues it watches and the queries it follows (docs/notifications.md).",
  Trash:
    "Deleted items kept for the organisation's retention period: listed, restored whole with the same id, or deleted for good (admins only).",
  OAuth: "The OAuth 2.1 authorization server of /mcp (OAuth's own errors, not the API's).",
  MCP: 'The Model Context Protocol server (Streamable HTTP, stateless, JSON answers).',
};

/**
 * OpenAPI 3.0 allows `nullable` only beside a `type`, and zod-to-openapi writes a nullable union
 * or a nullable "anything" without one (`anyOf: [..., {nullable: true}]`, `{nullable: true}`),
 * which a validator may read as "anything" or as an error. Rewritten as 3.0 says: the null branch
 * of a union becomes `nullable` on each typed branch, or, beside references (which take no
 * sibling keys), a typed branch that takes null alone; a nullable "anything" is plain "anything"
 * (it takes null already).
 */
function typedNullables(doc: OpenApiDocument) {
  const isBareNull = (s: unknown) =>
    !!s &&
    typeof s === 'object' &&
    Object.keys(s).every((k) => k === 'nullable' || k === 'description') &&
    (s as Schema).nullable === true;
  const typeOfRef = (ref: Schema) => {
    const name = String(ref.$ref).replace('#/components/schemas/', '');
    const type = (doc.components?.schemas?.[name] as Schema | undefined)?.type;
    if (typeof type !== 'string') throw new Error(`a nullable reference to ${name}, which has no type`);
    return type;
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const s = node as Schema;
    if (Array.isArray(s.oneOf) && s.oneOf.some(isBareNull)) throw new Error('a nullable oneOf cannot be written in OpenAPI 3.0');
    if (Array.isArray(s.anyOf) && s.anyOf.some(isBareNull)) {
      const branches = (s.anyOf as Schema[]).filter((b) => !isBareNull(b));
      const refs = branches.filter((b) => typeof b.$ref === 'string');
      if (refs.length > 0) {
        // A reference takes no `nullable` beside it (and one under `allOf` would still refuse null):
        // the null branch becomes a typed branch that takes null alone.
        s.anyOf = [...branches, { type: typeOfRef(refs[0]!), nullable: true, enum: [null] }];
      } else {
        if (branches.some((b) => typeof b.type !== 'string')) throw new Error('a nullable union of untyped branches');
        if (branches.length === 1) {
          delete s.anyOf;
          Object.assign(s, branches[0], { nullable: true });
        } else s.anyOf = branches.map((b) => ({ ...b, nullable: true }));
      }
    }
    if (s.nullable === true && s.type === undefined && !s.anyOf && !s.oneOf && !s.allOf && !s.$ref) delete s.nullable;
    if (
      s.additionalProperties !== undefined &&
      typeof s.additionalProperties === 'object' &&
      Object.keys(s.additionalProperties as Schema).length === 0
    ) {
      s.additionalProperties = true;
    }
    Object.values(s).forEach(visit);
  };
  visit(doc);
}

/**
 * The document as served: YAML (lines never folded, so diffs stay small; written so that YAML 1.1
 * readers too see timestamps and yes/no as the strings they are), compact JSON, their ETags.
 */
export function renderOpenApi(doc: OpenApiDocument = buildOpenApiDocument()) {
  const yaml = stringify(doc, { lineWidth: 0, version: '1.1' });
  const json = JSON.stringify(doc);
  const etag = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;
  return { yaml, json, etags: { yaml: etag(yaml), json: etag(json) } };
}

function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * zod objects strip unknown keys, so their schemas stay open by default. The service never sends
 * a field its schema does not name: every object only ever answered (never accepted as input) is
 * closed with `additionalProperties: false`, so a renamed or extra field breaks the contract.
 * Request bodies are closed by their own schemas (lib/schemas/common.ts: `closed`); an object
 * used in requests and answers alike is left as its schema says, as are `allOf` parts.
 */
function closeResponseObjects(doc: OpenApiDocument) {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Schema>;
  const inRequests = new Set<Schema>();
  const inResponses = new Set<Schema>();
  const allOfParts = new Set<Schema>();
  const walk = (node: unknown, seen: Set<Schema>) => {
    if (!node || typeof node !== 'object') return;
    const s = node as Schema;
    if (typeof s.$ref === 'string') {
      const target = schemas[s.$ref.replace('#/components/schemas/', '')];
      if (target && !seen.has(target)) walk(target, seen);
      return;
    }
    if (seen.has(s)) return;
    seen.add(s);
    for (const part of (s.allOf as Schema[] | undefined) ?? []) allOfParts.add(resolve(part, schemas));
    for (const key of ['items', 'additionalProperties', 'not']) walk(s[key], seen);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const sub of (s[key] as unknown[] | undefined) ?? []) walk(sub, seen);
    for (const sub of Object.values((s.properties as Record<string, unknown> | undefined) ?? {})) walk(sub, seen);
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Schema>)) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const body = (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content ?? {};
      for (const media of Object.values(body)) walk(media.schema, inRequests);
      for (const p of (op.parameters as { schema?: unknown }[] | undefined) ?? []) walk(p.schema, inRequests);
      for (const r of Object.values(op.responses as Record<string, { content?: Record<string, { schema?: unknown }> }>)) {
        for (const media of Object.values(r.content ?? {})) walk(media.schema, inResponses);
      }
    }
  }
  for (const r of Object.values(
    (doc.components?.responses ?? {}) as Record<string, { content?: Record<string, { schema?: unknown }> }>,
  )) {
    for (const media of Object.values(r.content ?? {})) walk(media.schema, inResponses);
  }
  for (const s of inResponses) {
    if (inRequests.has(s) || allOfParts.has(s)) continue;
    if (s.type === 'object' && s.properties && s.additionalProperties === undefined) s.additionalProperties = false;
  }
}

const resolve = (s: Schema, schemas: Record<string, Schema>) =>
  typeof s.$ref === 'string' ? (schemas[s.$ref.replace('#/components/schemas/', '')] ?? s) : s;

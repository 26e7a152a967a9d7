import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { isCalendarDate } from '../vocabulary/values.ts';
import { unknownKeysMessage } from './validate.ts';

/** Input limits (docs/api.md: Validation limits), in one place. */
export const limits = {
  name: 255,
  description: 100_000,
  commentBody: 65_535,
  url: 2048,
  storyPoints: 1000,
  email: 254,
  /** An account's handle (lib/model/handles.ts), GitHub's length for a login. */
  handle: 39,
  /**
   * Descriptions and comment bodies are also bounded in UTF-8 bytes: an item and its entry in the
   * LSI1 index (projection ALL) together must stay within DynamoDB's 400 KB, so one item's text
   * cannot pass about 200 KB, and 100,000 three-byte characters would be 300 KB. 150,000 bytes
   * leaves room for the other attributes (docs/limits.md).
   */
  textBytes: 150_000,
} as const;

/** The UTF-8 byte bound of a long text (`limits.textBytes`), as a zod refinement. */
export const withinTextBytes = [
  (v: string) => Buffer.byteLength(v, 'utf8') <= limits.textBytes,
  { error: `is too long (maximum is ${limits.textBytes.toLocaleString('en')} bytes of UTF-8)` },
] as const;

/** Readable "is required" / "must be a string" messages instead of zod's defaults. */
const typed = (kind: string) => ({
  error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : `must be ${kind}`),
});

/**
 * Characters free text may not hold, because the tools downstream of the API choke on them
 * (terminals, log lines, CSV exports, C strings: NUL truncates, ESC drives the terminal, a bare CR
 * overwrites a log line): every C0 control character but tab and line feed. Multi-line text
 * (descriptions, comment bodies) also keeps the CR of a CRLF line ending, which browsers' text
 * areas and Windows clients send; a CR alone is refused there too.
 */
// Matching control characters is the point of these patterns.
/* eslint-disable no-control-regex */
const controlCharacters = {
  line: /[\u0000-\u0008\u000B-\u001F]/,
  multiline: /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\r(?!\n)/,
} as const;
/* eslint-enable no-control-regex */

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const unpairedSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const textMessages = {
  control: 'must not contain control characters (other than tab and newline)',
  surrogate: 'must be valid Unicode text (it holds an unpaired surrogate)',
} as const;

/**
 * Free text as downstream tools can take it: no control character but tab and newline (see
 * `controlCharacters`), and well-formed UTF-16 (JSON can carry a lone surrogate as `\ud800`, which
 * no UTF-8 encoder can write).
 */
export const plainText = (
  schema: z.ZodMiniString,
  kind: keyof typeof controlCharacters,
  stated: { nonBlank?: boolean; without?: string } = {},
): z.ZodMiniString =>
  meta(
    schema
      .check(z.refine((v) => !controlCharacters[kind].test(v), { error: textMessages.control, abort: true }))
      .check(z.refine((v) => !unpairedSurrogate.test(v), { error: textMessages.surrogate })),
    { pattern: textPattern(kind, stated) },
  );

/**
 * The same rules as a JSON Schema pattern, for the OpenAPI document: the characters `plainText`
 * takes (surrogates only in pairs; a CR only before a LF in multi-line text), `nonBlank` when the
 * field refuses one that is blank once trimmed, `without` characters a field refuses besides.
 */
export function textPattern(kind: keyof typeof controlCharacters, stated: { nonBlank?: boolean; without?: string } = {}): string {
  const excluded = `\\u0000-\\u0008\\u000B-\\u001F\\uD800-\\uDFFF${stated.without ?? ''}`;
  const pair = '[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]';
  const unit = `[^${excluded}]|${pair}${kind === 'multiline' ? '|\\r\\n' : ''}`;
  return `^${stated.nonBlank ? '(?=[\\s\\S]*\\S)' : ''}(?:${unit})*$`;
}

/** A required name/title: trimmed, 1..255 characters, not blank, plain text on one line or more. */
export const nameField = () =>
  plainText(
    z
      .string(typed('a string'))
      .check(z.trim())
      .check(z.minLength(1, { error: "can't be blank" }))
      .check(z.maxLength(limits.name, { error: `is too long (maximum is ${limits.name} characters)` })),
    'line',
    { nonBlank: true },
  );

export const descriptionField = () =>
  z.nullable(
    plainText(
      z
        .string(typed('a string or null'))
        .check(z.maxLength(limits.description, { error: `is too long (maximum is ${limits.description} characters)` }))
        .check(z.refine(...withinTextBytes)),
      'multiline',
    ),
  );

/** An http(s) URL as the document states it: a host name, a port of at most 4 digits, a path with no space (a subset of what `isHttpUrl` takes). */
// Labels of letters and digits joined by single hyphens (no `xn--`, which must be valid punycode);
// the last one starts with a letter (a numeric last label makes the URL parser read an IPv4 address).
const urlHost = '(?:[A-Za-z0-9](?:-?[A-Za-z0-9]){0,40}\\.)*[A-Za-z](?:-?[A-Za-z0-9]){0,40}';
const urlRest = "(?::[1-9]\\d{0,3})?(?:[/?][A-Za-z0-9._~%!$&'()*+,;=:@/?-]*)?";
export const httpUrlPattern = `^[hH][tT][tT][pP][sS]?://${urlHost}${urlRest}$`;
/** The same for a redirect URI of an OAuth client: https, or http on a loopback address; no fragment, no user. */
export const redirectUriPattern = `^(?:https://${urlHost}|http://(?:127\\.0\\.0\\.1|\\[::1\\]))${urlRest}$`;

export const urlField = () =>
  z.nullable(
    meta(
      z
        .string(typed('a string or null'))
        .check(z.maxLength(limits.url, { error: `is too long (maximum is ${limits.url} characters)` }))
        .check(z.refine((v) => isHttpUrl(v), { error: 'must be an http(s) URL' })),
      { format: 'uri', pattern: httpUrlPattern },
    ),
  );

function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/** A positive integer id sent in a body (assignee_id, sprint_lead_id...). */
export const idField = () =>
  z
    .number(typed('an integer'))
    .check(z.int({ error: 'must be an integer' }))
    .check(z.minimum(1, { error: 'must be a positive integer' }))
    .check(z.maximum(Number.MAX_SAFE_INTEGER, { error: 'is out of range' }));

/** ISO 8601 UTC with milliseconds, as every response carries it. */
export const dateTime = () => meta(z.string(), { format: 'date-time', example: '2026-11-21T09:30:00.000Z' });

/** A real calendar date, YYYY-MM-DD. */
export const dateField = () =>
  meta(z.string(typed('a date (YYYY-MM-DD)')).check(z.refine(isCalendarDate, { error: 'must be a real date (YYYY-MM-DD)' })), {
    format: 'date',
    example: '2026-11-21',
  });

export { isCalendarDate };

/**
 * The error of a closed object (`closed`, `wrapped`): each key it does not know is named, with the
 * known key it most likely meant (lib/schemas/validate.ts); otherwise `otherwise`'s message. The
 * known keys are read from the object that refused them, so that an `extend`ed one names its own.
 */
const closedError =
  (readOnly: ReadonlySet<string>, otherwise: (input: unknown) => string, naming: Naming = {}) =>
  (iss: z.core.$ZodRawIssue): string => {
    if (iss.code === 'unrecognized_keys') {
      const shape = (iss.inst as z.ZodMiniObject | undefined)?._zod.def.shape ?? {};
      const known = Object.keys(shape).filter((k) => !readOnly.has(k));
      // A body's messages get their place from `issueMessages`; an MCP tool's name its own.
      return unknownKeysMessage(naming.root, iss.keys, known, naming.noun);
    }
    return otherwise(iss.input);
  };

/** How the messages of a closed object name it (an MCP tool's name; a body's are placed by `issueMessages`) and its keys (`key`; `argument`). */
interface Naming {
  root?: string;
  noun?: string;
}

/** A field of the resource's answer that a write body accepts and ignores: any value, never stored. */
const readOnlyField = () =>
  meta(z.optional(z.unknown()), {
    readOnly: true,
    description: "Read-only: the resource's answer carries it; accepted, and ignored.",
  });

/**
 * Stripe's rule for one object of a write body (docs/api.md: Requests): a key it does not know is
 * a 422 naming it (and the known key it most likely meant), never ignored, so a typo never acts.
 * What the resource's answer (`answer`) carries beyond the fields (ids, counts, timestamps,
 * `issue_number`...) is accepted and dropped, so that a client may send back what it read; a
 * read-only field can never be set. `options`: the message for input that is not an object, how
 * its messages name it at the root and its keys (an MCP tool's arguments), and the schema whose
 * OpenAPI name it takes when `fields` extends it. The refinements of `fields` hold as they did, and its
 * OpenAPI name and description go to the closed object (the document shows the body as it is
 * taken: the fields, the read-only ones marked `readOnly`, nothing else).
 */
export function closed<S extends z.core.$ZodObject>(
  fields: S,
  answer?: z.core.$ZodObject,
  options: Naming & { notAnObject?: string; namedAs?: z.core.$ZodType } = {},
): z.ZodMiniType<z.output<S>, z.input<S>> {
  const shape = fields._zod.def.shape;
  const own = new Set(Object.keys(shape));
  const readOnly = answer ? Object.keys(answer._zod.def.shape).filter((k) => !own.has(k)) : [];
  const notAnObject = options.notAnObject ?? 'must be an object';
  const object = z
    .strictObject(
      { ...shape, ...Object.fromEntries(readOnly.map((k) => [k, readOnlyField()])) },
      { error: closedError(new Set(readOnly), (input) => (input === undefined ? 'is required' : notAnObject), options) },
    )
    .check(...((fields._zod.def.checks ?? []) as z.core.$ZodCheck<Record<string, unknown>>[]));
  const named = options.namedAs ?? fields;
  const metadata = z.globalRegistry.get(named);
  if (metadata) {
    // One schema per OpenAPI name (an id is unique in the registry): the document names the body as it is taken.
    if (metadata.id !== undefined) z.globalRegistry.remove(named);
    object.register(z.globalRegistry, metadata);
  }
  if (readOnly.length === 0) return object as unknown as z.ZodMiniType<z.output<S>, z.input<S>>;
  return z.pipe(
    object,
    z.transform((value) => {
      const kept: Record<string, unknown> = { ...value };
      for (const k of readOnly) delete kept[k];
      return kept as z.output<S>;
    }),
  ) as unknown as z.ZodMiniType<z.output<S>, z.input<S>>;
}

/**
 * Body wrapper: `{"project": {...}}`; the wrapper itself is required on every write, and nothing
 * else may stand beside it. The object inside is `closed`: its unknown keys are refused, the
 * fields of the resource's `answer` it does not take are accepted and ignored.
 */
export const wrapped = <K extends string, S extends z.ZodMiniObject>(
  key: K,
  fields: S,
  answer?: z.ZodMiniObject,
  namedAs?: z.ZodMiniType,
) => {
  const inner = closed(fields, answer, namedAs ? { namedAs } : {});
  return z.strictObject({ [key]: inner } as { [P in K]: typeof inner }, {
    error: closedError(new Set(), (input) =>
      input === undefined || input === null ? 'body is required' : 'body must be a JSON object',
    ),
  });
};

export const ErrorBody = meta(z.object({ error: z.string() }), { id: 'Error', description: 'A single human-readable message.' });
/** The 404 of a nested path whose issue lives in another list now (lib/vocabulary/errors.ts: IssueElsewhereError). */
export const IssueElsewhereBody = meta(
  z.object({
    error: z.string(),
    issue_key: meta(z.string(), { description: 'The issue\'s key ("APL-12").' }),
    location: meta(z.string(), { description: 'Where it answers whatever list it is in: `/api/v1/issues/{issue_key}`.' }),
  }),
  {
    id: 'IssueElsewhere',
    description: 'The issue the path names lives in another list of the project now: its key, and the URL that follows it.',
  },
);
export const ErrorsBody = meta(z.object({ errors: z.array(z.string()) }), {
  id: 'ValidationErrors',
  description: 'Validation messages, one per problem, each naming its field.',
});

/**
 * A query-string integer: plain decimal digits only. `z.coerce` would also take "0x10", "1e2" or
 * "" (as 16, 100 and 0); those are garbage and must answer 422.
 */
export const queryInt = (v: unknown) => (typeof v === 'string' ? (/^-?\d+$/.test(v.trim()) ? Number(v) : Number.NaN) : v);

/** An integer field: "must be an integer" for anything else, in a body or a query. */
export const integer = () => z.number({ error: 'must be an integer' }).check(z.int({ error: 'must be an integer' }));

/**
 * An integer query parameter: its text read as a number by `read` (`queryInt` unless given), then
 * held to `integer` and the bounds that `bounds` adds.
 */
export const queryInteger = (bounds: (n: z.ZodMiniNumber) => z.ZodMiniNumber, read: (v: unknown) => unknown = queryInt) =>
  z.pipe(z.transform(read), bounds(integer()));

/** `page`/`per_page` query parameters (docs/api.md: Pagination). */
export const PaginationQuery = z.object({
  page: z._default(
    queryInteger((n) =>
      n.check(z.minimum(1, { error: 'must be 1 or more' })).check(z.maximum(1_000_000, { error: 'is too large' })),
    ),
    1,
  ),
  // Clamped before the integer check, so that any larger integer (even past 2^53) means 100.
  per_page: z._default(
    queryInteger(
      (n) => n.check(z.minimum(1, { error: 'must be between 1 and 100' })),
      (v) => {
        const n = queryInt(v);
        return typeof n === 'number' && n > 100 ? 100 : n;
      },
    ),
    25,
  ),
  cursor: z.optional(z.string().check(z.maxLength(2048))),
});

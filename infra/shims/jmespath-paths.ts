/**
 * What the bundles that honour `Idempotency-Key` hold in place of `@aws-lambda-powertools/jmespath`
 * (and its `/functions`), an esbuild alias (infra/bundling.ts). Powertools' idempotency evaluates two
 * JMESPath expressions per request, both of this service's own (lib/http/idempotency.ts): a
 * multi-select list of field paths (the record's key) and a field (the body compared on reuse). The
 * full JMESPath interpreter (lexer, parser, tree interpreter, built-in and Powertools functions) is
 * about 23 KB and 2 to 3 ms of every such bundle's init; this evaluates exactly that subset:
 *
 * - a path of fields, `a.b."quoted-name"` (a field of anything but an object is null, as in JMESPath);
 * - a multi-select list of such paths, `[a.b, c]` (null when the data is null, as in JMESPath).
 *
 * Anything else throws, naming this file, rather than evaluating differently. Code run locally (tsx,
 * tests) keeps the real package; test/unit/jmespath-paths.test.ts checks that both give the same
 * results for the service's expressions.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*/;
const QUOTED = /^"(?:[^"\\]|\\.)*"/;

function unsupported(expression: string): never {
  throw new Error(`JMESPath expression not supported by infra/shims/jmespath-paths.ts: ${expression}`);
}

/** The fields of a path expression, or undefined if it is not one. */
function parsePath(path: string): string[] | undefined {
  const fields: string[] = [];
  let rest = path.trim();
  for (;;) {
    const quoted = QUOTED.exec(rest);
    const bare = quoted ? null : IDENTIFIER.exec(rest);
    const token = quoted?.[0] ?? bare?.[0];
    if (!token) return undefined;
    fields.push(quoted ? (JSON.parse(token) as string) : token);
    rest = rest.slice(token.length).trim();
    if (rest === '') return fields;
    if (!rest.startsWith('.')) return undefined;
    rest = rest.slice(1).trim();
  }
}

/** Splits a multi-select list's body at its top-level commas (commas in quoted names stay). */
function splitList(body: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quoted && c === '\\') {
      current += c + (body[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ',' && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

const field = (value: Json, name: string): Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value[name] ?? null) : null;

const follow = (data: Json, fields: string[]): Json => fields.reduce(field, data);

/** `search` of `@aws-lambda-powertools/jmespath`, for field paths and multi-select lists of them. */
export function search(expression: string, data: unknown, _options?: unknown): unknown {
  const trimmed = expression.trim();
  if (trimmed.startsWith('[') && trimmed.endsWith(']')) {
    const paths = splitList(trimmed.slice(1, -1)).map((p) => parsePath(p) ?? unsupported(expression));
    return data === null || data === undefined ? null : paths.map((fields) => follow(data as Json, fields));
  }
  return follow((data ?? null) as Json, parsePath(trimmed) ?? unsupported(expression));
}

/** `@aws-lambda-powertools/jmespath/functions`: Powertools passes an instance as custom functions, which paths never call. */
export class PowertoolsFunctions {}

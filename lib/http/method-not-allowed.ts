/**
 * 405 for a path the API has, asked with a method it does not have: `{error}` and `Allow` listing
 * the methods that path answers. The local gateway decides it per request; the CDK stack writes the
 * same decision into the mapping template of a catch-all mock (infra/constructs/method-not-allowed.ts),
 * since API Gateway sends a request whose path and method match no method to the `{proxy+}` resource.
 */

/** The fields of a route row the decision reads. */
export interface RouteShape {
  method: string;
  path: string;
}

/** The order `Allow` lists methods in, whatever the route table's order. */
const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A route template as a regular expression: `{name}` is one segment, `{name+}` the rest (API Gateway's). */
export function pathPattern(template: string): string {
  const segments = template.split('/').map((segment) => {
    if (/^\{\w+\+\}$/.test(segment)) return '.+';
    if (/^\{\w+\}$/.test(segment)) return '[^/]+';
    return segment.replace(/[.*+?^$(){}|[\]\\]/g, '\\$&');
  });
  return `^${segments.join('/')}$`;
}

const matchers = new Map<string, RegExp>();
/** A template's pattern, compiled once. */
function matcher(template: string): RegExp {
  let regex = matchers.get(template);
  if (!regex) matchers.set(template, (regex = new RegExp(pathPattern(template))));
  return regex;
}

/**
 * The methods some route answers at `path`: every template matching it counts, since API Gateway
 * falls back to a parameter's resource when a literal one lacks the method. Empty: no such path.
 */
export function allowedMethods(routes: readonly RouteShape[], path: string): string[] {
  const methods = new Set(routes.filter((r) => matcher(r.path).test(path)).map((r) => r.method));
  return METHOD_ORDER.filter((m) => methods.has(m));
}

/** The `Allow` header's value. */
export const allowHeader = (methods: readonly string[]) => methods.join(', ');

/** The `error` of a 405; the stack's template passes VTL references for both. */
export const methodNotAllowedMessage = (method: string, allow: string) =>
  `${method} is not a method of this path; it allows ${allow}`;

/**
 * What a path template allows, for each distinct template, most specific first (literal segments
 * before parameters): the first whose pattern matches a request decides. A template's own text is
 * a path only its own and more general templates match, so the methods are exact.
 */
export function allowTable(routes: readonly RouteShape[]): { pattern: string; allow: string }[] {
  const rank = (template: string) => template.split('/').map((s) => (s.startsWith('{') ? (s.endsWith('+}') ? 2 : 1) : 0));
  const bySpecificity = (a: string, b: string) => {
    const [ra, rb] = [rank(a), rank(b)];
    for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
      const d = (ra[i] ?? 3) - (rb[i] ?? 3);
      if (d !== 0) return d;
    }
    return 0;
  };
  return [...new Set(routes.map((r) => r.path))]
    .sort(bySpecificity)
    .map((template) => ({ pattern: pathPattern(template), allow: allowHeader(allowedMethods(routes, template)) }));
}

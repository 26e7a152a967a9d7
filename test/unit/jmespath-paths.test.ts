import { search as jmespath } from '@aws-lambda-powertools/jmespath';
import { PowertoolsFunctions } from '@aws-lambda-powertools/jmespath/functions';
import { describe, expect, it } from 'vitest';
import { search } from '../../infra/shims/jmespath-paths.ts';
import { jmesPaths } from '../../lib/http/idempotency.ts';

const event = (changes: Record<string, unknown> = {}) => ({
  httpMethod: 'POST',
  resource: '/api/v1/projects/{project_id}/issues',
  pathParameters: { project_id: '7' },
  headers: { 'idempotency-key': 'k-1', 'content-type': 'application/json' },
  requestContext: { authorizer: { orgId: '3', accountId: '9', principalId: '9' } },
  body: '{"issue":{"title":"A, \\"b\\""}}',
  ...changes,
});

const cases = [
  event(),
  event({ headers: {} }),
  event({ headers: null }),
  event({ pathParameters: null }),
  event({ requestContext: {} }),
  event({ body: null }),
  event({ resource: ['not', 'a', 'string'] }),
  {},
];

describe("the bundles' JMESPath (field paths only)", () => {
  it("evaluates the idempotency records' expressions exactly as the JMESPath package does", () => {
    const options = { customFunctions: new PowertoolsFunctions() };
    for (const expression of Object.values(jmesPaths)) {
      for (const data of cases) {
        expect(search(expression, data), `${expression} on ${JSON.stringify(data)}`).toEqual(
          jmespath(expression, data as never, options),
        );
      }
    }
  });

  it('follows quoted names and nested fields, and answers null where a field is missing or not in an object', () => {
    expect(search('a."b-c".d', { a: { 'b-c': { d: 1 } } })).toBe(1);
    expect(search('a.b', { a: 'text' })).toBeNull();
    expect(search('[a, "x,y"]', { a: 1, 'x,y': 2 })).toEqual([1, 2]);
    expect(search('[a]', null)).toBeNull();
  });

  it('refuses any other expression rather than evaluating it differently', () => {
    for (const expression of ['a[0]', 'a | b', 'length(a)', '{a: a}', 'a.*', '[a, b[0]]']) {
      expect(() => search(expression, { a: [1] }), expression).toThrow(/jmespath-paths/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import { AccountCreateBody } from '../../lib/schemas/accounts.ts';
import { dateField, isCalendarDate, nameField, PaginationQuery, urlField } from '../../lib/schemas/common.ts';
import { ProjectCreateBody } from '../../lib/schemas/projects.ts';
import { parseOrThrow } from '../../lib/schemas/validate.ts';

/** The `errors` a 422 would carry for this input. */
function errorsOf(schema: Parameters<typeof parseOrThrow>[0], input: unknown, dropWrapper = true): string[] {
  try {
    parseOrThrow(schema, input, dropWrapper);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).errors;
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('validation messages', () => {
  it('name the field without the body wrapper, one message per problem', () => {
    expect(errorsOf(ProjectCreateBody, { project: {} })).toEqual(['name is required', 'prefix is required']);
    expect(errorsOf(ProjectCreateBody, { project: { name: 5, prefix: 'ab', documentation_url: 7 } })).toEqual([
      'name must be a string',
      'prefix must be 2 to 4 uppercase letters or digits',
      'documentation_url must be a string or null',
    ]);
  });

  it('say "<wrapper> is required" when the body has no wrapper, or a wrong one', () => {
    expect(errorsOf(ProjectCreateBody, {})).toEqual(['project is required']);
    expect(errorsOf(ProjectCreateBody, { name: 'x', prefix: 'AB' })).toEqual([
      'project is required',
      "body has unknown keys 'name', 'prefix' (known: project)",
    ]);
    expect(errorsOf(ProjectCreateBody, { project: null })).toEqual(['project must be an object']);
    expect(errorsOf(ProjectCreateBody, { project: 'x' })).toEqual(['project must be an object']);
    expect(errorsOf(ProjectCreateBody, [])).toEqual(['body must be a JSON object']);
    expect(errorsOf(ProjectCreateBody, null)).toEqual(['body is required']);
  });

  it('keep the whole path of the query parameter when there is no wrapper', () => {
    expect(errorsOf(PaginationQuery, { page: '0' }, false)).toEqual(['page must be 1 or more']);
  });

  it('refuse every unknown key, inside the wrapper and beside it, naming the known ones', () => {
    expect(errorsOf(ProjectCreateBody, { project: { name: 'A', prefix: 'AB', id: 4, extra: true }, other: 1 })).toEqual([
      "project has an unknown key 'extra' (known: name, prefix, description, documentation_url, production_url)",
      "body has an unknown key 'other' (known: project)",
    ]);
  });

  it('accept the fields of the resource’s answer, and drop them', () => {
    const answered = { id: 4, sprints_count: 2, github_repo_owner: null, created_at: 'x', updated_at: 'y' };
    expect(parseOrThrow(ProjectCreateBody, { project: { name: 'A', prefix: 'AB', ...answered } })).toEqual({
      project: { name: 'A', prefix: 'AB' },
    });
  });
});

describe('names', () => {
  it('are trimmed', () => {
    expect(nameField().parse('  Apollo \n')).toBe('Apollo');
  });

  it('may not be blank', () => {
    for (const blank of ['', ' ', '\t\n '])
      expect(errorsOf(nameField(), blank, false), JSON.stringify(blank)).toEqual(["can't be blank"]);
  });

  it('hold at most 255 characters, counted after trimming', () => {
    expect(nameField().parse('x'.repeat(255))).toHaveLength(255);
    expect(nameField().parse(` ${'x'.repeat(255)} `)).toHaveLength(255);
    expect(errorsOf(nameField(), 'x'.repeat(256), false)).toEqual(['is too long (maximum is 255 characters)']);
  });

  it('must be strings', () => {
    expect(errorsOf(nameField(), undefined, false)).toEqual(['is required']);
    expect(errorsOf(nameField(), null, false)).toEqual(['must be a string']);
    expect(errorsOf(nameField(), 42, false)).toEqual(['must be a string']);
  });
});

describe('URLs', () => {
  it('must be http or https', () => {
    for (const ok of ['http://example.com', 'https://docs.example.com/a?b=c#d', 'HTTPS://EXAMPLE.COM', 'http://localhost:3000']) {
      expect(urlField().parse(ok), ok).toBe(ok);
    }
    for (const bad of [
      'ftp://example.com',
      'javascript:alert(1)',
      'mailto:a@example.com',
      'example.com',
      'http://',
      'https://',
      '',
      'file:///etc/passwd',
      'http://exa mple.com',
    ]) {
      expect(errorsOf(urlField(), bad, false), bad).toEqual(['must be an http(s) URL']);
    }
  });

  it('may be null, and are at most 2048 characters', () => {
    expect(urlField().parse(null)).toBeNull();
    expect(errorsOf(urlField(), `https://e.com/${'a'.repeat(2048)}`, false)).toContain(
      'is too long (maximum is 2048 characters)',
    );
  });
});

describe('dates', () => {
  it('are real calendar dates in YYYY-MM-DD', () => {
    for (const ok of ['2026-01-31', '2024-02-29', '2000-02-29', '2026-12-31']) expect(isCalendarDate(ok), ok).toBe(true);
    for (const bad of [
      '2026-02-29',
      '1900-02-29',
      '2026-04-31',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-1-5',
      '26-01-05',
      '2026-01-05T00:00:00Z',
      '20260105',
      'today',
      '',
    ]) {
      expect(isCalendarDate(bad), bad).toBe(false);
    }
  });

  it('say which format they want', () => {
    expect(dateField().parse('2028-02-29')).toBe('2028-02-29');
    expect(errorsOf(dateField(), '2026-02-29', false)).toEqual(['must be a real date (YYYY-MM-DD)']);
    expect(errorsOf(dateField(), 20260229, false)).toEqual(['must be a date (YYYY-MM-DD)']);
  });
});

describe('e-mail addresses and roles of a new account', () => {
  it('lower-cases and trims the e-mail, and the role defaults to member', () => {
    expect(parseOrThrow(AccountCreateBody, { account: { name: 'Bo', email: ' Bo@Example.COM ' } })).toEqual({
      account: { name: 'Bo', email: 'bo@example.com', role: 'member' },
    });
  });

  it('refuses a bad e-mail and an unknown role', () => {
    expect(errorsOf(AccountCreateBody, { account: { name: 'Bo', email: 'not-an-email', role: 'owner' } })).toEqual([
      'email must be an e-mail address',
      'role must be one of: admin, member',
    ]);
    expect(errorsOf(AccountCreateBody, { account: {} })).toEqual(['name is required', 'email is required']);
  });
});

describe('pagination query', () => {
  const parse = (query: Record<string, string>) => PaginationQuery.parse(query);

  it('defaults to page 1 of 25', () => {
    expect(parse({})).toMatchObject({ page: 1, per_page: 25 });
  });

  it('takes page >= 1 and per_page 1..100', () => {
    expect(parse({ page: '3', per_page: '1' })).toMatchObject({ page: 3, per_page: 1 });
    expect(parse({ page: '1', per_page: '100' })).toMatchObject({ page: 1, per_page: 100 });
  });

  it('clamps per_page above 100 to 100, however large', () => {
    for (const big of ['101', '1000', '99999999999999999999']) expect(parse({ per_page: big }).per_page, big).toBe(100);
  });

  it('refuses anything but a plain decimal integer with 422 messages', () => {
    const cases: [Record<string, string>, string][] = [
      [{ page: '0' }, 'page must be 1 or more'],
      [{ page: '-1' }, 'page must be 1 or more'],
      [{ page: 'abc' }, 'page must be an integer'],
      [{ page: '1.5' }, 'page must be an integer'],
      [{ page: '' }, 'page must be an integer'],
      [{ page: '0x10' }, 'page must be an integer'],
      [{ page: '1e3' }, 'page must be an integer'],
      [{ per_page: '0' }, 'per_page must be between 1 and 100'],
      [{ per_page: '-5' }, 'per_page must be between 1 and 100'],
      [{ per_page: '2.5' }, 'per_page must be an integer'],
      [{ per_page: '1e2' }, 'per_page must be an integer'],
      [{ per_page: 'Infinity' }, 'per_page must be an integer'],
      [{ per_page: ' ' }, 'per_page must be an integer'],
    ];
    for (const [query, message] of cases)
      expect(errorsOf(PaginationQuery, query, false), JSON.stringify(query)).toEqual([message]);
  });
});

import { describe, expect, it } from 'vitest';
import type { PageRequest } from '../../lib/db/core/list.ts';
import { ValidationError } from '../../lib/vocabulary/errors.ts';
import { listThrough, type DomainList } from '../../lib/mcp/list.ts';

/** A collection served like the domain serves one: cursor = index of the next item, as a string. */
function collection(size: number): { list: DomainList<number>; requests: PageRequest[] } {
  const items = Array.from({ length: size }, (_, i) => i + 1);
  const requests: PageRequest[] = [];
  const list: DomainList<number> = async (pr) => {
    requests.push(pr);
    const from = pr.cursor ? Number(pr.cursor) : (pr.page - 1) * pr.perPage;
    const slice = items.slice(from, from + pr.perPage);
    // Like DynamoDB: a cursor whenever the page is full, even at the very end.
    const nextCursor = slice.length === pr.perPage ? String(from + slice.length) : undefined;
    return { page: { items: slice, nextCursor, cursorAfter: (i) => String(from + i + 1) }, items: slice, total: size };
  };
  return { list, requests };
}

async function walk(size: number, limit: number, filter?: (n: number) => boolean) {
  const { list, requests } = collection(size);
  const seen: number[] = [];
  let cursor: string | undefined;
  let calls = 0;
  do {
    const page = await listThrough({ limit, cursor }, list, filter);
    seen.push(...page.items);
    cursor = page.next_cursor ?? undefined;
    calls++;
  } while (cursor);
  return { seen, calls, requests };
}

describe('list tools: limit and cursor over a domain list', () => {
  it('walks a collection once, one domain call per page, with no empty page at an exact end', async () => {
    const { seen, calls, requests } = await walk(6, 3);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls).toBe(2);
    expect(requests.every((r) => r.perPage === 3)).toBe(true);
    expect((await walk(7, 3)).seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await walk(0, 3)).calls).toBe(1);
  });

  it('with a filter, returns the matches among the next `limit` items and goes on until the end', async () => {
    const even = (n: number) => n % 2 === 0;
    const { seen, calls } = await walk(10, 3, even);
    expect(seen).toEqual([2, 4, 6, 8, 10]);
    expect(calls).toBe(4);
    const { list } = collection(10);
    const none = await listThrough({ limit: 3 }, list, (n) => n > 100);
    expect(none.items).toEqual([]);
    expect(none.next_cursor).not.toBeNull();
    expect(none.total).toBe(10);
  });

  it('refuses a cursor it did not make', async () => {
    const { list } = collection(3);
    for (const cursor of [
      'garbage',
      Buffer.from('{"c":1,"n":-1}').toString('base64url'),
      Buffer.from('[]').toString('base64url'),
    ]) {
      await expect(listThrough({ limit: 2, cursor }, list)).rejects.toBeInstanceOf(ValidationError);
    }
  });
});

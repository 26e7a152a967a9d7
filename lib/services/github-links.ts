import * as store from '../db/github/github.ts';
import type { PageRequest } from '../db/core/list.ts';
import type { Principal } from '../model/principal.ts';
import type { IssueLink } from '../schemas/github.ts';
import type { Issue } from '../schemas/issues.ts';
import { placeOfKey } from './issue-keys.ts';

/** A link as the API answers it. */
export const linkOf = (l: store.StoredLink): IssueLink => ({
  kind: l.kind,
  ref: l.ref,
  url: l.url,
  title: l.title,
  author: l.author,
  state: l.state,
  closing: l.closing,
  automation: l.automation,
  created_at: l.createdAt,
  updated_at: l.updatedAt,
  merged_at: l.mergedAt,
  closed_at: l.closedAt,
});

const latestFirst = (a: store.StoredLink, b: store.StoredLink) =>
  b.updatedAt.localeCompare(a.updatedAt) || a.kind.localeCompare(b.kind) || a.ref.localeCompare(b.ref);

/** The links of an issue the caller read, the latest changed first: no call at all when it counts none. */
export async function linksOfIssue(caller: Principal, issue: Pick<Issue, 'project_id' | 'id' | 'links'>): Promise<IssueLink[]> {
  if (issue.links.count === 0) return [];
  return (await store.issueLinks(caller.orgId, issue.project_id, issue.id)).sort(latestFirst).map(linkOf);
}

/**
 * GET /issues/{key}/links: the issue's links, the latest changed first (one Query of at most
 * MAX_LINKS_PER_ISSUE, after the key's pointer), paged by place: `page`, or the cursor of the
 * page before (the place after it).
 */
export async function listIssueLinks(caller: Principal, key: string, page: PageRequest) {
  const place = await placeOfKey(caller, key);
  const links = (await store.issueLinks(caller.orgId, place.at.projectId, place.issueId)).sort(latestFirst).map(linkOf);
  const start = page.cursor && /^\d{1,4}$/.test(page.cursor) ? Number(page.cursor) : (page.page - 1) * page.perPage;
  const items = links.slice(start, start + page.perPage);
  const cursorAfter = (index: number) => String(start + index + 1);
  const more = start + items.length < links.length;
  return {
    page: { items, nextCursor: more && items.length > 0 ? cursorAfter(items.length - 1) : undefined, cursorAfter },
    items,
    total: links.length,
  };
}

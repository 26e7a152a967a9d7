import { toIssue } from '../db/issues.ts';
import { catalogueOf } from '../db/labels.ts';
import { toLabel } from '../db/labels.ts';
import { orgPk, projectPk } from '../db/keys.ts';
import { toProject } from '../db/projects.ts';
import { queryPages, type QueryInput } from '../db/query.ts';
import { storedRelations } from '../db/relations.ts';
import { toSprint } from '../db/sprints.ts';
import { toComment } from '../db/comments.ts';
import { getOrganisationItem } from '../db/accounts.ts';
import { NotFoundError } from '../domain/errors.ts';

/**
 * An organisation as JSON Lines (docs/import-export.md): a header line, then one line per
 * account, project, label, sprint (with its report), issue (with its relations), comment and
 * activity entry, each with `kind`; then an `end` line with the counts. Read page by page (each
 * DynamoDB page is written out before the next is read), so memory stays bounded at any size.
 * Never written: tokens, webhook endpoints and their secrets, OAuth data, idempotency records.
 */

export const EXPORT_FORMAT = 'sprint-ticketing-export';
export const EXPORT_VERSION = 1;

/** Attributes of stored items that are layout, not data. */
const layout = new Set(['PK', 'SK', 'LSK', 'type', 'org_id', 'version']);
const withoutLayout = (item: Record<string, unknown>) => Object.fromEntries(Object.entries(item).filter(([k]) => !layout.has(k)));
const dropVersion = <T extends object>(o: T) => withoutLayout(o as Record<string, unknown>);

async function* pages(input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  let start: Record<string, unknown> | undefined;
  let first = true;
  while (first || start) {
    first = false;
    let items: Record<string, unknown>[] = [];
    start = await queryPages(input, { start, limit: () => 500 }, (page) => {
      items = page;
      return false;
    });
    yield items;
  }
}

const prefixQuery = (pk: string, prefix: string, index?: string): QueryInput => ({
  ...(index ? { IndexName: index } : {}),
  KeyConditionExpression: `PK = :pk AND begins_with(${index ? 'LSK' : 'SK'}, :prefix)`,
  ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix },
});

/** The lines of an organisation's export, each a JSON document without its line break. */
export async function* exportOrganisation(orgId: number, now = new Date()): AsyncGenerator<string> {
  const org = await getOrganisationItem(orgId);
  if (!org) throw new NotFoundError('Organisation');
  const counts: Record<string, number> = {};
  const line = (kind: string, data: object) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    return JSON.stringify({ kind, ...data });
  };
  yield JSON.stringify({
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    organisation: { id: orgId, name: String(org.name) },
    exported_at: now.toISOString(),
  });
  const emails = new Map<number, string>();
  for await (const page of pages(prefixQuery(orgPk(orgId), 'ACCOUNT#'))) {
    for (const a of page) {
      emails.set(Number(a.id), String(a.email));
      yield line('account', { id: Number(a.id), name: String(a.name), email: String(a.email), role: String(a.role) });
    }
  }
  const email = (id: unknown) => (typeof id === 'number' ? (emails.get(id) ?? null) : null);
  for await (const projects of pages(prefixQuery(orgPk(orgId), 'PROJECT#'))) {
    for (const project of projects) {
      const projectId = Number(project.id);
      const pk = projectPk(orgId, projectId);
      yield line('project', dropVersion(toProject(project)));
      for await (const page of pages(prefixQuery(pk, 'LABEL#'))) {
        for (const l of page) yield line('label', dropVersion(toLabel(l)));
      }
      for await (const page of pages(prefixQuery(pk, 'SPRINT#'))) {
        for (const s of page) {
          if (s.type === 'sprint')
            yield line('sprint', { ...dropVersion(toSprint(s)), sprint_lead_email: email(s.sprint_lead_id) });
          else if (s.type === 'activity') yield line('activity', withoutLayout(s));
        }
      }
      const catalogue = catalogueOf(project);
      // Issues in list order (every sprint's, then the backlog), each with its place.
      for (const prefix of ['S#', 'B#']) {
        let place = 0;
        let list: unknown;
        for await (const page of pages(prefixQuery(pk, prefix, 'LSI1'))) {
          for (const item of page) {
            if ((item.sprint_id ?? null) !== list) {
              list = item.sprint_id ?? null;
              place = 0;
            }
            place += 1;
            const relations = Object.entries(storedRelations(item)).map(([id, side]) => ({ id, ...side }));
            yield line('issue', {
              ...dropVersion(toIssue(item, place, catalogue)),
              assignee_email: email(item.assignee_id),
              relations,
            });
          }
        }
      }
      for await (const page of pages(prefixQuery(pk, 'ISSUE#'))) {
        for (const item of page) {
          if (item.type === 'comment')
            yield line('comment', { ...dropVersion(toComment(item)), author_email: email(item.author_id) });
          else if (item.type === 'activity') yield line('activity', withoutLayout(item));
        }
      }
    }
  }
  yield JSON.stringify({ kind: 'end', counts });
}

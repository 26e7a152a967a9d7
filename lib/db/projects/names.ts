import { keys, orgPk, projectPk } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { getItem } from '../core/transactions.ts';
import { prefixGuardItem } from './projects.ts';

/**
 * The lookups behind names (lib/model/names.ts): what a person calls a project, an account or a
 * sprint, read as the few attributes a name is matched on. Each is one consistent call; a list
 * goes on past DynamoDB's 1 MB page only in an organisation (or project) far larger than any
 * seen (at most `PAGES` pages, then what was read).
 */
const PAGES = 4;

/** The id of the project whose prefix is `prefix` (its uniqueness guard): one GetItem. */
export async function projectIdOfPrefix(orgId: number, prefix: string): Promise<number | undefined> {
  // Its one attribute, never a reserved word: projected by its stored name.
  const guard = await getItem(keys.prefix(orgId, prefix), prefixGuardItem.stored('projectId'));
  return guard && prefixGuardItem.field(guard, 'projectId');
}

async function names(pk: string, skPrefix: string, attributes: string[], max?: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pages = 0;
  const names = Object.fromEntries(attributes.map((a) => [`#${a}`, a]));
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
      ExpressionAttributeNames: names,
      ProjectionExpression: Object.keys(names).join(', '),
    },
    { limit: max === undefined ? undefined : () => max },
    (page) => {
      items.push(...page);
      return max === undefined && ++pages < PAGES;
    },
  );
  return items;
}

/** The organisation's projects: id, name, prefix. One Query. */
export async function projectNames(orgId: number) {
  const items = await names(orgPk(orgId), 'PROJECT#', ['id', 'name', 'prefix']);
  return items.map((i) => ({ id: Number(i.id), name: String(i.name), prefix: String(i.prefix) }));
}

/** The organisation's accounts (the first `max`, or all): id, name, e-mail. One Query. */
export async function accountNames(orgId: number, max?: number) {
  const items = await names(orgPk(orgId), 'ACCOUNT#', ['id', 'name', 'email'], max);
  return items.map((i) => ({ id: Number(i.id), name: String(i.name), email: String(i.email) }));
}

/** A project's sprints: id, name, status, dates. One Query. */
export async function sprintNames(orgId: number, projectId: number) {
  const items = await names(projectPk(orgId, projectId), 'SPRINT#', ['id', 'name', 'status', 'start_date', 'end_date']);
  return items.map((i) => ({
    id: Number(i.id),
    name: String(i.name),
    status: String(i.status),
    start_date: (i.start_date as string | null | undefined) ?? null,
    end_date: (i.end_date as string | null | undefined) ?? null,
  }));
}

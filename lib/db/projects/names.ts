import { collections, keys, type Collection } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { getItem } from '../core/transactions.ts';
import { accountItem } from '../organisation/accounts.ts';
import { prefixGuardItem, projectItem } from './projects.ts';
import { sprintItem } from './sprints.ts';

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

/** The items of `collection`, read as `projection` says (the first `max`, or all). */
async function names(collection: Collection, projection: object, max?: number): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let pages = 0;
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :sk)',
      ExpressionAttributeValues: { ':pk': collection.pk, ':sk': collection.prefix },
      ...projection,
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
  const items = await names(collections.projects(orgId), projectItem.projection(['id', 'name', 'prefix']));
  return items.map((i) => projectItem.decode(i)).map(({ id, name, prefix }) => ({ id, name, prefix }));
}

/** The organisation's accounts (the first `max`, or all): id, name, e-mail. One Query. */
export async function accountNames(orgId: number, max?: number) {
  const items = await names(collections.accounts(orgId), accountItem.projection(['id', 'name', 'email']), max);
  return items.map((i) => accountItem.decode(i)).map(({ id, name, email }) => ({ id, name, email }));
}

/** A project's sprints: id, name, status, dates. One Query. */
export async function sprintNames(orgId: number, projectId: number) {
  const projection = sprintItem.projection(['id', 'name', 'status', 'startDate', 'endDate']);
  const items = await names(collections.sprints(orgId, projectId), projection);
  return items
    .map((i) => sprintItem.decode(i))
    .map((s) => ({ id: s.id, name: s.name, status: s.status, start_date: s.startDate, end_date: s.endDate }));
}

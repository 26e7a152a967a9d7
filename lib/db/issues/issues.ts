import type { StoredValues } from '../../model/custom-fields.ts';
import { initialWatchers } from '../../model/notifications.ts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ValidationError } from '../../vocabulary/errors.ts';
import {
  blockAtOffset,
  blockOf,
  appendToEnd,
  blockStart,
  windowAt,
  windowReadAt,
  type ListWindow,
  type RankIndex,
  type Renumbering,
  type Slot,
} from '../../model/positions.ts';
import type { Issue, IssuePriority, IssueStatus, IssueType } from '../../schemas/issues.ts';
import { db, tableName } from '../core/client.ts';
import { alsoIf, type UpdateExpressions } from '../core/item.ts';
import { deletionMarker } from '../core/deletions.ts';
import { isConditionFailed } from '../core/errors.ts';
import { collections, keys, listKeys, parseIssueListKey, type Collection, type Key } from '../core/keys.ts';
import { decodeCursor, encodeCursor, MAX_READ_BYTES, type PageRequest } from '../core/list.ts';
import { queryPages } from '../core/query.ts';
import { projectItem, type ProjectItem } from '../projects/projects.ts';
import { accountExists, type SprintItem } from '../projects/sprints.ts';
import {
  addToExisting,
  putNew,
  updateIf,
  batchGet,
  existsCheck,
  Refused,
  revisionCondition,
  setAssignments,
  TRANSACTION_ITEMS,
  type GuardedItem,
} from '../core/transactions.ts';
import { issueWrite, issueWriteItems, type IssueWriteSpec, type ParentGuard } from './issue-write.ts';
import { repositioned, type IssueChange, type IssueState } from '../../model/derivations.ts';
import { issueItem, issueStateOf, type IssueItem, type StoredIssue } from './issue-item.ts';
import { advance, ISSUE_ID_BLOCK, issueIdBlock } from '../core/sequences.ts';
import { rankIndex } from './counters.ts';
import { type StateWrite } from '../../model/workflow.ts';
import { trashTitle } from '../../model/trash.ts';
import { organisationOf, trashRetentionOf } from '../organisation/organisation.ts';
import { trashPut } from '../core/trash.ts';

/**
 * Issues live in their project's partition (`ISSUE#i`); their LSK places them in one list: a
 * sprint's (`S#<sprint>#<position>#<id>`) or the backlog's (`B#<position>#<id>`). A list is
 * identified here by its sprint id, `null` standing for the project backlog.
 *
 * Refusal reasons: `stale` (something read before the write moved meanwhile: re-read and decide
 * again), `project`, `sprint` (a parent is gone), `assignee` (not an account of the organisation).
 */

/** The stored issue, as its declaration reads it (lib/db/issues/issue-item.ts). */
export type { IssueItem };

/**
 * Issue fields as stored, from the API's words for them (a write's changes): each is its declared
 * attribute's stored name (lib/db/issues/issue-item.ts), the same word but for the issue's `type`, kept as
 * `issue_type` since `type` names what kind of item every item of the table is (`issue`, `sprint`...).
 */
export function storedIssueFields(fields: Record<string, unknown>): Record<string, unknown> {
  if (!('type' in fields)) return fields;
  const { type, ...rest } = fields;
  return { ...rest, [issueItem.stored('type')]: type };
}

const listCollection = (orgId: number, projectId: number, sprintId: number | null): Collection =>
  sprintId === null ? collections.backlogIssues(orgId, projectId) : collections.sprintIssues(orgId, projectId, sprintId);

const listKey = (sprintId: number | null, position: number, issueId: number) =>
  sprintId === null ? listKeys.backlogIssue(position, issueId) : listKeys.sprintIssue(sprintId, position, issueId);

/**
 * The project, the given sprints and (optionally) the issue in one consistent BatchGet: every
 * issue read and write checks its ancestors this way, so the children of a deleted parent are
 * unreachable at once.
 */
export async function getIssueFamily(
  orgId: number,
  projectId: number,
  sprintIds: number[],
  issueId?: number,
  /** Other issues of the project read in the same call (a parent to be), by id. */
  others: number[] = [],
  /** The organisation read in the same call too (a delete's trash retention: `trashRetentionOf`). */
  withOrganisation = false,
) {
  const wanted = [...new Set(sprintIds)];
  const found = await batchGet([
    keys.project(orgId, projectId),
    ...wanted.map((s) => keys.sprint(orgId, projectId, s)),
    ...others.map((id) => keys.issue(orgId, projectId, id)),
    ...(issueId === undefined ? [] : [keys.issue(orgId, projectId, issueId)]),
    ...(withOrganisation ? [keys.org(orgId)] : []),
  ]);
  const org = withOrganisation ? found.pop() : undefined;
  const sprints = new Map<number, SprintItem | undefined>();
  wanted.forEach((s, i) => sprints.set(s, found[i + 1] as SprintItem | undefined));
  const issues = new Map<number, IssueItem | undefined>();
  others.forEach((id, i) => issues.set(id, found[wanted.length + 1 + i] as IssueItem | undefined));
  return {
    project: found[0] as ProjectItem | undefined,
    sprints,
    issue: (issueId === undefined ? undefined : found.at(-1)) as IssueItem | undefined,
    others: issues,
    retentionDays: trashRetentionOf(organisationOf(org)),
  };
}

/** A stored issue with its place in its list. */
export interface PlacedIssue {
  item: IssueItem;
  place: number;
}

/**
 * Which issues of a list a page shows: given the project as read with the page (label names are
 * looked up in its catalogue), a predicate over the stored issue.
 */
export type IssueFilter = (project: ProjectItem | undefined) => IssueMatch;
/** Whether a stored issue is shown. */
export type IssueMatch = (item: IssueItem) => boolean;

/** Issues a filtered page looks through at most (about 400 KB, one or two Query calls). */
export const FILTER_SCAN = 1000;

export interface IssueListPage {
  issues: PlacedIssue[];
  nextCursor?: string | undefined;
  /** The cursor that continues right after `issues[index]` (a page cut short by the byte budget). */
  cursorAfter: (index: number) => string;
  project: ProjectItem | undefined;
  sprint: SprintItem | undefined;
  /** Filtered lists: matches up to where this request stopped looking (all of them when `complete`). */
  matches?: { count: number; complete: boolean } | undefined;
}

const ownerKeys = (orgId: number, projectId: number, sprintId: number | null): Key[] => [
  keys.project(orgId, projectId),
  ...(sprintId === null ? [] : [keys.sprint(orgId, projectId, sprintId)]),
];

/**
 * Reads up to `limit` issues of a list in order (LSI1, consistent): from the first key at or after
 * `from`, or after the cursor's key `after`. One item past `limit` is asked for, so `more` (the list
 * goes on after the last item returned) is known, not guessed; reading also stops once it holds
 * more than one response could carry (MAX_READ_BYTES, lib/db/core/list.ts).
 */
async function readIssues(
  collection: Collection,
  options: { from?: string | undefined; after?: Record<string, unknown> | undefined; limit: number },
): Promise<{ items: IssueItem[]; more: boolean }> {
  const items: IssueItem[] = [];
  let bytes = 0;
  const end = await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: options.from ? 'PK = :pk AND LSK BETWEEN :from AND :to' : 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': collection.pk,
        ...(options.from ? { ':from': options.from, ':to': `${collection.prefix}\uffff` } : { ':prefix': collection.prefix }),
      },
    },
    { start: options.after, limit: () => options.limit + 1 - items.length },
    (page) => {
      for (const item of page) {
        bytes += Buffer.byteLength(JSON.stringify(item));
        items.push(item as unknown as IssueItem);
      }
      return items.length <= options.limit && bytes < MAX_READ_BYTES;
    },
  );
  const more = items.length > options.limit || end !== undefined;
  return { items: items.slice(0, options.limit), more };
}

/**
 * One page of a list, in list order, each issue with its place (lib/model/positions.ts), and the
 * list's ancestors (whose counters give the total) read with it:
 * - first page or a `next` link's cursor (which carries the place of the last item shown): the
 *   Query of `perPage` items and the BatchGet of the ancestors in parallel, one round trip;
 * - `page=N`: the BatchGet of the ancestors (with the rank index on the list's owner), then one
 *   Query from the block that holds offset (N-1) x perPage: at most one block more than a first page.
 * - filtered (`filter`): from the start or the cursor, looks through at most FILTER_SCAN issues and
 *   keeps the first `perPage` matches, counting the matches among the rest of what it looked
 *   through; the cursor carries the places and matches before it. `page=N` is refused (422): a
 *   filtered list is followed by its `next` link.
 */
export async function listIssues(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  page: PageRequest,
  filter?: IssueFilter,
): Promise<IssueListPage> {
  const collection = listCollection(orgId, projectId, sprintId);
  const ancestors = ownerKeys(orgId, projectId, sprintId);
  const cursor = page.cursor ? decodeCursor(page.cursor, collection) : undefined;
  const after = cursor ? { PK: cursor.PK, SK: cursor.SK, LSK: cursor.LSK } : undefined;
  const family = (found: (Record<string, unknown> | undefined)[]) => ({
    project: found[0] as ProjectItem | undefined,
    sprint: found[1] as SprintItem | undefined,
  });
  const cursorOf = (at: PlacedIssue, m?: number) =>
    encodeCursor(at.item as unknown as Key & { LSK: string }, { n: at.place, ...(m === undefined ? {} : { m }) });

  if (filter) {
    if (!cursor && page.page > 1) {
      throw new ValidationError(['page cannot be combined with filters: follow the next link of the first page']);
    }
    const [read, found] = await Promise.all([readIssues(collection, { after, limit: FILTER_SCAN }), batchGet(ancestors)]);
    const before = cursor?.m ?? 0;
    const matches = filter(family(found).project);
    const issues: PlacedIssue[] = [];
    let place = cursor?.n ?? 0;
    let extra = 0;
    let lastSeen: PlacedIssue | undefined;
    for (const item of read.items) {
      lastSeen = { item, place: ++place };
      if (!matches(item)) continue;
      if (issues.length < page.perPage) issues.push(lastSeen);
      else extra += 1;
    }
    // A full page goes on after its last match; otherwise after the last issue looked at.
    const full = issues.length === page.perPage;
    const resume = full ? issues.at(-1) : lastSeen;
    const more = read.more || (full && lastSeen !== resume);
    return {
      issues,
      nextCursor: more && resume ? cursorOf(resume, before + issues.length) : undefined,
      cursorAfter: (index) => cursorOf(issues[index] as PlacedIssue, before + index + 1),
      ...family(found),
      matches: { count: before + issues.length + extra, complete: !read.more },
    };
  }

  const placed = (items: IssueItem[], first: number) => items.map((item, i) => ({ item, place: first + i }));
  const pageOf = (issues: PlacedIssue[], more: boolean) => ({
    issues,
    nextCursor: more && issues.length > 0 ? cursorOf(issues.at(-1) as PlacedIssue) : undefined,
    cursorAfter: (index: number) => cursorOf(issues[index] as PlacedIssue),
  });

  if (cursor || page.page <= 1) {
    const [read, found] = await Promise.all([readIssues(collection, { after, limit: page.perPage }), batchGet(ancestors)]);
    return { ...pageOf(placed(read.items, (cursor?.n ?? 0) + 1), read.more), ...family(found) };
  }

  const found = await batchGet(ancestors);
  const { project, sprint } = family(found);
  const skip = (page.page - 1) * page.perPage;
  const at = blockAtOffset(rankIndex(sprintId === null ? project : sprint), skip);
  if (!at) return { ...pageOf([], false), project, sprint };
  const read = await readIssues(collection, {
    from: listKeys.issueFrom(sprintId, blockStart(at.block)),
    limit: skip - at.before + page.perPage,
  });
  const issues = placed(read.items, at.before + 1).filter((p) => p.place > skip);
  return { ...pageOf(issues, read.more), project, sprint };
}

/**
 * How many issues of its list lie in an issue's rank-index block up to and including it: one
 * keys-only Query from the block's first key through the issue's key. Its place is this plus
 * `countBefore(index, block)` (lib/model/positions.ts).
 */
export async function rankInBlock(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  issue: { id: number; position: number },
): Promise<number> {
  return (await ranksFrom(orgId, projectId, sprintId, blockOf(issue.position), [issue]))[0] as number;
}

/**
 * For issues of one list, how many of its issues lie from the start of block `fromBlock` up to and
 * including each of them: one keys-only Query from that block's first key through the last of
 * their keys (for one issue, a `Select: COUNT`: the same items read, none sent back). In the
 * order of `issues`; `countBefore(index, fromBlock)` plus this is each one's place.
 */
export async function ranksFrom(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  fromBlock: number,
  issues: { id: number; position: number }[],
): Promise<number[]> {
  const ownKeys = issues.map((issue) => listKey(sprintId, issue.position, issue.id));
  const counting = ownKeys.length === 1;
  const keysRead: string[] = [];
  let counted = 0;
  await queryPages(
    {
      IndexName: 'LSI1Keys',
      KeyConditionExpression: 'PK = :pk AND LSK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': listCollection(orgId, projectId, sprintId).pk,
        ':from': listKeys.issueFrom(sprintId, blockStart(fromBlock)),
        ':to': ownKeys.reduce((a, b) => (a > b ? a : b)),
      },
      ...(counting ? { Select: 'COUNT' as const } : { ProjectionExpression: 'LSK' }),
    },
    {},
    (items, count) => {
      counted += count;
      for (const item of items) keysRead.push(String(item.LSK));
    },
  );
  // Keys come in list order: an issue's rank is how many of them sort at or before its own.
  return counting ? [counted] : ownKeys.map((own) => keysRead.filter((k) => k <= own).length);
}

/** The owner of a list: the sprint, or (`sprintId` null) the project; its rank index rides on it. */
export async function getListOwner(orgId: number, projectId: number, sprintId: number | null) {
  const [owner] = await batchGet([sprintId === null ? keys.project(orgId, projectId) : keys.sprint(orgId, projectId, sprintId)]);
  return owner;
}

/** What creating an issue takes from its project: an id, a number and an appended position. */
export interface IssueSlot {
  id: number;
  number: number;
  prefix: string;
  positionSeq: number;
  backlogCount: number;
  /** The project as the allocation left it (its label catalogue, for the labels the create names). */
  project: ProjectItem;
  /** The number is one an import keeps (reserved before), not the sequence's next. */
  kept?: true;
}

/** How often a create retries when other creates used up the project's block of ids as it refilled it. */
const SLOT_ATTEMPTS = 8;

/**
 * The issue's id, its number and an appended position, in one atomic UpdateItem on the project: it
 * proves the project exists and returns its prefix. The id comes from the project's block of ids;
 * the create that finds the block used up (one in `ISSUE_ID_BLOCK`, or the first on a project
 * created before blocks existed) reserves the next block from the organisation's sequence and
 * installs it with the same update that takes its first id: two more calls. Ids and numbers are
 * never handed out twice; a block two creates reserved at once loses one of them (a gap).
 */
export async function allocateIssueSlot(orgId: number, projectId: number, keptNumber?: number): Promise<IssueSlot> {
  // A number an import keeps was reserved before (`reserveIssueNumbers`): the sequence stays as it is.
  const seq = keptNumber === undefined ? { issueSeq: 1 } : {};
  const numbered = (taken: Omit<IssueSlot, 'id'>) =>
    keptNumber === undefined ? taken : { ...taken, number: keptNumber, kept: true as const };
  for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
    const taken = await takeSlot(
      orgId,
      projectId,
      alsoIf(projectItem.update({ add: { ...seq, positionSeq: 1, issueIdNext: 1 }, if: { exists: true } }), {
        ConditionExpression: '#next < #end',
        ExpressionAttributeNames: blockNames,
      }),
    );
    if (taken) return { ...numbered(taken), id: Number(taken.project.issue_id_next) - 1 };
    const block = issueIdBlock((await advance(orgId, { issue: ISSUE_ID_BLOCK })).issue);
    const refilled = await takeSlot(
      orgId,
      projectId,
      alsoIf(
        projectItem.update({
          set: { issueIdNext: block.next + 1, issueIdEnd: block.end },
          add: { ...seq, positionSeq: 1 },
          if: { exists: true },
        }),
        // Still used up: a create that refilled it meanwhile wins, and this one takes from its block.
        { ConditionExpression: '(attribute_not_exists(#end) OR #next >= #end)', ExpressionAttributeNames: blockNames },
      ),
    );
    if (refilled) return { ...numbered(refilled), id: block.next };
  }
  throw new Error(`Issue id allocation for project ${projectId} lost ${SLOT_ATTEMPTS} races in a row`);
}

/**
 * Gives back the number and id of a slot whose create was refused (nothing written), on condition
 * that it is still the project's latest: `issue_seq` is still its number (every allocation moves
 * it, so nobody allocated after it, and `issue_id_next` is still its id + 1). Then the next create
 * takes the same number and id. Otherwise (another create allocated meanwhile) nothing changes and
 * the number stays unused: a gap. The position is kept (positions are sparse; a move may have
 * taken the next one). One UpdateItem, on the refused path only; true when given back.
 */
export async function releaseIssueSlot(orgId: number, projectId: number, slot: IssueSlot): Promise<boolean> {
  if (slot.kept) {
    // A kept number stays reserved for its key: only the id goes back.
    return updateIf({
      Key: keys.project(orgId, projectId),
      ...projectItem.update({ add: { issueIdNext: -1 }, if: { equals: { issueIdNext: slot.id + 1 } } }),
    });
  }
  return updateIf({
    Key: keys.project(orgId, projectId),
    ...projectItem.update({
      add: { issueSeq: -1, issueIdNext: -1 },
      if: { equals: { issueSeq: slot.number, issueIdNext: slot.id + 1 } },
    }),
  });
}

/** The project's block of issue ids in a condition of its own: `#next` (its next id) and `#end`. */
const blockNames = { '#next': projectItem.stored('issueIdNext'), '#end': projectItem.stored('issueIdEnd') };

/** One attempt at a slot: undefined when the condition refused it with the project there. */
async function takeSlot(
  orgId: number,
  projectId: number,
  update: UpdateExpressions,
): Promise<(Omit<IssueSlot, 'id'> & { project: ProjectItem }) | undefined> {
  try {
    const out = await db.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.project(orgId, projectId),
        ...update,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    const project = out.Attributes as ProjectItem;
    return {
      project,
      number: Number(project.issue_seq),
      prefix: project.prefix,
      positionSeq: Number(project.position_seq),
      backlogCount: projectItem.field(project, 'backlogCount'),
    };
  } catch (err) {
    if (!isConditionFailed(err)) throw err;
    // The old item comes back with the refusal: without one, the project is gone.
    if (!(err as { Item?: unknown }).Item) throw new Refused('project');
    return undefined;
  }
}

/** Reserves `count` consecutive values of the project's position allocator; returns the first. */
export async function allocatePositions(orgId: number, projectId: number, count: number): Promise<number> {
  const last = await addToExisting(keys.project(orgId, projectId), 'position_seq', count);
  if (last === undefined) throw new Refused('project');
  return last - count + 1;
}

/**
 * Creates an issue: the issue, and what every derivation keeps of it (lib/db/issues/issue-write.ts): its
 * list owner's counters (which prove the sprint exists), its number's pointer, the assignee's
 * entry and count (raising the count is the assignee check), with the project's existence
 * (nothing may be written under a deleted project: its cascade would miss it), in one transaction.
 */
export async function insertIssue(
  orgId: number,
  projectId: number,
  issue: Issue,
  parent?: { number: string; guard: ParentGuard } | undefined,
  labelIds: number[] = [],
  /** The account creating it (kept for `author:` searches; not shown). */
  authorId?: number,
  /** Items of the same transaction, after the issue's (an import's source-key record and activity entry). */
  tail?: GuardedItem[] | undefined,
  /**
   * An import's: `history` false leaves the sprint's history (added scope, burndown) as it is (an
   * export file brings its own); the activity entries and comments `tail` writes with it, counted.
   */
  imported?: {
    history?: boolean | undefined;
    activityCount?: number | undefined;
    commentsCount?: number | undefined;
    watcherIds?: number[] | undefined;
    /** Its custom fields' values, and the accounts they name (checked in the same transaction). */
    values?: StoredValues | undefined;
    accounts?: number[] | undefined;
  },
): Promise<void> {
  await issueWrite(
    insertSpec(orgId, projectId, {
      sprintId: issue.sprint_id,
      history: imported?.history,
      issues: [
        {
          issue,
          labelIds,
          authorId,
          parent,
          tail,
          activityCount: imported?.activityCount,
          commentsCount: imported?.commentsCount,
          watcherIds: imported?.watcherIds,
          values: imported?.values,
          accounts: imported?.accounts,
        },
      ],
    }),
  );
}

/** A new issue's own item and what the derivations read of it (`insertIssue`, `insertIssues`). */
function createdIssue(
  orgId: number,
  projectId: number,
  issue: Issue,
  parentNumber: string | undefined,
  labelIds: number[],
  authorId: number | undefined,
  /** An imported issue's counts of the entries and comments its create writes beside it, and its watchers when an export file says them. */
  counts: Pick<NewIssue, 'activityCount' | 'commentsCount' | 'watcherIds' | 'values'> = {},
) {
  // Labels are stored as ids (a number set; none: absent) and shown through the catalogue.
  // `blocked` is read from the count of open blockers (`toIssue`), never stored.
  // Its state is stored as its id and its category (`status`); the state's name is shown through the workflow.
  const {
    sub_issues_summary: _summary,
    labels: _shown,
    custom_fields: _values,
    blocked: _blocked,
    source_key: sourceKey,
    status: _name,
    status_category: status,
    ...rest
  } = issue;
  const fields = { ...rest, status };
  // The key in a source, for an imported issue only.
  const stored = sourceKey === null ? fields : { ...fields, source_key: sourceKey };
  const parent = parentNumber ? { parent_number: parentNumber } : {};
  const put = putNew(
    {
      ...keys.issue(orgId, projectId, issue.id),
      LSK: listKey(issue.sprint_id, issue.position, issue.id),
      ...storedIssueFields({ ...stored, ...parent }),
      type: issueItem.type,
      org_id: orgId,
      // No labels: no attribute (rather than the null an update that takes the last one off leaves).
      ...issueItem.encode({
        ...(labelIds.length > 0 ? { labelIds } : {}),
        customFields: counts.values ?? {},
        watcherIds: counts.watcherIds ?? initialWatchers(authorId, issue.assignee_id),
        authorId,
        rev: 0,
        commentsCount: counts.commentsCount ?? 0,
        ...(counts.activityCount ? { activityCount: counts.activityCount } : {}),
      }),
    },
    'issue_exists',
  );
  // As stored (`type` kept as `issue_type`): what the derivations read of it.
  const change: IssueChange = {
    after: issueStateOf(
      orgId,
      storedIssueFields({
        ...stored,
        ...parent,
        ...issueItem.encode({ labelIds, authorId: authorId ?? null, customFields: counts.values ?? {} }),
      }),
    ),
  };
  return { put, change };
}

/** Issues created together into one list: `insertIssues` (and `insertIssue`, one of them). */
export interface NewIssues {
  sprintId: number | null;
  /** The account creating them (kept for `author:` searches); an issue's own `authorId` wins. */
  authorId?: number | undefined;
  /** False: the sprint's history (added scope, burndown) is left as it is (an export file brings its own). */
  history?: boolean | undefined;
  issues: NewIssue[];
}

/** One issue of `NewIssues`. */
export interface NewIssue {
  issue: Issue;
  labelIds: number[];
  authorId?: number | undefined;
  /** Its parent (`parent_id` is the issue's): its number, shown on it, and the guard of the decision. */
  parent?: { number: string; guard: ParentGuard } | undefined;
  /** Items written with it (an import's source-key record, activity entry and first comments). */
  tail?: GuardedItem[] | undefined;
  /** The activity entries and comments its `tail` writes, kept as its counts. */
  activityCount?: number | undefined;
  commentsCount?: number | undefined;
  /** Who watches it (an export file's import); absent: its author and assignee. */
  watcherIds?: number[] | undefined;
  /** Its custom fields' values (by field id), and the accounts they name (checked in the same transaction). */
  values?: StoredValues | undefined;
  accounts?: number[] | undefined;
}

/** The one issue write of creates into one list: their items, the list's counters once, what they bring after. */
function insertSpec(orgId: number, projectId: number, batch: NewIssues): IssueWriteSpec {
  const created = batch.issues.map((n) => {
    return createdIssue(orgId, projectId, n.issue, n.parent?.number, n.labelIds, n.authorId ?? batch.authorId, n);
  });
  const tail = batch.issues.flatMap((n) => n.tail ?? []);
  // One guard per parent: each of its new children counts against its limit.
  const guards = new Map<number, ParentGuard>();
  for (const { parent } of batch.issues) {
    if (!parent) continue;
    const seen = guards.get(parent.guard.issueId);
    guards.set(parent.guard.issueId, seen ? { ...seen, maxChildren: seen.maxChildren - 1 } : parent.guard);
  }
  return {
    orgId,
    projectId,
    issues: created.map((c) => c.put),
    changes: created.map((c) => c.change),
    ownerReason: batch.sprintId === null ? 'project' : 'sprint',
    // The list's owner is in the transaction (its counters) whatever the issues.
    owners: [batch.sprintId],
    checks: [
      ...(batch.sprintId === null ? [] : [existsCheck(keys.project(orgId, projectId), 'project')]),
      ...fieldAccountChecks(orgId, batch.issues),
    ],
    ...(guards.size ? { parentGuards: [...guards.values()] } : {}),
    ...(tail.length ? { tail } : {}),
    ...(batch.history === false ? { ctx: { history: false } } : {}),
  };
}

/** The accounts new issues' custom fields name, checked (refused `field_account`) but for an assignee's, whose count proves it. */
function fieldAccountChecks(orgId: number, issues: readonly NewIssue[]): GuardedItem[] {
  const assignees = new Set(issues.map((n) => n.issue.assignee_id));
  const named = new Set(issues.flatMap((n) => n.accounts ?? []).filter((id) => !assignees.has(id)));
  return [...named].map((accountId) => accountExists(orgId, accountId, 'field_account'));
}

/** A transaction's bytes (DynamoDB's limit is 4 MB: some room is kept); its items, DynamoDB's limit (`TRANSACTION_ITEMS`). */
const TRANSACTION_BYTES = 3_000_000;

/**
 * Creates into one list, in order, cut into the fewest `insertIssues` transactions DynamoDB's
 * limits allow (what each transaction holds beside the issues included: the list's owner, the
 * assignees' counts, the parents' summaries, what each issue brings in its `tail`).
 */
export function insertChunks<T extends NewIssue>(
  orgId: number,
  projectId: number,
  batch: Omit<NewIssues, 'issues'>,
  issues: readonly T[],
): T[][] {
  return chunked(
    issues,
    (n) => [n.issue, n.tail ?? []],
    (chunk) => issueWriteItems(insertSpec(orgId, projectId, { ...batch, issues: chunk })).length,
  );
}

/** `entries` in order, cut where a transaction would pass DynamoDB's limits (`items` counts one's items). */
function chunked<T>(entries: readonly T[], content: (entry: T) => unknown, items: (chunk: T[]) => number): T[][] {
  const chunks: T[][] = [];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(content(entry)));
    const last = chunks.at(-1);
    if (last && bytes + size <= TRANSACTION_BYTES && items([...last, entry]) <= TRANSACTION_ITEMS) {
      last.push(entry);
      bytes += size;
    } else {
      chunks.push([entry]);
      bytes = size;
    }
  }
  return chunks;
}

/**
 * Creates issues of one list in one transaction (lib/db/issues/issue-write.ts): each issue and its
 * records, the list owner's counters once for all, each assignee's count once. All or nothing.
 */
export async function insertIssues(orgId: number, projectId: number, batch: NewIssues): Promise<void> {
  await issueWrite(insertSpec(orgId, projectId, batch));
}

/**
 * Reserves new issues of a project at once: their ids as one block of the organisation's issue
 * sequence, their numbers and positions from the project's, in two calls side by side. `kept`
 * gives, per issue, a number an import keeps (reserved before: `reserveIssueNumbers`), or
 * undefined for the sequence's next; a number is either. The project as written comes back
 * (prefix, catalogue, backlog count). Refused as `project` when it is gone.
 */
export async function allocateIssueSlots(orgId: number, projectId: number, count: number, kept: (number | undefined)[] = []) {
  const fresh = Array.from({ length: count }, (_, i) => kept[i] === undefined).filter(Boolean).length;
  const [ids, taken] = await Promise.all([
    advance(orgId, { issue: count }),
    takeSlot(
      orgId,
      projectId,
      projectItem.update({ add: { ...(fresh > 0 ? { issueSeq: fresh } : {}), positionSeq: count }, if: { exists: true } }),
    ),
  ]);
  if (!taken) throw new Refused('project');
  const firstId = ids.issue - count + 1;
  const firstPosition = taken.positionSeq - count + 1;
  let next = taken.number - fresh + 1;
  return {
    project: taken.project,
    prefix: taken.prefix,
    backlogCount: taken.backlogCount,
    slots: Array.from({ length: count }, (_, i) => ({
      id: firstId + i,
      number: kept[i] ?? next++,
      positionSeq: firstPosition + i,
    })),
  };
}

/** The fields an update of an issue sets, by its declaration's names (`updatedAt` always among them). */
export type IssueFieldChanges = Partial<StoredIssue>;

/** A state write (the model's) as the fields it sets: the state, its category and its times. */
export const stateFields = (state: StateWrite): IssueFieldChanges => ({
  stateId: state.state_id,
  status: state.status,
  startedAt: state.started_at,
  completedAt: state.completed_at,
});

/** The stored issue as an update's changes leave it (what the derivations read of it after). */
export const withChanges = (item: IssueItem, set: IssueFieldChanges): IssueItem => ({ ...item, ...issueItem.encode(set) });

/** Everything one issue update writes. */
export interface IssueWrite {
  id: number;
  /** The `rev` the decision was made on. */
  rev: number | undefined;
  /** Fields to set. */
  set: IssueFieldChanges;
  /** The issue before and after the write (its stored position in both). */
  before: IssueState;
  after: IssueState;
  /** A new list and/or position was decided. */
  placed: boolean;
  /** A position computed on a read of the target list: that list's revision is checked and bumped. */
  listRev?: { expected: number | undefined } | undefined;
  /** Neighbours renumbered in the target list, in the same transaction. */
  renumber?: Renumbering[] | undefined;
  /** A new assignee, checked in the same transaction. */
  assigneeId?: number | undefined;
  /** Accounts its custom fields newly name, checked in the same transaction (refused `field_account`). */
  fieldAccounts?: number[] | undefined;
  /** A new parent: checked as read (lib/db/issues/issue-write.ts: `ParentGuard`). */
  parentGuard?: ParentGuard | undefined;
  /** Issues known to be gone (a parent deleted, its cascade pending): their counters are not kept. */
  goneIssues?: number[] | undefined;
  /** The activity entry this write reverts: marked on the issue with the revision the write makes. */
  reverts?: string | undefined;
  /** What made the change, for an integration's write (a pull request's URL): marked likewise. */
  via?: string | undefined;
}

function renumberItem(orgId: number, projectId: number, sprintId: number | null, r: Renumbering): GuardedItem {
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.issue(orgId, projectId, r.id),
        UpdateExpression: 'SET LSK = :lsk, #position = :to',
        ConditionExpression: 'LSK = :old',
        ExpressionAttributeNames: { '#position': 'position' },
        ExpressionAttributeValues: {
          ':lsk': listKey(sprintId, r.to, r.id),
          ':to': r.to,
          ':old': listKey(sprintId, r.from, r.id),
        },
      },
    },
    reason: 'stale',
  };
}

/**
 * Applies one issue update as a single transaction: the issue (conditioned on its `rev`), the
 * renumbered neighbours (each conditioned on its old key), what every derivation keeps of the
 * change (lib/db/issues/issue-write.ts; the list owners' updates refused as `stale`), the list revision
 * of a computed position and the assignee check.
 */
export async function writeIssue(orgId: number, projectId: number, write: IssueWrite): Promise<void> {
  const target = write.after.sprintId;
  const renumber = write.renumber ?? [];
  await issueWrite({
    orgId,
    projectId,
    issues: [issueUpdateItem(orgId, projectId, write), ...renumber.map((r) => renumberItem(orgId, projectId, target, r))],
    changes: [
      { before: write.before, after: write.after },
      ...renumber.map((r) => repositioned({ orgId, projectId, sprintId: target }, r)),
    ],
    listRev: write.listRev ? { sprintId: target, expected: write.listRev.expected } : undefined,
    parentGuard: write.parentGuard,
    goneIssues: write.goneIssues,
    checks: assigneeChecks(orgId, [write]),
  });
}

/** The issue's own update of a write: its fields (and key, when placed), conditioned on its `rev`. */
function issueUpdateItem(orgId: number, projectId: number, write: IssueWrite): GuardedItem {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':rev': write.rev ?? 0, ':one': 1 };
  const fields: Record<string, unknown> = issueItem.encode(write.set);
  if (write.reverts !== undefined) {
    Object.assign(fields, issueItem.encode({ reverted: { entry: write.reverts, rev: (write.rev ?? 0) + 1 } }));
  }
  if (write.via !== undefined)
    Object.assign(fields, issueItem.encode({ changedVia: { url: write.via, rev: (write.rev ?? 0) + 1 } }));
  if (write.placed) {
    fields.position = write.after.position;
    fields.LSK = listKey(write.after.sprintId, write.after.position, write.id);
  }
  const sets = setAssignments(fields, names, values);
  // A new assignee watches the issue from then on (docs/notifications.md).
  const assignee = write.after.assigneeId;
  const watches = assignee !== null && assignee !== write.before.assigneeId;
  if (watches) {
    names['#watchers'] = issueItem.stored('watcherIds');
    values[':watcher'] = new Set([assignee]);
  }
  return {
    item: {
      Update: {
        TableName: tableName(),
        Key: keys.issue(orgId, projectId, write.id),
        UpdateExpression: `${sets.length ? `SET ${sets.join(', ')} ` : ''}ADD rev :one${watches ? ', #watchers :watcher' : ''}`,
        ConditionExpression: revisionCondition(write.rev),
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    },
    reason: 'stale',
    resource: true,
  };
}

/**
 * An assignee given but unchanged is still checked; a changed one is by its count (lib/db/issues/issue-write.ts).
 * Once per account, and not for one whose count the same transaction moves (one item, one operation).
 */
function assigneeChecks(orgId: number, writes: readonly IssueWrite[]): GuardedItem[] {
  const counted = new Set(
    writes.filter((w) => w.before.assigneeId !== w.after.assigneeId).flatMap((w) => [w.before.assigneeId, w.after.assigneeId]),
  );
  const checked = new Set(
    writes
      .filter((w) => w.assigneeId !== undefined && w.assigneeId === w.before.assigneeId && !counted.has(w.assigneeId))
      .map((w) => w.assigneeId!),
  );
  const fieldAccounts = writes.flatMap((w) => w.fieldAccounts ?? []).filter((id) => !counted.has(id) && !checked.has(id));
  return [
    ...[...checked].map((accountId) => accountExists(orgId, accountId, 'assignee')),
    ...[...new Set(fieldAccounts)].map((accountId) => accountExists(orgId, accountId, 'field_account')),
  ];
}

/** Updates that leave their issues where they are (no place, no renumbering, no new parent), written together. */
export type PlainWrite = Omit<IssueWrite, 'placed' | 'listRev' | 'renumber' | 'parentGuard'>;

const updatesSpec = (orgId: number, projectId: number, writes: readonly PlainWrite[]): IssueWriteSpec => ({
  orgId,
  projectId,
  issues: writes.map((w) => issueUpdateItem(orgId, projectId, { ...w, placed: false })),
  changes: writes.map((w) => ({ before: w.before, after: w.after })),
  goneIssues: writes.flatMap((w) => w.goneIssues ?? []),
  checks: assigneeChecks(orgId, writes as IssueWrite[]),
});

/**
 * Applies updates of different issues as one transaction (lib/db/issues/issue-write.ts): each issue
 * conditioned on its `rev`, what every derivation keeps of all of them (a list's counters, an
 * account's count, a parent's summary: once each). All or nothing.
 */
export async function writeIssues(orgId: number, projectId: number, writes: readonly PlainWrite[]): Promise<void> {
  await issueWrite(updatesSpec(orgId, projectId, writes));
}

/** Updates cut, in order, into the fewest `writeIssues` transactions DynamoDB's limits allow. */
export function updateChunks<T extends PlainWrite>(orgId: number, projectId: number, writes: readonly T[]): T[][] {
  return chunked(
    writes,
    (w) => issueItem.encode(w.set),
    (chunk) => issueWriteItems(updatesSpec(orgId, projectId, chunk)).length,
  );
}

/**
 * Renumbers neighbours on their own, with their list's rank index: the rare re-append of a packed
 * run (lib/services/issues.ts). At most 49 moves (a transaction holds 100 items: each move is two,
 * the issue and its search record).
 */
export async function renumberIssues(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  moves: Renumbering[],
): Promise<void> {
  if (moves.length === 0) return;
  await issueWrite({
    orgId,
    projectId,
    issues: moves.map((r) => renumberItem(orgId, projectId, sprintId, r)),
    changes: moves.map((r) => repositioned({ orgId, projectId, sprintId }, r)),
    owners: [sprintId],
  });
}

/**
 * Moves an issue into the organisation's trash in one transaction: the issue's delete (conditioned
 * on the `rev` its counters were read with), what every derivation keeps of it (lib/db/issues/issue-write.ts),
 * the delete's marker (who deleted it, lib/db/core/deletions.ts) and the trash item (the issue whole,
 * lib/db/core/trash.ts). What lives under it (comments, activity, attachments) is unreachable at once
 * (reads check the issue) and kept for a restore; the cascade removes it on its purge.
 */
export async function deleteIssue(
  orgId: number,
  projectId: number,
  issue: IssueItem,
  trash: { deletedBy: number; retentionDays: number },
  /** Its parent when it is gone (in the trash): its summary is not kept. */
  goneIssues?: number[],
): Promise<void> {
  await issueWrite({
    orgId,
    projectId,
    issues: [
      {
        item: {
          Delete: {
            TableName: tableName(),
            Key: keys.issue(orgId, projectId, issue.id),
            ConditionExpression: revisionCondition(issue.rev),
            ExpressionAttributeValues: { ':rev': issue.rev ?? 0 },
          },
        },
        reason: 'stale',
        resource: true,
      },
    ],
    changes: [{ before: issueStateOf(orgId, issue as never) }],
    goneIssues,
    tail: [
      ...deletionMarker(keys.issue(orgId, projectId, issue.id)),
      trashPut(
        orgId,
        'issue',
        issue as unknown as Record<string, unknown>,
        trashTitle(`${issue.issue_number} ${String(issue.title)}`),
        trash.deletedBy,
        trash.retentionDays,
      ),
    ],
  });
}

/**
 * Keys-only read of a list (LSI1Keys), in list order or backwards, optionally from a sibling on
 * (inclusive), up to `limit` keys.
 */
async function readListKeys(
  collection: Collection,
  options: { forward: boolean; limit?: number | undefined; from?: string | undefined },
): Promise<{ slots: Slot[]; exhausted: boolean }> {
  const slots: Slot[] = [];
  const range = options.from
    ? options.forward
      ? { ':low': options.from, ':high': `${collection.prefix}\uffff` }
      : { ':low': collection.prefix, ':high': options.from }
    : undefined;
  const { limit } = options;
  const end = await queryPages(
    {
      IndexName: 'LSI1Keys',
      KeyConditionExpression: range ? 'PK = :pk AND LSK BETWEEN :low AND :high' : 'PK = :pk AND begins_with(LSK, :prefix)',
      ExpressionAttributeValues: { ':pk': collection.pk, ...(range ?? { ':prefix': collection.prefix }) },
      ScanIndexForward: options.forward,
    },
    { limit: limit === undefined ? undefined : () => limit - slots.length },
    (page) => {
      for (const item of page) {
        const parsed = parseIssueListKey(String(item.LSK));
        if (parsed) slots.push({ id: parsed.issueId, position: parsed.position });
      }
      return limit === undefined || slots.length < limit;
    },
  );
  return { slots, exhausted: !end || (limit !== undefined && slots.length < limit) };
}

/**
 * One keys-only Query (LSI1Keys) for a move to `place` (see lib/model/positions.ts): from the
 * block of the list's rank index that holds place - margin, at most one block + 2 x margin keys,
 * never the whole list. `moved` is the moving issue's key if it is in this list now.
 */
export async function windowAroundPlace(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  options: { place: number; index: RankIndex; movedId: number; movedPosition?: number | undefined; margin: number },
): Promise<ListWindow> {
  const { block, before, limit } = windowReadAt(options.index, options.place, options.margin);
  const read = await readListKeys(listCollection(orgId, projectId, sprintId), {
    forward: true,
    limit,
    from: listKeys.issueFrom(sprintId, blockStart(block)),
  });
  const movedBefore = options.movedPosition !== undefined && blockOf(options.movedPosition) < block;
  return windowAt(read.slots, before, read.exhausted, options.movedId, movedBefore);
}

/**
 * Siblings from `from` (inclusive) towards the end of the list (`forward`) or its start, nearest
 * first, keys only, up to `limit` (all of them without one).
 */
export async function readSide(
  orgId: number,
  projectId: number,
  sprintId: number | null,
  from: Slot,
  forward: boolean,
  limit?: number,
): Promise<{ slots: Slot[]; exhausted: boolean }> {
  return readListKeys(listCollection(orgId, projectId, sprintId), {
    forward,
    limit,
    from: listKey(sprintId, from.position, from.id),
  });
}

/**
 * THE way issues are appended, in the given order, to the end of a list (a sprint, or the backlog
 * with `null`) when they come from another list: the transaction items that move them, each
 * conditioned on still being in `from` (so a step repeated by a second finisher moves nothing
 * twice), and on its `rev` when one is given; and the changes they are (for lib/db/issues/issue-write.ts,
 * which adds what the derivations keep of them). Positions come from the project's allocator: one
 * atomic ADD for the whole run, so they are above everything in the list when the items commit in
 * order; or, with `firstSeq`, the values from there on of a block reserved before for more than
 * this run (a large sprint completion reserves its moves' places once, lib/db/issues/sprint-completion.ts).
 * Sprint completion uses it (lib/services/sprints.ts).
 */
export async function appendToList(
  orgId: number,
  projectId: number,
  list: number | null,
  issues: OpenIssue[],
  move: { from: number; now: string; firstSeq?: number | undefined },
): Promise<{ moves: GuardedItem[]; changes: IssueChange[] }> {
  if (issues.length === 0) return { moves: [], changes: [] };
  const appended = appendToEnd(issues, move.firstSeq ?? (await allocatePositions(orgId, projectId, issues.length)));
  const moves: GuardedItem[] = [];
  const changes: IssueChange[] = [];
  issues.forEach((issue, i) => {
    const position = appended.moves[i]?.to as number;
    // What a move reads of the issue: its last update time is not needed (replaced).
    const before: IssueState = {
      orgId,
      projectId,
      id: issue.id,
      number: issue.issue_number,
      sprintId: move.from,
      position: issue.position,
      status: issue.status,
      stateId: issue.state_id,
      storyPoints: issue.story_points,
      assigneeId: issue.assignee_id,
      updatedAt: '',
      priority: issue.priority,
      type: issue.type,
      dueDate: issue.due_date,
      parentId: issue.parent_id ?? null,
      parentNumber: issue.parent_number ?? null,
      title: issue.title,
    };
    changes.push({ before, after: { ...before, sprintId: list, position, updatedAt: move.now } });
    moves.push({
      item: {
        Update: {
          TableName: tableName(),
          Key: keys.issue(orgId, projectId, issue.id),
          UpdateExpression: 'SET sprint_id = :to, LSK = :lsk, #position = :position, updated_at = :now ADD rev :one',
          // With `rev`: also unchanged since it was read (a move decided on a read, not on a frozen sprint).
          ConditionExpression: `sprint_id = :from AND ${issue.rev === undefined ? 'attribute_exists(PK)' : revisionCondition(issue.rev)}`,
          ExpressionAttributeNames: { '#position': 'position' },
          ExpressionAttributeValues: {
            ...(issue.rev === undefined ? {} : { ':rev': issue.rev }),
            ':to': list,
            ':from': move.from,
            ':lsk': listKey(list, position, issue.id),
            ':position': position,
            ':now': move.now,
            ':one': 1,
          },
        },
      },
      reason: 'moved',
    });
  });
  return { moves, changes };
}

/** What sprint completion needs of an issue it moves. */
export interface OpenIssue {
  id: number;
  /** Its stored key in the sprint's list. */
  position: number;
  rev: number;
  status: IssueStatus;
  /** Its workflow state (null: its category's home, lib/model/workflow.ts). */
  state_id: number | null;
  story_points: number | null;
  assignee_id: number | null;
  /** Carried by the assignee's index entry, which a move rewrites. */
  priority: IssuePriority;
  type: IssueType;
  due_date: string | null;
  /** Its parent, with what the parent's children index shows of it (read only for an issue with a parent). */
  parent_id?: number | null | undefined;
  parent_number?: string | null | undefined;
  /** Its number (`<prefix>-<n>`), whose pointer a move rewrites. */
  issue_number: string;
  title?: string | undefined;
}

const openIssueFields = [
  'id',
  'rev',
  'status',
  'stateId',
  'storyPoints',
  'position',
  'assigneeId',
  'priority',
  'type',
  'dueDate',
  'parentId',
  'parentNumber',
  'number',
  'title',
] as const satisfies (keyof StoredIssue)[];

/**
 * The issues of a sprint whose status is one of `statuses`, in list order. One Query per MB of
 * the sprint's issues (the filter applies after the read).
 */
export async function sprintIssuesWithStatus(
  orgId: number,
  projectId: number,
  sprintId: number,
  statuses: readonly IssueStatus[],
): Promise<OpenIssue[]> {
  const collection = collections.sprintIssues(orgId, projectId, sprintId);
  const open: OpenIssue[] = [];
  const read = issueItem.projection(openIssueFields);
  await queryPages(
    {
      IndexName: 'LSI1',
      KeyConditionExpression: 'PK = :pk AND begins_with(LSK, :prefix)',
      FilterExpression: `#status IN (${statuses.map((_, i) => `:s${i}`).join(', ')})`,
      ProjectionExpression: read.ProjectionExpression,
      ExpressionAttributeNames: { '#status': 'status', ...read.ExpressionAttributeNames },
      ExpressionAttributeValues: {
        ':pk': collection.pk,
        ':prefix': collection.prefix,
        ...Object.fromEntries(statuses.map((status, i) => [`:s${i}`, status])),
      },
    },
    {},
    (page) => {
      for (const item of page) {
        const i = issueItem.decode(item);
        open.push({
          id: i.id,
          position: i.position,
          rev: i.rev,
          status: i.status,
          state_id: i.stateId,
          story_points: i.storyPoints,
          assignee_id: i.assigneeId,
          priority: i.priority,
          type: i.type,
          due_date: i.dueDate,
          // Its number: the pointer a move rewrites (it keeps the issue's list).
          issue_number: i.number,
          ...(i.parentId !== null ? { parent_id: i.parentId, parent_number: i.parentNumber, title: String(i.title) } : {}),
        });
      }
    },
  );
  return open;
}

/**
 * What creates into one list check before they take numbers: the project, the sprint (unless the
 * backlog) and the accounts named as assignees, in one BatchGet. `accounts` holds those that exist.
 */
export async function getCreateContext(orgId: number, projectId: number, sprintId: number | null, assigneeIds: number[]) {
  const wanted = [...new Set(assigneeIds)];
  const found = await batchGet([
    keys.project(orgId, projectId),
    ...(sprintId === null ? [] : [keys.sprint(orgId, projectId, sprintId)]),
    ...wanted.map((id) => keys.account(orgId, id)),
  ]);
  const offset = sprintId === null ? 1 : 2;
  return {
    project: found[0] as ProjectItem | undefined,
    sprint: sprintId === null ? undefined : (found[1] as SprintItem | undefined),
    accounts: new Set(wanted.filter((_, i) => found[offset + i] !== undefined)),
  };
}

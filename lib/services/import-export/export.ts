import { createHash } from 'node:crypto';
import { toIssue } from '../../db/issues.ts';
import { issueItem } from '../../db/issue-item.ts';
import { catalogueOf } from '../../db/labels.ts';
import { toLabel } from '../../db/labels.ts';
import { lastIssueNumber, toProject } from '../../db/projects.ts';
import { workflowOf } from '../../db/workflow.ts';
import { stateAnswer } from '../states.ts';
import {
  exportCollections,
  readWalkPage,
  walkKeyIn,
  walkKeyOf,
  withoutLayout,
  type WalkedCollection,
  type WalkKey,
} from '../../db/organisation-walk.ts';
import { storedRelations } from '../../db/relations.ts';
import { sprintHistoryOf, sprintItem, toSprint } from '../../db/sprints.ts';
import { commentItem, toComment } from '../../db/comments.ts';
import { toActivity } from '../activity.ts';
import { attachmentAnswer, attachmentItem, commentsWithFilesInTrash } from '../../db/attachments.ts';
import { exportedFileName, isShown } from '../../model/attachments.ts';
import { toAccount } from '../../db/accounts.ts';
import { getOrganisation } from '../../db/organisation.ts';
import { trashItem, type TrashFields } from '../../db/trash.ts';
import { isExpired, trashId, type TrashKind } from '../../model/trash.ts';
import { NotFoundError, ValidationError } from '../../vocabulary/errors.ts';

/**
 * An organisation as JSON Lines (docs/import-export.md): a header line, then one line per
 * account, project, label, sprint (with its report and history), issue (with its relations),
 * comment, ready attachment (its manifest: the file itself is the admin CLI's to write, `--files`;
 * none of a comment in the trash) and activity entry, each with `kind`; then an `end` line with the counts and the digest
 * of the lines before it. Read page by page (each DynamoDB page is written out before the next is
 * read), so memory stays bounded at any size. Never written: tokens, webhook endpoints and their
 * secrets (trashed ones too), OAuth data, idempotency records. Asked to (`include_trash`), it also
 * writes the organisation's trash before the `end` line: a `trash` line per trashed item of a kind
 * an export carries (labels today), `{id, item_kind, deleted_at, deleted_by, deleted_by_email,
 * expires_at, item}`, `item` as the item's own line would show it. An import skips them.
 */

/** An activity entry's line: as stored, under the id the API shows (what a revert's `reverts` names). */
const activityLine = (item: Record<string, unknown>) => ({ ...withoutLayout(item), id: toActivity(item).id });

export const EXPORT_FORMAT = 'sprint-ticketing-export';
/** 2: the `end` line's digest; accounts' `created_at`; issues' `source_key` and `author_email`; sprints' `history`. */
export const EXPORT_VERSION = 2;

/**
 * The digest of the lines so far, given the digest before `line` (`''` before the first):
 * SHA-256 (hex) of that digest, the line and its line break. A chain, so that a page of the
 * export over REST carries it on in its cursor; the `end` line holds the last.
 */
export const chainDigest = (before: string, line: string) =>
  createHash('sha256').update(before).update(line).update('\n').digest('hex');

/**
 * A resource as the API answers it, every field written: its own fields only, never filtered by
 * the stored layout's names (an issue's `type` is its type, not the item's kind).
 */
const dropVersion = <T extends object>(o: T) => ({ ...o });

type Key = WalkKey;

/**
 * Where an export stands, between two lines: enough to go on from there in another request
 * (`GET /api/v1/export`'s cursor). `stage` 0 is before the header, 1 in the accounts, 2 in the
 * projects, 3 in the trash (`trash`: only when asked) and before the `end` line, 4 done. In the projects: `before` is the key of the project
 * before the current one (null: the first), `step` what of the project comes next (0 its line,
 * 1 labels, 2 sprints, 3 sprint issues, 4 backlog issues, 5 comments, attachments and activity), `after` the
 * key of the last item written in that step; `list` and `place` the issues' list and place so far.
 */
export interface ExportPosition {
  stage: number;
  counts: Record<string, number>;
  after?: Key | undefined;
  before?: Key | null | undefined;
  step?: number | undefined;
  list?: number | null | undefined;
  place?: number | undefined;
  /** The digest of the lines written so far (`chainDigest`). */
  digest?: string | undefined;
  /** The export includes the trash (`include_trash`); absent: it does not. */
  trash?: true | undefined;
}

export const exportStart = (includeTrash = false): ExportPosition => ({
  stage: 0,
  counts: {},
  ...(includeTrash ? { trash: true as const } : {}),
});

/** A copy of `p` that later steps of the walk do not change. */
export const exportPositionSnapshot = (p: ExportPosition): ExportPosition => JSON.parse(JSON.stringify(p)) as ExportPosition;

export interface ExportWalkOptions {
  /** Asked before each DynamoDB call: false pauses the walk there (it ends, `position` telling where). */
  mayRead?: () => boolean;
  now?: Date;
  /** Items per Query page. */
  pageSize?: number;
}

class Paused extends Error {
  override readonly name = 'Paused';
}

/**
 * THE export (the CLI and the REST route both walk it): from `position` on (mutated as it goes:
 * between two yielded lines it says where the next line starts), the lines of the organisation's
 * export, each a JSON document without its line break. Reads page by page, so memory stays bounded.
 */
export async function* walkExport(
  orgId: number,
  position: ExportPosition,
  options: ExportWalkOptions = {},
): AsyncGenerator<string> {
  const pageSize = options.pageSize ?? 500;
  const read = async (collection: WalkedCollection, start: Key | undefined, limit = pageSize) => {
    if (options.mayRead && !options.mayRead()) throw new Paused();
    return readWalkPage(collection, start, limit);
  };
  /** Every item of a query from `position.after` on; `position.after` follows the items handed out. */
  async function* items(collection: WalkedCollection): AsyncGenerator<Record<string, unknown>> {
    let start = position.after;
    // A cursor's key must lie in the query it resumes (DynamoDB would refuse it as a 500).
    if (start && !walkKeyIn(start, collection)) throw new ValidationError(['cursor is not valid for this export']);
    do {
      const page = await read(collection, start);
      for (const item of page.items) {
        position.after = walkKeyOf(item, collection);
        yield item;
      }
      start = page.next;
    } while (start);
  }
  const counts = position.counts;
  /** A line of the file, taken into the digest. */
  const digested = (text: string) => {
    position.digest = chainDigest(position.digest ?? '', text);
    return text;
  };
  const line = (kind: string, data: object) => {
    counts[kind] = (counts[kind] ?? 0) + 1;
    return digested(JSON.stringify({ kind, ...data }));
  };
  // E-mails by account id: read again by a walk that resumes in the projects.
  const emails = new Map<number, string>();
  const email = (id: unknown) => (typeof id === 'number' ? (emails.get(id) ?? null) : null);
  try {
    if (position.stage === 0) {
      const org = await readOrganisation(orgId, options);
      position.stage = 1;
      position.after = undefined;
      yield digested(
        JSON.stringify({
          format: EXPORT_FORMAT,
          version: EXPORT_VERSION,
          organisation: { id: orgId, name: org.name },
          exported_at: (options.now ?? new Date()).toISOString(),
        }),
      );
    }
    if (position.stage === 1) {
      for await (const a of items(exportCollections.accounts(orgId))) {
        emails.set(Number(a.id), String(a.email));
        yield line('account', toAccount(a));
      }
      Object.assign(position, { stage: 2, after: undefined, before: null, step: 0 });
    } else if (position.stage === 2 || (position.stage === 3 && position.trash)) {
      let start: Key | undefined;
      do {
        const page = await read(exportCollections.accounts(orgId), start);
        for (const a of page.items) emails.set(Number(a.id), String(a.email));
        start = page.next;
      } while (start);
    }
    while (position.stage === 2) {
      // The current project: the first after `before`.
      const before = position.before;
      const projects = exportCollections.projects(orgId);
      if (before && !walkKeyIn(before, projects)) throw new ValidationError(['cursor is not valid for this export']);
      const project = (await read(projects, position.before ?? undefined, 1)).items[0];
      if (!project) {
        Object.assign(position, { stage: 3, after: undefined, before: undefined, step: undefined });
        break;
      }
      yield* projectLines(project);
      Object.assign(position, {
        before: walkKeyOf(project, projects),
        step: 0,
        after: undefined,
        list: undefined,
        place: undefined,
      });
    }
    if (position.stage === 3) {
      if (position.trash) {
        const now = (options.now ?? new Date()).getTime();
        for await (const item of items(exportCollections.trash(orgId))) {
          const trashed = trashItem.decode(item);
          const shown = trashedLines[trashed.kind];
          if (shown && !isExpired(trashed.expiresAt, now)) yield line('trash', trashLine(trashed, shown(trashed.stored, email)));
        }
      }
      position.stage = 4;
      yield JSON.stringify({ kind: 'end', counts, digest: position.digest ?? '' });
    }
  } catch (e) {
    if (e instanceof Paused) return;
    throw e;
  }

  async function* projectLines(project: Record<string, unknown>): AsyncGenerator<string> {
    const projectId = Number(project.id);
    const workflow = workflowOf(project);
    const next = (step: number) => Object.assign(position, { step, after: undefined });
    if ((position.step ?? 0) === 0) {
      next(1);
      // The last number handed out: numbers are never handed out twice, those of deleted issues included.
      yield line('project', {
        ...dropVersion(toProject(project)),
        last_issue_number: lastIssueNumber(project),
        // Its workflow, in board order, as GET …/states answers it (docs/workflows.md), the project's id aside.
        states: workflow.states.map((s) => {
          const { project_id: _project, ...state } = dropVersion(stateAnswer(orgId, projectId, s));
          return state;
        }),
      });
    }
    if (position.step === 1) {
      for await (const l of items(exportCollections.labels(orgId, projectId))) yield line('label', dropVersion(toLabel(l)));
      next(2);
    }
    if (position.step === 2) {
      for await (const s of items(exportCollections.sprints(orgId, projectId))) {
        if (s.type === 'sprint')
          yield line('sprint', {
            ...dropVersion(toSprint(s)),
            sprint_lead_email: email(sprintItem.field(s, 'sprintLeadId')),
            history: sprintHistoryOf(s),
          });
        else if (s.type === 'activity') yield line('activity', activityLine(s));
      }
      Object.assign(position, { step: 3, after: undefined, list: undefined, place: 0 });
    }
    const catalogue = catalogueOf(project);
    // Issues in list order (every sprint's, then the backlog), each with its place.
    while (position.step === 3 || position.step === 4) {
      const issues = position.step === 3 ? exportCollections.sprintIssues : exportCollections.backlogIssues;
      for await (const item of items(issues(orgId, projectId))) {
        const list = issueItem.field(item, 'sprintId');
        if (list !== position.list) Object.assign(position, { list, place: 0 });
        position.place = (position.place ?? 0) + 1;
        const relations = Object.entries(storedRelations(item)).map(([id, side]) => ({ id, ...side }));
        yield line('issue', {
          ...dropVersion(toIssue(item, position.place, catalogue, workflow)),
          assignee_email: email(issueItem.field(item, 'assigneeId')),
          author_email: email(issueItem.field(item, 'authorId')),
          relations,
        });
      }
      Object.assign(position, { step: position.step + 1, after: undefined, list: undefined, place: 0 });
    }
    if (position.step === 5) {
      // The comments of the issue whose contents come now that are in the trash: their attachments
      // are not written (they are in no answer until their comment's restore). An issue's item
      // comes just before its contents; a walk resumed among them reads it.
      let inTrash: { issueId: number; comments: number[] } | undefined;
      const shownHere = async (a: { issueId: number; commentId: number | null }) => {
        if (a.commentId === null) return true;
        if (inTrash?.issueId !== a.issueId)
          inTrash = { issueId: a.issueId, comments: await commentsWithFilesInTrash(orgId, projectId, a.issueId) };
        return isShown(a, inTrash.comments);
      };
      for await (const item of items(exportCollections.issueContents(orgId, projectId))) {
        if (item.type === 'issue')
          inTrash = { issueId: issueItem.field(item, 'id'), comments: issueItem.field(item, 'commentsWithFilesInTrash') };
        else if (item.type === 'comment')
          yield line('comment', { ...dropVersion(toComment(item)), author_email: email(commentItem.field(item, 'authorId')) });
        else if (item.type === 'activity') yield line('activity', activityLine(item));
        else if (
          item.type === 'attachment' &&
          attachmentItem.field(item, 'status') === 'ready' &&
          (await shownHere(attachmentItem.decode(item)))
        )
          yield line('attachment', attachmentLine(item));
      }
    }
  }

  /** A trashed item's line: what the trash shows of it, and the item as its own line would. */
  function trashLine(t: TrashFields, item: object) {
    return {
      id: trashId(t.kind, t.itemId),
      item_kind: t.kind,
      deleted_at: t.deletedAt,
      deleted_by: t.deletedBy,
      deleted_by_email: email(t.deletedBy),
      expires_at: new Date(t.expiresAt * 1000).toISOString(),
      item,
    };
  }

  /**
   * A ready attachment's manifest line: everything its import needs to re-create it, and `file`,
   * where its bytes lie in the folder of files. A pending one (declared, its file never completed)
   * is no line: it has no file yet, and expires unless completed.
   */
  function attachmentLine(item: Record<string, unknown>) {
    const a = attachmentItem.decode(item);
    // The answer's fields but what an answer signs or says of now (its URL, its status: ready).
    const { status: _status, download_url: _url, download_expires_at: _expires, ...answer } = attachmentAnswer(a);
    return { ...answer, project_id: a.projectId, uploader_email: email(a.uploaderId), file: exportedFileName(a.id, a.name) };
  }
}

/**
 * The trashed kinds an export writes, each with its item as its own line shows it (a label as a
 * `label` line, a comment as a `comment` line, its author's e-mail by `email`). A kind with none is
 * left out: an export never carries webhook endpoints.
 */
const trashedLines: Partial<
  Record<TrashKind, (stored: Record<string, unknown>, email: (accountId: unknown) => string | null) => object>
> = {
  label: (stored) => dropVersion(toLabel(stored)),
  comment: (stored, email) => ({ ...dropVersion(toComment(stored)), author_email: email(commentItem.field(stored, 'authorId')) }),
};

async function readOrganisation(orgId: number, options: ExportWalkOptions) {
  if (options.mayRead && !options.mayRead()) throw new Paused();
  const org = await getOrganisation(orgId);
  if (!org) throw new NotFoundError('Organisation');
  return org;
}

/** The lines of an organisation's export, each a JSON document without its line break. */
export async function* exportOrganisation(orgId: number, now = new Date(), includeTrash = false): AsyncGenerator<string> {
  yield* walkExport(orgId, exportStart(includeTrash), { now });
}

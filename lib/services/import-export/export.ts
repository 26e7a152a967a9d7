import { issueItem } from '../../db/issues/issue-item.ts';

import { lastIssueNumber, projectItem } from '../../db/projects/projects.ts';
import { workflowOf } from '../../db/projects/workflow.ts';
import { fieldsOf } from '../../db/projects/custom-fields.ts';

import { stateAnswer } from '../states.ts';

import {
  exportCollections,
  ownerOf,
  projectThereOrTrashed,
  readWalkPage,
  sprintIsThere,
  walkKeyIn,
  walkKeyOf,
  withoutLayout,
  type WalkedCollection,
  type WalkKey,
} from '../../db/organisation/organisation-walk.ts';

import { issueOfContents } from '../../db/issues/issue-contents.ts';

import { storedRelations } from '../../db/issues/relations.ts';

import { sprintHistoryOf, sprintItem } from '../../db/projects/sprints.ts';
import { commentItem, toComment } from '../../db/comments/comments.ts';

import { toActivity } from '../activity.ts';

import { attachmentItem } from '../../db/attachments/attachments.ts';
import { exportedFileName, isShown } from '../../model/attachments.ts';

import { getOrganisation } from '../../db/organisation/organisation.ts';

import { trashItem, type TrashFields } from '../../db/core/trash.ts';

import { isExpired, trashId } from '../../model/trash.ts';

import { NotFoundError, ValidationError } from '../../vocabulary/errors.ts';

import { getRepository, githubLinkItem, type GitHubRepo } from '../../db/github/github.ts';

import { linkOf } from '../github-links.ts';

import { chainDigest, EXPORT_FORMAT, EXPORT_VERSION } from './file-checks.ts';

import { DONE, firstStep, stepAfter, trashScope, type ExportScope } from '../../model/formats/export-plan.ts';
import { attachmentAnswer, rulesOf, toIssue, toLabel } from '../../../lib/resources/issues.ts';
import { toAccount } from '../../../lib/resources/organisation.ts';
import { toProject, toSprint } from '../../../lib/resources/projects.ts';

/**
 * An organisation as JSON Lines: a header line, a line per account, project, label, sprint,
 * issue, comment, ready attachment, GitHub link, activity entry and GitHub connection, the trash
 * when asked (`include_trash`), then an `end` line with the counts and the digest
 * (docs/import-export.md). Read page by page, so memory stays bounded at any size. Never written:
 * tokens, webhook endpoints and their secrets, OAuth data, idempotency records.
 */

/** An activity entry's line: as stored, under the id the API shows (what a revert's `reverts` names). */
const activityLine = (item: Record<string, unknown>) => ({ ...withoutLayout(item), id: toActivity(item).id });

export { chainDigest, DONE, EXPORT_FORMAT, EXPORT_VERSION };

/**
 * A resource as the API answers it, every field written: its own fields only, never filtered by
 * the stored layout's names (an issue's `type` is its type, not the item's kind).
 */
const dropVersion = <T extends object>(o: T) => ({ ...o });

type Key = WalkKey;

/**
 * Where an export stands, between two lines: enough to go on from there in another request
 * (`GET /api/v1/export`'s cursor). `stage` 0 is before the header, 1 in the accounts, 2 in the
 * projects, 3 in the trash (`trash`: only when asked) and before the `end` line, 4 done. In the
 * projects (and the trash): `before` is the key of the project (trash item) before the current
 * one (null: the first), `step` what of it comes next (0 its line, then the steps of
 * lib/model/formats/export-plan.ts), `after` the key of the last item written in that step;
 * `list` and `place` the issues' list and place so far.
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
  try {
    yield* new ExportWalk(orgId, position, options).lines();
  } catch (e) {
    if (e instanceof Paused) return;
    throw e;
  }
}

/** One walk of the export from a position (`walkExport`): its reads, counted, and the lines of each part. */
class ExportWalk {
  private readonly orgId: number;
  private readonly position: ExportPosition;
  private readonly options: ExportWalkOptions;
  private readonly pageSize: number;
  // Where the walk stood before the item `items` handed out last: a read for that item, before
  // any line of it, may pause the walk there (`readFor`), so that it is taken again on resuming.
  private beforeItem: Key | undefined;
  /** E-mails by account id: read again by a walk that resumes in the projects. */
  private readonly emails = new Map<number, string>();

  constructor(orgId: number, position: ExportPosition, options: ExportWalkOptions) {
    this.orgId = orgId;
    this.position = position;
    this.options = options;
    this.pageSize = options.pageSize ?? 500;
  }

  /** One read, counted: none left, the walk pauses here (where it stands, which the caller has not moved past yet). */
  private async readOf<T>(get: () => Promise<T>): Promise<T> {
    if (this.options.mayRead && !this.options.mayRead()) throw new Paused();
    return get();
  }

  private read(collection: WalkedCollection, start: Key | undefined, limit = this.pageSize) {
    return this.readOf(() => readWalkPage(collection, start, limit));
  }

  /** Every item of a query from `position.after` on; `position.after` follows the items handed out. */
  private async *items(collection: WalkedCollection): AsyncGenerator<Record<string, unknown>> {
    let start = this.position.after;
    // A cursor's key must lie in the query it resumes (DynamoDB would refuse it as a 500).
    if (start && !walkKeyIn(start, collection)) throw new ValidationError(['cursor is not valid for this export']);
    do {
      const page = await this.read(collection, start);
      for (const item of page.items) {
        this.beforeItem = this.position.after;
        this.position.after = walkKeyOf(item, collection);
        yield item;
      }
      start = page.next;
    } while (start);
  }

  /** A read of what the item just handed out needs, before any line of it: counted as every read is, pausing before that item. */
  private async readFor<T>(get: () => Promise<T>): Promise<T> {
    if (this.options.mayRead && !this.options.mayRead()) {
      this.position.after = this.beforeItem;
      throw new Paused();
    }
    return get();
  }

  /** A line of the file, taken into the digest. */
  private digested(text: string) {
    this.position.digest = chainDigest(this.position.digest ?? '', text);
    return text;
  }

  private line(kind: string, data: object) {
    const counts = this.position.counts;
    counts[kind] = (counts[kind] ?? 0) + 1;
    return this.digested(JSON.stringify({ kind, ...data }));
  }

  private email(id: unknown) {
    return typeof id === 'number' ? (this.emails.get(id) ?? null) : null;
  }

  /** The lines from where the walk stands: the opening, the accounts, each project, the trash, the end. */
  async *lines(): AsyncGenerator<string> {
    if (this.position.stage === 0) {
      const org = await readOrganisation(this.orgId, this.options);
      this.position.stage = 1;
      this.position.after = undefined;
      yield this.digested(
        JSON.stringify({
          format: EXPORT_FORMAT,
          version: EXPORT_VERSION,
          organisation: { id: this.orgId, name: org.name },
          exported_at: (this.options.now ?? new Date()).toISOString(),
        }),
      );
    }
    if (this.position.stage === 1) {
      for await (const a of this.items(exportCollections.accounts(this.orgId))) {
        this.emails.set(Number(a.id), String(a.email));
        yield this.line('account', toAccount(a));
      }
      Object.assign(this.position, { stage: 2, after: undefined, before: null, step: 0 });
    } else if (this.position.stage === 2 || (this.position.stage === 3 && this.position.trash)) {
      let start: Key | undefined;
      do {
        const page = await this.read(exportCollections.accounts(this.orgId), start);
        for (const a of page.items) this.emails.set(Number(a.id), String(a.email));
        start = page.next;
      } while (start);
    }
    while (this.position.stage === 2) {
      // The current project: the first after `before`.
      const before = this.position.before;
      const projects = exportCollections.projects(this.orgId);
      if (before && !walkKeyIn(before, projects)) throw new ValidationError(['cursor is not valid for this export']);
      const project = (await this.read(projects, this.position.before ?? undefined, 1)).items[0];
      if (!project) {
        Object.assign(this.position, { stage: 3, after: undefined, before: undefined, step: undefined });
        break;
      }
      if ((this.position.step ?? 0) === 0) {
        this.position.step = 1;
        yield this.line('project', this.projectLine(project));
      }
      yield* this.projectParts(project, { kind: 'live' });
      Object.assign(this.position, {
        before: walkKeyOf(project, projects),
        step: 0,
        after: undefined,
        list: undefined,
        place: undefined,
      });
    }
    // The trash (when asked), an item at a time: its line, then what it holds (a project's, a
    // sprint's or an issue's contents), `before` the key of the item before the current one.
    while (this.position.stage === 3 && this.position.trash) {
      const trash = exportCollections.trash(this.orgId);
      if (this.position.before && !walkKeyIn(this.position.before, trash))
        throw new ValidationError(['cursor is not valid for this export']);
      const item = (await this.read(trash, this.position.before ?? undefined, 1)).items[0];
      if (!item) break;
      yield* this.trashedLines(trashItem.decode(item));
      Object.assign(this.position, {
        before: walkKeyOf(item, trash),
        step: 0,
        after: undefined,
        list: undefined,
        place: undefined,
      });
    }
    if (this.position.stage === 3) {
      this.position.stage = 4;
      yield JSON.stringify({ kind: 'end', counts: this.position.counts, digest: this.position.digest ?? '' });
    }
  }

  /** A project's line, its last number and workflow with it. */
  private projectLine(project: Record<string, unknown>) {
    const projectId = Number(project.id);
    return {
      ...dropVersion(toProject(project)),
      // The last number handed out: numbers are never handed out twice, those of deleted issues included.
      last_issue_number: lastIssueNumber(project),
      // Its workflow, in board order, as GET …/states answers it (docs/workflows.md), the project's id aside.
      states: workflowOf(project).states.map((s) => {
        const { project_id: _project, ...state } = dropVersion(stateAnswer(this.orgId, projectId, s));
        return state;
      }),
      // Its custom fields, in creation order, without ids: an import makes them again by key, options by name.
      custom_fields: fieldsOf(project).map((f) => ({
        key: f.key,
        name: f.name,
        type: f.type,
        description: f.description,
        required: f.required,
        options: f.options.map((o) => ({ name: o.name, color: o.color })),
        created_at: f.createdAt,
        updated_at: f.updatedAt,
      })),
    };
  }

  private sprintLine(s: Record<string, unknown>) {
    return {
      ...dropVersion(toSprint(s)),
      sprint_lead_email: this.email(sprintItem.field(s, 'sprintLeadId')),
      history: sprintHistoryOf(s),
    };
  }

  /** An issue's line at `place` in its list (null: in none, as a trashed issue is), its project's labels and workflow by `project`. */
  private issueLine(item: Record<string, unknown>, place: number | null, project: Record<string, unknown> | undefined) {
    const relations = Object.entries(storedRelations(item)).map(([id, side]) => ({ id, ...side }));
    return {
      ...dropVersion(toIssue(item, place ?? 0, rulesOf(project))),
      ...(place === null ? { position: null } : {}),
      assignee_email: this.email(issueItem.field(item, 'assigneeId')),
      author_email: this.email(issueItem.field(item, 'authorId')),
      watcher_emails: issueItem.field(item, 'watcherIds').flatMap((id) => this.email(id) ?? []),
      relations,
    };
  }

  /**
   * A trashed item's `trash` line, then, for a project, a sprint or an issue, what it holds as
   * `trash_content` lines (its project's labels, sprints, issues in list order and their
   * contents; a sprint's activity, issues and their contents; an issue's comments, attachments
   * and activity), each as its own line would show it. Past its retention, or of a kind an export
   * never carries (webhooks): nothing.
   */
  private async *trashedLines(t: TrashFields): AsyncGenerator<string> {
    if (t.kind === 'webhook' || isExpired(t.expiresAt, (this.options.now ?? new Date()).getTime())) return;
    const trashIdOf = trashId(t.kind, t.itemId);
    const project =
      t.kind === 'project'
        ? t.stored
        : t.kind === 'sprint'
          ? await this.readOf(() => projectThereOrTrashed(this.orgId, sprintItem.field(t.stored, 'projectId')))
          : t.kind === 'issue'
            ? await this.readOf(() => projectThereOrTrashed(this.orgId, issueItem.field(t.stored, 'projectId')))
            : undefined;
    const scope = trashScope(t.kind, trashIdOf, t.itemId, () => issueItem.field(t.stored, 'commentsWithFilesInTrash'));
    if ((this.position.step ?? 0) === 0) {
      this.position.step = firstStep(scope);
      const item =
        t.kind === 'label'
          ? dropVersion(toLabel(t.stored))
          : t.kind === 'comment'
            ? this.commentLine(t.stored)
            : t.kind === 'attachment'
              ? this.attachmentLine(t.stored)
              : t.kind === 'issue'
                ? this.issueLine(t.stored, null, project)
                : t.kind === 'sprint'
                  ? this.sprintLine(t.stored)
                  : this.projectLine(t.stored);
      yield this.line('trash', this.trashLine(t, item));
    }
    if (scope && project) yield* this.projectParts(project, scope);
  }

  private commentLine(c: Record<string, unknown>) {
    return { ...dropVersion(toComment(c)), author_email: this.email(commentItem.field(c, 'authorId')) };
  }

  /**
   * The lines of a project after its own (`this.position.step` 1 on): its labels, its sprints with
   * their activity, its issues in list order (every sprint's, then the backlog), each with its
   * place, then the issues' comments, attachments, GitHub links and activity, then its GitHub
   * connection. A sprint in the trash, an issue in the trash and what they hold are in none of them
   * (they are the trash's). Of a trashed thing (`scope`), what it holds, as `trash_content` lines.
   */
  private async *projectParts(project: Record<string, unknown>, scope: ExportScope): AsyncGenerator<string> {
    const projectId = Number(project.id);
    const next = (after: number) =>
      Object.assign(this.position, { step: stepAfter(scope, after), after: undefined, list: undefined, place: 0 });
    const emit = (kind: string, data: object) =>
      scope.kind === 'live'
        ? this.line(kind, data)
        : this.line('trash_content', { trash_id: scope.trashId, item_kind: kind, item: data });
    // Whether a sprint is there (its issues and activity are the trash's while it is in it).
    const sprints = new Map<number, boolean>();
    const sprintThere = async (sprintId: number) => {
      if (!sprints.has(sprintId)) sprints.set(sprintId, await this.readFor(() => sprintIsThere(this.orgId, projectId, sprintId)));
      return sprints.get(sprintId)!;
    };
    // Whether an issue of this walk (its list) is written here.
    const inScope = async (sprintId: number | null) =>
      scope.kind === 'sprint' ? sprintId === scope.sprintId : sprintId === null || (await sprintThere(sprintId));
    if (this.position.step === 1) {
      for await (const l of this.items(exportCollections.labels(this.orgId, projectId)))
        yield emit('label', dropVersion(toLabel(l)));
      next(1);
    }
    if (this.position.step === 2) {
      const collection =
        scope.kind === 'sprint'
          ? exportCollections.sprintActivity(this.orgId, projectId, scope.sprintId)
          : exportCollections.sprints(this.orgId, projectId);
      for await (const s of this.items(collection)) {
        if (s.type === 'sprint') {
          sprints.set(Number(s.id), true);
          yield emit('sprint', this.sprintLine(s));
        } else if (s.type === 'activity' && (scope.kind === 'sprint' || (await sprintThere(ownerOf(s).sprintId!))))
          yield emit('activity', activityLine(s));
      }
      next(2);
    }
    // Issues in list order (every sprint's, then the backlog), each with its place.
    while (this.position.step === 3 || this.position.step === 4) {
      const step = this.position.step;
      const issues =
        step === 4
          ? exportCollections.backlogIssues(this.orgId, projectId)
          : scope.kind === 'sprint'
            ? exportCollections.issuesOfSprint(this.orgId, projectId, scope.sprintId)
            : exportCollections.sprintIssues(this.orgId, projectId);
      for await (const item of this.items(issues)) {
        const list = issueItem.field(item, 'sprintId');
        if (!(await inScope(list))) continue;
        if (list !== this.position.list) Object.assign(this.position, { list, place: 0 });
        this.position.place = (this.position.place ?? 0) + 1;
        yield emit('issue', this.issueLine(item, this.position.place, project));
      }
      next(step);
    }
    if (this.position.step === 5) {
      yield* this.issueContents(projectId, scope, emit, inScope);
      next(5);
    }
    if (this.position.step === 6) {
      // One GetItem, counted, only for a project that names a repository.
      const named = repositoryOf(project);
      const repo = named && (await this.readOf(() => connectionOf(this.orgId, projectId, named)));
      next(6);
      if (repo) yield emit('github_connection', this.connectionLine(repo));
    }
  }

  /**
   * Step 5 of a project's walk: its issues' comments, attachments, GitHub links and activity, of
   * the issues `inScope` writes, each through `emit`.
   */
  private async *issueContents(
    projectId: number,
    scope: ExportScope,
    emit: (kind: string, data: object) => string,
    inScope: (sprintId: number | null) => Promise<boolean>,
  ): AsyncGenerator<string> {
    // An issue's item comes just before its contents (a trashed issue's is not there); a walk
    // resumed among them, or at the contents of an issue without its item, reads it. The
    // comments of that issue in the trash: their attachments are not written (they are in no
    // answer until their comment's restore).
    let issue: { id: number; shown: boolean; commentsWithFilesInTrash: number[] } | undefined =
      scope.kind === 'issue'
        ? { id: scope.issueId, shown: true, commentsWithFilesInTrash: scope.commentsWithFilesInTrash }
        : undefined;
    const contents =
      scope.kind === 'issue'
        ? exportCollections.underIssue(this.orgId, projectId, scope.issueId)
        : exportCollections.issueContents(this.orgId, projectId);
    for await (const item of this.items(contents)) {
      const issueId = ownerOf(item).issueId;
      if (issueId === undefined) continue;
      if (item.type === 'issue') {
        const sprintId = issueItem.field(item, 'sprintId');
        issue = {
          id: issueId,
          shown: await inScope(sprintId),
          commentsWithFilesInTrash: issueItem.field(item, 'commentsWithFilesInTrash'),
        };
        continue;
      }
      if (issue?.id !== issueId) {
        const there = await this.readFor(() => issueOfContents(this.orgId, projectId, issueId));
        issue = {
          id: issueId,
          shown: there !== undefined && (await inScope(there.sprintId)),
          commentsWithFilesInTrash: there?.commentsWithFilesInTrash ?? [],
        };
      }
      if (!issue.shown) continue;
      if (item.type === 'comment') yield emit('comment', this.commentLine(item));
      else if (item.type === 'activity') yield emit('activity', activityLine(item));
      else if (
        item.type === 'attachment' &&
        attachmentItem.field(item, 'status') === 'ready' &&
        isShown(attachmentItem.decode(item), issue.commentsWithFilesInTrash)
      )
        yield emit('attachment', this.attachmentLine(item));
      else if (item.type === githubLinkItem.type) yield emit('github_link', linkLine(item));
    }
  }

  /**
   * A project's GitHub connection (docs/github.md): its repository and status automation, the
   * account the automation writes as, its times. Never its secret: an import makes a new one.
   */
  private connectionLine(repo: GitHubRepo) {
    return {
      project_id: repo.projectId,
      repository_owner: repo.owner,
      repository_name: repo.name,
      automation: {
        enabled: repo.automationEnabled,
        on_open: repo.onOpen,
        on_merge: repo.onMerge,
        merge_needs_closing_word: repo.mergeNeedsClosingWord,
      },
      actor_email: this.email(repo.actorId),
      last_delivery_at: repo.lastDeliveryAt,
      created_at: repo.createdAt,
      updated_at: repo.updatedAt,
    };
  }

  /** A trashed item's line: what the trash shows of it, and the item as its own line would. */
  private trashLine(t: TrashFields, item: object) {
    return {
      id: trashId(t.kind, t.itemId),
      item_kind: t.kind,
      deleted_at: t.deletedAt,
      deleted_by: t.deletedBy,
      deleted_by_email: this.email(t.deletedBy),
      expires_at: new Date(t.expiresAt * 1000).toISOString(),
      item,
    };
  }

  /**
   * A ready attachment's manifest line: everything its import needs to re-create it, and `file`,
   * where its bytes lie in the folder of files. A pending one (declared, its file never completed)
   * is no line: it has no file yet, and expires unless completed.
   */
  private attachmentLine(item: Record<string, unknown>) {
    const a = attachmentItem.decode(item);
    // The answer's fields but what an answer signs or says of now (its URL, its status: ready).
    const { status: _status, download_url: _url, download_expires_at: _expires, ...answer } = attachmentAnswer(a);
    return { ...answer, project_id: a.projectId, uploader_email: this.email(a.uploaderId), file: exportedFileName(a.id, a.name) };
  }
}

/**
 * A GitHub link's line: the link as GET /issues/{key}/links answers it, its `kind` as `link_kind`
 * (a line's `kind` is the line's), with its project and issue.
 */
function linkLine(item: Record<string, unknown>) {
  const link = githubLinkItem.decode(item);
  const { kind, ...answer } = linkOf(link);
  return { project_id: link.projectId, issue_id: link.issueId, link_kind: kind, ...answer };
}

/** The repository (`owner/name`) a project (as stored) names, if any. */
function repositoryOf(project: Record<string, unknown>): string | undefined {
  const { githubRepoOwner: owner, githubRepoName: name } = projectItem.decode(project);
  return owner && name ? `${owner}/${name}` : undefined;
}

/** Repository `fullName`, when its item names the project (one GetItem): its connection; else undefined. */
async function connectionOf(orgId: number, projectId: number, fullName: string): Promise<GitHubRepo | undefined> {
  const repo = await getRepository(fullName);
  return repo && repo.orgId === orgId && repo.projectId === projectId ? repo : undefined;
}

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

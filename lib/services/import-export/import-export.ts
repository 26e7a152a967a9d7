import { importedSequences, recordActivity } from '../../db/issues/activity.ts';
import { sprintsByName } from '../../db/imports/imports.ts';
import { accountsByEmail } from '../../db/organisation/accounts.ts';
import { projectIdsByPrefix } from '../../db/organisation/organisation-walk.ts';
import { advance, nextId } from '../../db/core/sequences.ts';
import { restoreSprint } from '../../db/projects/sprints.ts';
import { createAccountInOrg, setHandle } from '../accounts.ts';
import { HandleTakenError, NotFoundError, ValidationError } from '../../vocabulary/errors.ts';
import { activityIdOf } from '../../vocabulary/ids.ts';
import { listAttachments, type StoredAttachment } from '../../db/attachments/attachments.ts';
import { attachmentObjectKey } from '../../aws/objects.ts';
import { AttachmentCreateFields } from '../../schemas/attachments.ts';
import type * as z from 'zod';
import { restoreAttachment } from '../attachments.ts';
import type { AttachmentFolder } from './attachment-files.ts';
import type { Principal } from '../../model/principal.ts';
import { createProject } from '../projects.ts';
import { createField, listFields } from '../custom-fields.ts';
import { FieldCreateFields } from '../../schemas/custom-fields.ts';
import { relationIdOf } from '../relations.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import type { Role } from '../../schemas/accounts.ts';
import type { Activity } from '../../schemas/activity.ts';
import type { SprintReport } from '../../schemas/sprints.ts';
import { checkExportFile, linesOf } from './file-checks.ts';
import {
  exportedStates,
  exportIssueRecord,
  exportRelations,
  str,
  strOrNull,
  type ExportRelation,
  type Line,
} from '../../model/formats/records.ts';
import { importActor, type ExportImportReport } from '../../model/formats/import-plans.ts';
import { linkOfLine, restoreConnectionLine, restoreIssueLinks } from './github-lines.ts';
import type { StoredLink } from '../../db/github/github.ts';

export { checkExportFile, linesOf };
export type { ExportImportReport };
import {
  ImportFailed,
  ImportInterrupted,
  ImportSession,
  relateOnce,
  REPORT_CAP,
  rereadable,
  type Chunks,
  type FileSource,
} from './import.ts';

/**
 * Imports an export file into an organisation: the same data, with new ids (docs/import-export.md).
 * The file is checked whole, then read four more times: accounts, projects, labels, sprints,
 * issues and comments; the GitHub lines (./github-lines.ts); the attachments; the activity
 * history. Each project's issues, labels and comments go through the one import session
 * (./import.ts), as records of the one stream. Each record is written once, however many runs.
 */

export interface ExportImportOptions {
  orgId: number;
  dryRun?: boolean | undefined;
  /** The account the import acts as (an admin); default: the organisation's first admin. */
  actorId?: number | undefined;
  /** Time (ms since the epoch) after which no line starts: `ImportInterrupted`, and a run again goes on. */
  deadline?: number | undefined;
  onProgress?: ((report: ExportImportReport) => Promise<void> | void) | undefined;
  reportCap?: number | undefined;
  /**
   * The folder of the export's files (the admin CLI's `--files`): each attachment's file is
   * re-uploaded from it. Without one (a job over REST), every attachment is left out, said in the report.
   */
  files?: AttachmentFolder | undefined;
  /** The import this run is part of (a job's id): see `ImportOptions.run`. */
  run?: string | undefined;
}

export async function importExport(options: ExportImportOptions, file: FileSource): Promise<ExportImportReport> {
  const read = rereadable(file);
  const numbers = await checkExportFile(read());
  const run = await ExportImport.open(options, numbers);
  try {
    await run.write(read());
    await run.restoreGitHub(read());
    await run.restoreAttachments(read());
    await run.restoreHistory(read());
    return run.report;
  } catch (err) {
    if (err instanceof ImportInterrupted) throw new ImportInterrupted(run.report);
    throw new ImportFailed(err, run.report);
  }
}

/** The project an export file's lines are in, as the run goes. */
interface ProjectRun {
  prefix: string;
  projectId: number;
  session: ImportSession;
  sprints: { n: number; line: Line }[];
  /** The keys of the project's `account` fields: their values are accounts of the file, mapped to those here. */
  accountKeys: string[];
}

/** One run of an export file's import: the organisation as found, the id maps, the report. */
class ExportImport {
  readonly report: ExportImportReport;
  private readonly options: ExportImportOptions;
  private readonly numbers: Map<string, [string, number][]>;
  private readonly accounts: Map<string, { id: number; name: string; role: string }>;
  private readonly prefixes: Map<string, number>;
  private readonly caller: Principal;
  private current: ProjectRun | undefined;
  /** New issue id -> its sprint at its import, for its comments. */
  private readonly issueSprints = new Map<number, number | null>();
  private readonly relations: ExportRelation[] = [];
  /** Whether this run wrote anything yet (a run stops at its deadline only once it has). */
  private wrote = false;
  /** Old ids of the file's comments (a dry run's attachments on them would be restored). */
  private readonly commentsInFile = new Set<number>();
  /** Old issue id -> its number in the file (an attachment left out names its issue). */
  private readonly issueNumbers = new Map<string, string>();
  /** The attachments of the issue last read (new id), for a run again to find those an earlier run restored. */
  private issueAttachments: { issueId: number; found: StoredAttachment[] } | undefined;
  /** Old issue id -> the state of the pull request its line showed (`links.pull_request_state`), for its links. */
  private readonly prStates = new Map<string, string>();
  /** Old project id -> its prefix (a connection's warning goes to its project's report). */
  private readonly projectPrefixes = new Map<string, string>();
  /** The sprints and issues (new ids) this file brought, in this run or an earlier one: their history is restored. */
  private readonly ownSprints = new Set<number>();
  private readonly ownIssues = new Set<number>();

  private constructor(
    options: ExportImportOptions,
    numbers: Map<string, [string, number][]>,
    accounts: Map<string, { id: number; name: string; role: string }>,
    prefixes: Map<string, number>,
    caller: Principal,
  ) {
    this.options = options;
    this.numbers = numbers;
    this.accounts = accounts;
    this.prefixes = prefixes;
    this.caller = caller;
    this.report = {
      format: 'export',
      dry_run: Boolean(options.dryRun),
      lines: 0,
      accounts_created: [],
      projects: {},
      comments: 0,
      relations: 0,
      activity: 0,
      errors: [],
      attachments: { restored: 0, already_imported: 0, left_out: [] },
      keys: {},
      ids: { accounts: {}, projects: {}, labels: {}, sprints: {}, issues: {}, comments: {}, attachments: {} },
    };
  }

  static async open(options: ExportImportOptions, numbers: Map<string, [string, number][]>): Promise<ExportImport> {
    const { orgId } = options;
    const accounts = await accountsByEmail(orgId);
    const admin = importActor(accounts, options.actorId);
    if (!admin) throw new ValidationError(['the organisation has no admin account to import as']);
    const prefixes = await projectIdsByPrefix(orgId);
    const caller: Principal = { orgId, accountId: admin.id, role: 'admin', tokenHash: '', name: admin.name };
    return new ExportImport(options, numbers, accounts, prefixes, caller);
  }

  private get dryRun() {
    return Boolean(this.options.dryRun);
  }

  private accountFor(email: unknown): number | undefined {
    return typeof email === 'string' ? this.accounts.get(email.toLowerCase())?.id : undefined;
  }

  /** Stops at the deadline, once something was written. */
  private checkDeadline() {
    const { deadline } = this.options;
    if (deadline !== undefined && this.wrote && Date.now() > deadline) throw new ImportInterrupted(this.report);
  }

  /** The second reading: everything but the activity history. */
  async write(chunks: Chunks): Promise<void> {
    for await (const { n, text } of linesOf(chunks)) {
      this.report.lines = n;
      if (n === 1) continue;
      const line = JSON.parse(text) as Line;
      this.checkDeadline();
      try {
        switch (line.kind) {
          case 'account':
            await this.account(line);
            break;
          case 'project':
            await this.closeProject();
            await this.project(line, n);
            break;
          case 'label':
            if (this.current)
              this.report.ids.labels[String(line.id)] = await this.current.session.ensureLabel(String(line.name), {
                color: line.color,
                description: line.description,
                times: { created_at: String(line.created_at), updated_at: String(line.updated_at) },
              });
            break;
          case 'sprint':
            this.current?.sprints.push({ n, line });
            break;
          case 'issue':
            await this.flushSprints();
            await this.issue(n, line);
            break;
          case 'comment':
            await this.flushSprints();
            await this.comment(line);
            break;
          case 'end':
            await this.closeProject();
            break;
          case 'github_link':
          case 'github_connection':
            // The third reading, once every issue is in (`restoreGitHub`).
            break;
          case 'trash':
          case 'trash_content':
            // A trashed item stays out: an import never brings one back, live or into a trash (docs/import-export.md).
            break;
          default:
            // Activity: the fifth reading, once every id is known.
            break;
        }
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        this.report.errors.push({ line: n, error: err.message });
      }
    }
    await this.closeProject();
    await this.linkRelations();
  }

  private async account(line: Line) {
    const email = String(line.email).toLowerCase();
    const existed = this.accounts.has(email);
    let id = this.accounts.get(email)?.id;
    if (id === undefined && !this.dryRun) {
      const made = await createAccountInOrg(
        this.options.orgId,
        { name: String(line.name), email, role: line.role as Role },
        str(line.created_at),
      );
      this.wrote = true;
      id = made.account.id;
      this.accounts.set(email, { id, name: made.account.name, role: made.account.role });
      // Its handle comes with it, unless another account here has taken it since (then it has none).
      if (typeof line.handle === 'string') await setHandle(this.options.orgId, id, line.handle).catch(keepWithoutHandle);
    }
    if (!existed) this.report.accounts_created.push(email);
    if (id !== undefined) this.report.ids.accounts[String(line.id)] = id;
  }

  private async project(line: Line, n: number) {
    const prefix = String(line.prefix);
    this.projectPrefixes.set(String(line.id), prefix);
    let id = this.prefixes.get(prefix);
    if (id === undefined && !this.dryRun) {
      id = (
        await createProject(
          this.caller,
          {
            name: String(line.name),
            prefix,
            ...(str(line.description) ? { description: str(line.description) } : {}),
            ...(str(line.documentation_url) ? { documentation_url: str(line.documentation_url) } : {}),
            ...(str(line.production_url) ? { production_url: str(line.production_url) } : {}),
          },
          {
            created_at: String(line.created_at),
            updated_at: String(line.updated_at),
            github_repo_owner: strOrNull(line.github_repo_owner),
            github_repo_name: strOrNull(line.github_repo_name),
            lastIssueNumber: Number(line.last_issue_number ?? 0),
            source: 'export',
            states: exportedStates(line.states),
          },
        )
      ).id;
      this.wrote = true;
      this.prefixes.set(prefix, id);
    }
    this.report.ids.projects[String(line.id)] = id ?? 0;
    if (id === undefined) {
      this.current = undefined;
      return;
    }
    const session = await ImportSession.open(
      {
        orgId: this.options.orgId,
        projectId: id,
        format: 'export',
        dryRun: this.dryRun,
        actorId: this.caller.accountId,
        keepIds: true,
        deadline: this.options.deadline,
        reportCap: this.options.reportCap,
        run: this.options.run,
      },
      'export',
    );
    await session.keepNumbers(this.numbers.get(prefix) ?? []);
    this.report.projects[prefix] = session.report;
    const fields = exportedFields(line.custom_fields);
    if (!this.dryRun) await this.restoreFields(id, fields, session, n);
    else if (fields.length > 0) session.report.created_fields = fields.map(fieldListed);
    const accountKeys = fields.filter((f) => f.type === 'account').map((f) => String(f.key));
    this.current = { prefix, projectId: id, session, sprints: [], accountKeys };
  }

  /**
   * The project's custom fields, before its issues: each made again with its key, name, type,
   * description, required flag, options (names and colours) and times; one the project has
   * already (by key: an earlier run's) is left as it is. Ids are new: values follow by key and option name.
   */
  private async restoreFields(projectId: number, fields: Line[], session: ImportSession, n: number) {
    if (fields.length === 0) return;
    const have = new Set((await listFields(this.caller, projectId)).map((f) => f.key));
    for (const f of fields) {
      if (have.has(String(f.key))) continue;
      const parsed = FieldCreateFields.safeParse({
        name: f.name,
        key: f.key,
        type: f.type,
        ...(typeof f.description === 'string' ? { description: f.description } : {}),
        required: f.required === true,
        ...(Array.isArray(f.options) && f.options.length > 0
          ? {
              options: (f.options as Line[]).map((o) => ({
                name: o.name,
                ...(typeof o.color === 'string' ? { color: o.color } : {}),
              })),
            }
          : {}),
      });
      if (!parsed.success) {
        const why = parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ');
        this.report.errors.push({ line: n, error: `custom field "${String(f.key)}": ${why}` });
        continue;
      }
      const times =
        typeof f.created_at === 'string' && typeof f.updated_at === 'string'
          ? { created_at: f.created_at, updated_at: f.updated_at }
          : undefined;
      try {
        await createField(this.caller, projectId, parsed.data, times);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        this.report.errors.push({ line: n, error: `custom field "${String(f.key)}": ${err.message}` });
        continue;
      }
      this.wrote = true;
      (session.report.created_fields ??= []).push(fieldListed(f));
    }
  }

  /** The project's sprints, once all are read (a report names the sprint its open issues went to): matched by name, or created as they were. */
  private async flushSprints() {
    const run = this.current;
    if (!run || run.sprints.length === 0) return;
    const lines = run.sprints;
    run.sprints = [];
    const existing = await sprintsByName(this.options.orgId, run.projectId);
    const fresh = lines.filter(({ line }) => !existing.has(String(line.name)));
    let next =
      fresh.length > 0 && !this.dryRun
        ? (await advance(this.options.orgId, { sprint: fresh.length })).sprint - fresh.length + 1
        : 0;
    for (const { line } of lines) {
      const found = existing.get(String(line.name));
      const id = found ? found.id : this.dryRun ? 0 : next++;
      this.report.ids.sprints[String(line.id)] = id;
      if (!found || found.restored) this.ownSprints.add(id);
    }
    for (const { n, line } of fresh) {
      if (this.dryRun) continue;
      try {
        await this.restoreSprint(run, line);
      } catch (err) {
        this.report.errors.push({ line: n, error: `sprint "${String(line.name)}": ${(err as Error).message}` });
      }
    }
  }

  private async restoreSprint(run: ProjectRun, line: Line) {
    const id = this.report.ids.sprints[String(line.id)] as number;
    const old = line.report as SprintReport | null | undefined;
    const report = old
      ? {
          ...old,
          sprint_id: id,
          carried_over_to: { sprint_id: await this.mapped('sprints', old.carried_over_to?.sprint_id ?? null) },
        }
      : null;
    const lead = this.accountFor(line.sprint_lead_email);
    const status = line.status === 'planning' ? 'planning' : report ? 'completed' : 'active';
    await restoreSprint(this.options.orgId, run.projectId, id, {
      fields: {
        name: String(line.name),
        slug: String(line.slug),
        description: strOrNull(line.description),
        start_date: strOrNull(line.start_date),
        end_date: strOrNull(line.end_date),
        sprint_lead_id: lead ?? null,
      },
      status,
      actual_end_date: strOrNull(line.actual_end_date),
      report,
      created_at: String(line.created_at),
      updated_at: String(line.updated_at),
      history: (line.history ?? {}) as Parameters<typeof restoreSprint>[3]['history'],
    });
    this.wrote = true;
  }

  private async issue(n: number, line: Line) {
    const run = this.current;
    const key = String(line.issue_number);
    this.issueNumbers.set(String(line.id), key);
    const prState = (line.links as { pull_request_state?: unknown } | undefined)?.pull_request_state;
    if (typeof prState === 'string') this.prStates.set(String(line.id), prState);
    if (!run) return;
    const createdBefore = run.session.report.created;
    await run.session.take(exportIssueRecord(n, this.withAccounts(line, run.accountKeys), this.report.ids.sprints));
    const made = run.session.issueOf(key);
    if (run.session.report.created > createdBefore) this.wrote = true;
    if (!made || made.id <= 0) return;
    this.report.ids.issues[String(line.id)] = made.id;
    this.ownIssues.add(made.id);
    this.issueSprints.set(made.id, made.sprintId);
    if (made.number) this.report.keys[key] = made.number;
    this.relations.push(...exportRelations(n, line, key));
  }

  /** An issue line whose account fields name the accounts here (one the file did not bring: none). */
  private withAccounts(line: Line, accountKeys: string[]): Line {
    const values = line.custom_fields as Record<string, unknown> | undefined;
    if (accountKeys.length === 0 || typeof values !== 'object' || values === null) return line;
    const mapped: Record<string, unknown> = { ...values };
    for (const key of accountKeys) {
      if (typeof mapped[key] === 'number') mapped[key] = this.report.ids.accounts[String(mapped[key])] ?? null;
    }
    return { ...line, custom_fields: mapped };
  }

  private async comment(line: Line) {
    this.commentsInFile.add(Number(line.id));
    const run = this.current;
    const issueId = this.report.ids.issues[String(line.issue_id)];
    if (!run || issueId === undefined) return;
    const writtenBefore = run.session.report.comments;
    const id = await run.session.importComment(
      String(line.id),
      { issueId, sprintId: this.issueSprints.get(issueId) ?? null },
      {
        body: String(line.body),
        authorId: this.accountFor(line.author_email) ?? this.caller.accountId,
        authorName: String(line.author_name ?? ''),
        created_at: str(line.created_at),
        updated_at: str(line.updated_at),
      },
    );
    if (id !== undefined) this.report.ids.comments[String(line.id)] = id;
    if (run.session.report.comments > writtenBefore) this.wrote = true;
    this.report.comments = Object.values(this.report.projects).reduce((sum, p) => sum + p.comments, 0);
  }

  private async closeProject() {
    await this.flushSprints();
    if (this.current) await this.current.session.finish();
    this.current = undefined;
  }

  /** The relations, once every project's issues are in (a relation may join two projects). */
  private async linkRelations() {
    for (const r of this.relations) {
      const from = this.report.keys[r.from];
      const to = this.report.keys[r.to];
      if (!from || !to) {
        this.report.errors.push({
          line: r.line,
          error: `relation ${r.from} ${r.type} ${r.to}: ${!from ? r.from : r.to} was not imported`,
        });
        continue;
      }
      if (this.dryRun) continue;
      const outcome = await relateOnce(this.caller, from, to, r.type, r.createdAt).catch((err: unknown) => ({
        refused: (err as Error).message,
      }));
      // `already`: written by an earlier run.
      if (outcome === 'linked') this.report.relations += 1;
      else if (outcome !== 'already')
        this.report.errors.push({ line: r.line, error: `relation ${r.from} ${r.type} ${r.to}: ${outcome.refused}` });
    }
  }

  /**
   * An old id of `kind` here. An id the file names but brought no record of (a comment deleted
   * before the export, named by an activity entry) is given a new id once, so every mention of
   * it stays one thing.
   */
  private async mapped(kind: keyof ExportImportReport['ids'], old: unknown): Promise<number | null> {
    if (old === null || old === undefined) return null;
    const known = this.report.ids[kind][String(old)];
    if (known !== undefined) return known;
    if (kind === 'accounts' || kind === 'projects' || this.dryRun) return null;
    const sequence = (
      { labels: 'label', sprints: 'sprint', issues: 'issue', comments: 'comment', attachments: 'attachment' } as const
    )[kind];
    const minted = await nextId(this.options.orgId, sequence);
    this.report.ids[kind][String(old)] = minted;
    return minted;
  }

  /** Each restored entry's id in the file → its id here: what a later entry's `reverts` names. */
  private readonly entryIds = new Map<string, string>();

  /** An activity entry with every id in it (in its changes too) mapped to the ids here. */
  private async mappedActivity(line: Line, n: number): Promise<Activity> {
    const changes = [];
    for (const c of (Array.isArray(line.changes) ? line.changes : []) as Record<string, unknown>[]) {
      const each = async (kind: keyof ExportImportReport['ids'], v: unknown) =>
        Array.isArray(v) ? Promise.all(v.map((x) => this.mapped(kind, x))) : this.mapped(kind, v);
      const kind = ({ assignee_id: 'accounts', sprint_id: 'sprints', parent_id: 'issues', labels: 'labels' } as const)[
        String(c.field) as 'assignee_id'
      ];
      const change: Record<string, unknown> = { ...c };
      if (kind) {
        for (const side of ['from', 'to', 'added', 'removed'] as const) if (side in c) change[side] = await each(kind, c[side]);
      } else if (c.field === 'relations') {
        for (const side of ['from', 'to'] as const) change[side] = await this.mappedRelation(c[side]);
      }
      changes.push(change);
    }
    return {
      id: importedSequences.restored(n),
      event: String(line.event),
      actor_id: await this.mapped('accounts', line.actor_id),
      at: String(line.at),
      issue_id: await this.mapped('issues', line.issue_id),
      sprint_id: await this.mapped('sprints', line.sprint_id),
      comment_id: await this.mapped('comments', line.comment_id),
      changes: changes as Activity['changes'],
      // A revert names the entry it undid, restored before it (an entry this import did not bring: none).
      ...(typeof line.reverts === 'string' && this.entryIds.has(line.reverts)
        ? { reverts: this.entryIds.get(line.reverts) }
        : {}),
      // What made the change, for an integration's (a pull request's URL: docs/github.md).
      ...(typeof line.via === 'string' ? { via: line.via } : {}),
    };
  }

  private async mappedRelation(r: unknown): Promise<unknown> {
    if (typeof r !== 'object' || r === null) return r;
    const { id, type, issue } = r as {
      id: string;
      type: RelationType;
      issue: { id: number; issue_number: string; project_id: number };
    };
    const m = /^(\d+)-(blocks|relates_to|duplicates)-(\d+)$/.exec(String(id));
    const ends = m ? [await this.mapped('issues', Number(m[1])), await this.mapped('issues', Number(m[3]))] : [];
    const kindType = (m?.[2] ?? 'relates_to') as RelationType;
    return {
      id: ends[0] && ends[1] ? relationIdOf(kindType, ends[0], ends[1]) : id,
      type,
      issue: {
        id: await this.mapped('issues', issue?.id),
        issue_number: this.report.keys[issue?.issue_number] ?? issue?.issue_number,
        project_id: this.report.ids.projects[String(issue?.project_id)] ?? issue?.project_id,
      },
    };
  }

  /**
   * The third reading: the GitHub lines (lib/services/import-export/github-lines.ts), once every
   * issue is in. An issue's links follow one another in the file: they are written together, under
   * its new id. A connection's outcome is a warning of its project's report (its new secret, or
   * its repository connected elsewhere); what could not be written, an error of its line.
   */
  async restoreGitHub(chunks: Chunks): Promise<void> {
    let issue: { old: string; line: number; links: StoredLink[] } | undefined;
    const flush = async () => {
      if (!issue || issue.links.length === 0 || this.dryRun) return;
      const outcome = await restoreIssueLinks(issue.links, this.prStates.get(issue.old));
      if (outcome.written > 0) this.wrote = true;
      for (const refused of outcome.refused) this.report.errors.push({ line: issue.line, error: `github_link ${refused}` });
    };
    for await (const { n, text } of linesOf(chunks)) {
      if (n === 1 || !text.includes('"kind":"github_')) continue;
      const line = JSON.parse(text) as Line;
      if (line.kind === 'github_connection') {
        this.checkDeadline();
        await this.restoreConnection(n, line);
        continue;
      }
      if (line.kind !== 'github_link') continue;
      const old = String(line.issue_id);
      if (issue?.old !== old) {
        this.checkDeadline();
        await flush();
        issue = { old, line: n, links: [] };
      }
      const projectId = this.report.ids.projects[String(line.project_id)] ?? 0;
      const issueId = this.report.ids.issues[old] ?? 0;
      if (!this.dryRun && (!projectId || !this.ownIssues.has(issueId))) {
        this.report.errors.push({
          line: n,
          error: `github_link: its issue ${this.issueNumbers.get(old) ?? old} was not imported`,
        });
        continue;
      }
      const link = linkOfLine(line, { orgId: this.options.orgId, projectId, issueId });
      if (typeof link === 'string') this.report.errors.push({ line: n, error: link });
      else issue.links.push(link);
    }
    await flush();
  }

  private async restoreConnection(n: number, line: Line) {
    const prefix = this.projectPrefixes.get(String(line.project_id));
    const outcome = await restoreConnectionLine(line, {
      orgId: this.options.orgId,
      projectId: this.report.ids.projects[String(line.project_id)] ?? 0,
      dryRun: this.dryRun,
      accountFor: (email) => this.accountFor(email),
    });
    if ('error' in outcome) this.report.errors.push({ line: n, error: outcome.error });
    if (!('warning' in outcome)) return;
    if (outcome.connected && !this.dryRun) this.wrote = true;
    const project = prefix === undefined ? undefined : this.report.projects[prefix];
    const key = `${String(line.repository_owner)}/${String(line.repository_name)}`;
    // A dry run's new project has no report: a connection left out is said among the errors.
    if (project) project.warnings.push({ row: n, key, warnings: [outcome.warning] });
    else if (!outcome.connected) this.report.errors.push({ line: n, error: outcome.warning });
  }

  /**
   * The fourth reading: each attachment line, once every issue and comment is in (an issue's comments
   * come before its attachments, but a file's attachment may name any). See `restoreAttachment`.
   */
  async restoreAttachments(chunks: Chunks): Promise<void> {
    for await (const { n, text } of linesOf(chunks)) {
      if (n === 1 || !text.includes('"kind":"attachment"')) continue;
      const line = JSON.parse(text) as Line;
      if (line.kind !== 'attachment') continue;
      this.checkDeadline();
      const reason = await this.restoreAttachment(line);
      if (reason === undefined) continue;
      if (this.report.attachments.left_out.length < (this.options.reportCap ?? REPORT_CAP)) {
        this.report.attachments.left_out.push({
          line: n,
          issue_number: this.issueNumbers.get(String(line.issue_id)) ?? String(line.issue_id),
          name: String(line.name),
          file: String(line.file),
          reason,
        });
      }
    }
  }

  /**
   * One attachment line: re-created on its issue (and comment) with its own name, type, size,
   * SHA-256, uploader and time, its file re-uploaded from the folder beside the export and checked
   * before it is ready; found on its issue (same comment, name, type, size and time), restored by an
   * earlier run, it is not again (one left pending by a run that stopped is taken up). Answers why
   * it was left out (nothing of it written), or undefined.
   */
  private async restoreAttachment(line: Line): Promise<string | undefined> {
    const parsed = AttachmentCreateFields.safeParse({
      name: line.name,
      content_type: line.content_type,
      size: line.size,
      sha256: line.sha256,
      comment_id: line.comment_id,
    });
    if (!parsed.success)
      return `the line is not an attachment (${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')})`;
    const fields = parsed.data;
    const oldComment = fields.comment_id ?? null;
    // A dry run made no issue or comment: those the file holds would be.
    if (this.dryRun && !this.issueNumbers.has(String(line.issue_id))) return 'its issue is not in the file';
    if (this.dryRun && oldComment !== null && !this.commentsInFile.has(oldComment)) return 'its comment is not in the file';
    const projectId = this.report.ids.projects[String(line.project_id)] ?? 0;
    const issueId = this.report.ids.issues[String(line.issue_id)] ?? 0;
    if (!this.dryRun && (!projectId || !this.ownIssues.has(issueId))) return 'its issue was not imported';
    const commentId = oldComment === null ? null : (this.report.ids.comments[String(oldComment)] ?? 0);
    if (!this.dryRun && commentId === 0) return 'its comment was not imported';
    const createdAt =
      typeof line.created_at === 'string' && !Number.isNaN(Date.parse(line.created_at)) ? line.created_at : undefined;
    if (!createdAt) return 'the line has no created_at';
    const earlier = this.dryRun
      ? undefined
      : (await this.attachmentsOf(projectId, issueId)).find(
          (a) =>
            a.commentId === commentId &&
            a.name === fields.name &&
            a.contentType === fields.content_type &&
            a.size === fields.size &&
            a.createdAt === createdAt,
        );
    if (earlier?.status === 'ready') {
      this.report.ids.attachments[String(line.id)] = earlier.id;
      this.report.attachments.already_imported += 1;
      return undefined;
    }
    if (!this.options.files) return "no folder of files was given (the admin CLI's --files): the file was not restored";
    const file = await this.options.files.file(String(line.file));
    if ('missing' in file) return file.missing;
    if (file.size !== fields.size) return `${String(line.file)} has ${file.size} bytes, not the ${fields.size} of its line`;
    if (fields.sha256 && file.sha256 !== fields.sha256) return `${String(line.file)} does not have the SHA-256 of its line`;
    if (this.dryRun) {
      this.report.attachments.restored += 1;
      return undefined;
    }
    const attachment = earlier ?? (await this.newAttachment(line, fields, { projectId, issueId, commentId, createdAt }));
    const id = attachment.id;
    try {
      await restoreAttachment(attachment, file, earlier !== undefined);
    } catch (err) {
      if (!(err instanceof ValidationError || err instanceof NotFoundError)) throw err;
      this.issueAttachments = undefined;
      return err.message;
    }
    this.wrote = true;
    this.issueAttachments?.found.push({ ...attachment, status: 'ready' });
    this.report.ids.attachments[String(line.id)] = id;
    this.report.attachments.restored += 1;
    return undefined;
  }

  /** An attachment line's new attachment, pending until its file is restored. */
  private async newAttachment(
    line: Line,
    fields: z.infer<typeof AttachmentCreateFields>,
    at: { projectId: number; issueId: number; commentId: number | null; createdAt: string },
  ): Promise<StoredAttachment> {
    const { orgId } = this.options;
    const id = await nextId(orgId, 'attachment');
    return {
      id,
      orgId,
      ...at,
      name: fields.name,
      contentType: fields.content_type,
      size: fields.size,
      sha256: fields.sha256 ?? null,
      status: 'pending',
      objectKey: attachmentObjectKey(orgId, at.projectId, at.issueId, id),
      uploaderId: this.accountFor(line.uploader_email) ?? this.caller.accountId,
      uploaderName: String(line.uploader_name ?? ''),
      inTrash: false,
      trashedAt: null,
      trashedInSprint: null,
      stagingKey: null,
      reserved: true,
    };
  }

  /** The attachments of an issue, read once while its lines follow one another (they do in an export). */
  private async attachmentsOf(projectId: number, issueId: number): Promise<StoredAttachment[]> {
    if (this.issueAttachments?.issueId !== issueId) {
      this.issueAttachments = { issueId, found: await listAttachments(this.options.orgId, projectId, issueId) };
    }
    return this.issueAttachments.found;
  }

  /** The fifth reading: each activity entry, under its issue or sprint, once (keyed by its line). */
  async restoreHistory(chunks: Chunks): Promise<void> {
    if (this.dryRun) return;
    for await (const { n, text } of linesOf(chunks)) {
      if (n === 1 || !text.includes('"kind":"activity"')) continue;
      const line = JSON.parse(text) as Line;
      if (line.kind !== 'activity') continue;
      this.checkDeadline();
      const activity = await this.mappedActivity(line, n);
      const projectId = this.report.ids.projects[String(line.project_id)];
      const sprintEvent = String(line.event).startsWith('sprint.');
      const owner = sprintEvent ? activity.sprint_id : activity.issue_id;
      // Only under what this import brought (an issue or sprint that was there before keeps its own history).
      if (!projectId || owner === null || !(sprintEvent ? this.ownSprints : this.ownIssues).has(owner)) continue;
      this.entryIds.set(
        String(line.id),
        activityIdOf(projectId, sprintEvent ? { sprintId: owner } : { issueId: owner }, activity.id),
      );
      const outcome = await recordActivity({
        orgId: this.options.orgId,
        projectId,
        owner: sprintEvent ? { sprintId: owner } : { issueId: owner },
        sequence: activity.id,
        activity,
      });
      if (outcome === 'written') {
        this.wrote = true;
        this.report.activity += 1;
      }
    }
  }
}

/** A project line's custom fields (none in a file made before them). */
const exportedFields = (value: unknown): Line[] =>
  Array.isArray(value) ? value.filter((f): f is Line => typeof f === 'object' && f !== null) : [];

/** A field as a report lists it. */
const fieldListed = (f: Line) => ({
  name: String(f.name),
  key: String(f.key),
  type: String(f.type),
  options: Array.isArray(f.options) ? (f.options as Line[]).map((o) => String(o.name)) : [],
});

/** A handle an imported account could not take (another account has it, or the rule changed): it stays without. */
function keepWithoutHandle(err: unknown): void {
  if (!(err instanceof HandleTakenError) && !(err instanceof ValidationError)) throw err;
}

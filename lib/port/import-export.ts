import { accountsByEmail, sprintsByName } from '../db/imports.ts';
import { queryPages } from '../db/query.ts';
import { orgPk } from '../db/keys.ts';
import { createAccountInOrg } from '../domain/accounts.ts';
import { createComment } from '../domain/comments.ts';
import { ValidationError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { createProject } from '../domain/projects.ts';
import { addRelation } from '../domain/relations.ts';
import { activateSprint, completeSprint, createSprint } from '../domain/sprints.ts';
import type { Role } from '../schemas/accounts.ts';
import { EXPORT_FORMAT, EXPORT_VERSION } from './export.ts';
import { ImportSession, type Chunks, type ImportReport } from './import.ts';

/**
 * Imports an export file (lib/port/export.ts) into an organisation: the same data, with new ids.
 * Accounts are matched by e-mail (missing ones created, without a token shown: `token:regenerate`
 * gives one); projects by prefix (missing ones created); labels and sprints by name; issues go
 * through the same import session as other sources (keyed by their old issue number, so a second
 * run creates nothing twice), then parents, comments (of the issues created by this run, by their
 * author), relations, and last the sprints' states (an active sprint is activated, a completed one
 * activated and completed: its report is made again). Activity is history: counted, not written.
 * The report's `ids` maps every old id to its new one.
 */

export interface ExportImportReport {
  format: 'export';
  dry_run: boolean;
  lines: number;
  accounts_created: string[];
  projects: Record<string, ImportReport>;
  comments: number;
  relations: number;
  activity_skipped: number;
  errors: { line: number; error: string }[];
  ids: {
    accounts: Record<string, number>;
    projects: Record<string, number>;
    labels: Record<string, number>;
    sprints: Record<string, number>;
    issues: Record<string, number>;
    comments: Record<string, number>;
  };
}

type Line = Record<string, unknown> & { kind?: string };

/** The lines of a text given in chunks. */
async function* linesOf(chunks: Chunks): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of chunks) {
    rest += chunk;
    let at: number;
    while ((at = rest.indexOf('\n')) >= 0) {
      yield rest.slice(0, at).replace(/\r$/, '');
      rest = rest.slice(at + 1);
    }
  }
  if (rest.trim()) yield rest;
}

export async function importExport(
  options: { orgId: number; dryRun?: boolean | undefined },
  chunks: Chunks,
): Promise<ExportImportReport> {
  const { orgId } = options;
  const dryRun = Boolean(options.dryRun);
  const report: ExportImportReport = {
    format: 'export',
    dry_run: dryRun,
    lines: 0,
    accounts_created: [],
    projects: {},
    comments: 0,
    relations: 0,
    activity_skipped: 0,
    errors: [],
    ids: { accounts: {}, projects: {}, labels: {}, sprints: {}, issues: {}, comments: {} },
  };
  const accounts = await accountsByEmail(orgId);
  const admin = [...accounts.values()].filter((a) => a.role === 'admin').sort((a, b) => a.id - b.id)[0];
  if (!admin) throw new ValidationError(['the organisation has no admin account to import as']);
  const as = (accountId: number): Principal => ({ orgId, accountId, role: 'admin', tokenHash: '' });
  const caller = as(admin.id);
  const prefixes = new Map<string, number>();
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':p': 'PROJECT#' },
      ProjectionExpression: 'id, prefix',
    },
    {},
    (items) => {
      for (const p of items) prefixes.set(String(p.prefix), Number(p.id));
    },
  );
  const accountFor = (email: unknown) => (typeof email === 'string' ? accounts.get(email.toLowerCase())?.id : undefined);

  const sessions: ImportSession[] = [];
  let session: ImportSession | undefined;
  let projectId = 0;
  let sprintNames = new Map<string, { id: number; status: string }>();
  const sprintStates: { projectId: number; sprintId: number; status: string }[] = [];
  const relations: { key: string; type: string; other: string }[] = [];
  /** Issues created by this run (new id -> its sprint): only their comments are written. */
  const createdNow = new Map<number, number | null>();
  /** Old issue number -> new issue number, for relations. */
  const numbers = new Map<string, string>();

  let n = 0;
  for await (const text of linesOf(chunks)) {
    n += 1;
    report.lines = n;
    if (!text.trim()) continue;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      throw new ValidationError([`line ${n} is not JSON`]);
    }
    if (n === 1) {
      if (line.format !== EXPORT_FORMAT || line.version !== EXPORT_VERSION)
        throw new ValidationError([`the file is not a ${EXPORT_FORMAT} file of version ${EXPORT_VERSION}`]);
      continue;
    }
    try {
      switch (line.kind) {
        case 'account': {
          const email = String(line.email).toLowerCase();
          const existed = accounts.has(email);
          let id = accounts.get(email)?.id;
          if (id === undefined && !dryRun) {
            const made = await createAccountInOrg(orgId, { name: String(line.name), email, role: line.role as Role });
            id = made.account.id;
            accounts.set(email, { id, name: made.account.name, role: made.account.role });
          }
          if (!existed) report.accounts_created.push(email);
          if (id !== undefined) report.ids.accounts[String(line.id)] = id;
          break;
        }
        case 'project': {
          if (session) sessions.push(session);
          const prefix = String(line.prefix);
          let id = prefixes.get(prefix);
          if (id === undefined && !dryRun) {
            const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
            id = (
              await createProject(caller, {
                name: String(line.name),
                prefix,
                ...(str(line.description) ? { description: str(line.description) } : {}),
                ...(str(line.documentation_url) ? { documentation_url: str(line.documentation_url) } : {}),
                ...(str(line.production_url) ? { production_url: str(line.production_url) } : {}),
              })
            ).id;
            prefixes.set(prefix, id);
          }
          projectId = id ?? 0;
          report.ids.projects[String(line.id)] = projectId;
          session =
            id === undefined
              ? undefined
              : await ImportSession.open(
                  { orgId, projectId, format: 'export', dryRun, actorId: admin.id, keepIds: true },
                  'export',
                );
          sprintNames = id === undefined ? new Map() : await sprintsByName(orgId, projectId);
          if (session) report.projects[prefix] = session.report;
          break;
        }
        case 'label':
          // Created on first use by an issue, as for any source; kept here so unused labels come too.
          if (session)
            report.ids.labels[String(line.id)] = await session.ensureLabel(String(line.name), {
              color: line.color,
              description: line.description,
            });
          break;
        case 'sprint': {
          if (!session) break;
          const name = String(line.name);
          let id = sprintNames.get(name)?.id;
          if (id === undefined && !dryRun) {
            const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
            const lead = accountFor(line.sprint_lead_email);
            id = (
              await createSprint(caller, projectId, {
                name,
                ...(str(line.description) ? { description: str(line.description) } : {}),
                ...(str(line.start_date) ? { start_date: str(line.start_date) } : {}),
                ...(str(line.end_date) ? { end_date: str(line.end_date) } : {}),
                ...(lead !== undefined ? { sprint_lead_id: lead } : {}),
              })
            ).id;
            sprintNames.set(name, { id, status: 'planning' });
            sprintStates.push({ projectId, sprintId: id, status: String(line.status) });
          }
          report.ids.sprints[String(line.id)] = id ?? 0;
          break;
        }
        case 'issue': {
          if (!session) break;
          const oldSprint = line.sprint_id === null ? null : String(line.sprint_id);
          const key = String(line.issue_number);
          const labels = Array.isArray(line.labels) ? line.labels.map((l) => String((l as { name: unknown }).name)) : [];
          const parent = typeof line.parent_id === 'number' ? String(line.parent_id) : undefined;
          const createdBefore = session.report.created;
          await session.take({
            row: n,
            key,
            title: String(line.title),
            description: (line.description as string | null) ?? null,
            status: String(line.status),
            type: String(line.type),
            priority: String(line.priority),
            assignee: typeof line.assignee_email === 'string' ? line.assignee_email : undefined,
            created_at: String(line.created_at),
            updated_at: String(line.updated_at),
            due_date: typeof line.due_date === 'string' ? line.due_date : undefined,
            labels,
            sprintId: oldSprint === null ? null : (report.ids.sprints[oldSprint] ?? null),
            // Parents are named by their old id; the session resolves them through `id`.
            parent_key: parent,
            id: String(line.id),
            story_points: typeof line.story_points === 'number' ? line.story_points : undefined,
          });
          const made = session.issueOf(key);
          if (made && made.id > 0) report.ids.issues[String(line.id)] = made.id;
          if (made?.number) numbers.set(key, made.number);
          if (made && session.report.created > createdBefore) createdNow.set(made.id, made.sprintId);
          // Relations of issues this run created (an issue imported before has its relations already).
          const relationsOf =
            made && session.report.created > createdBefore && Array.isArray(line.relations) ? line.relations : [];
          for (const r of relationsOf as Record<string, unknown>[]) {
            // Each relation is on both issues: written once, from the side that names it forwards.
            const type = String(r.type);
            if (type === 'relates_to' ? String(r.issue_number) < key : !['blocks', 'duplicates'].includes(type)) continue;
            relations.push({ key, type, other: String(r.issue_number) });
          }
          break;
        }
        case 'comment': {
          const issueId = report.ids.issues[String(line.issue_id)];
          if (!session || issueId === undefined || dryRun) break;
          if (!createdNow.has(issueId)) break;
          const author = accountFor(line.author_email) ?? admin.id;
          const comment = await createComment(
            as(author),
            { projectId, sprintId: createdNow.get(issueId) ?? null, issueId },
            { body: String(line.body) },
          );
          report.ids.comments[String(line.id)] = comment.id;
          report.comments += 1;
          break;
        }
        case 'activity':
          report.activity_skipped += 1;
          break;
        case 'end':
          break;
        default:
          report.errors.push({ line: n, error: `unknown kind "${String(line.kind)}"` });
      }
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      report.errors.push({ line: n, error: err.message });
    }
  }
  if (session) sessions.push(session);
  for (const s of sessions) await s.finish();
  if (!dryRun) {
    for (const r of relations) {
      const newKey = numbers.get(r.key);
      const other = numbers.get(r.other);
      if (!newKey || !other) {
        report.errors.push({ line: 0, error: `relation ${r.key} ${r.type} ${r.other}: ${r.other} was not created by this run` });
        continue;
      }
      try {
        await addRelation(caller, newKey, { type: r.type as 'blocks', issue_key: other });
        report.relations += 1;
      } catch (err) {
        report.errors.push({ line: 0, error: `relation ${r.key} ${r.type} ${r.other}: ${(err as Error).message}` });
      }
    }
    for (const s of sprintStates) {
      try {
        if (s.status === 'active' || s.status === 'completed' || s.status === 'completing')
          await activateSprint(caller, s.projectId, s.sprintId);
        if (s.status === 'completed' || s.status === 'completing') await completeSprint(caller, s.projectId, s.sprintId);
      } catch (err) {
        report.errors.push({ line: 0, error: `sprint ${s.sprintId} (${s.status}): ${(err as Error).message}` });
      }
    }
  }
  return report;
}

import {
  IssueCreateFields,
  type IssueCreate,
  type IssuePriority,
  type IssueStatus,
  type IssueType,
} from '../../schemas/issues.ts';

/**
 * What an import reads from any source, one issue per record, before anything is looked up in the
 * organisation: the source's own words (its status, its people), mapped to ours by `planRecord`.
 */
export interface SourceRecord {
  /** Where the record is in the file (the CSV line, the JSON array index + 1), for the report. */
  row: number;
  /** The source's issue key (`APL-12`, a GitHub issue's URL or `#12`): what makes an import idempotent. */
  key: string;
  title: string;
  description: string | null;
  status: string;
  type?: string | undefined;
  priority?: string | undefined;
  /** An e-mail address, or the source's name for the person (mapped through `people`). */
  assignee?: string | undefined;
  created_at?: string | undefined;
  updated_at?: string | undefined;
  due_date?: string | undefined;
  labels: string[];
  /** The sprint the issue goes to, already known (export files): its id here, or null for the backlog. */
  sprintId?: number | null | undefined;
  /** The sprint the issue is in (its last one), by name. */
  sprint?: { name: string; status?: string | undefined } | undefined;
  parent_key?: string | undefined;
  story_points?: string | number | undefined;
  /** Export files only: everything else that hangs off the issue, kept as exported. */
  extra?: Record<string, unknown> | undefined;
}

export type ImportFormat = 'jira-csv' | 'github-json' | 'export';
export const importFormats: readonly ImportFormat[] = ['jira-csv', 'github-json', 'export'];

/** How source words become ours; every map is matched ignoring case and surrounding spaces. */
export interface ImportMapping {
  statuses: Record<string, IssueStatus>;
  /** The status of a record whose status the map does not hold (reported per row). */
  defaultStatus: IssueStatus;
  priorities: Record<string, IssuePriority>;
  types: Record<string, IssueType>;
  /** A source name for a person (a Jira display name, a GitHub login) -> their e-mail address. */
  people: Record<string, string>;
}

/** Defaults: Jira's stock workflow and GitHub's two states, Jira's five priorities and its issue types. */
export const defaultMapping: ImportMapping = {
  statuses: {
    backlog: 'backlog',
    open: 'todo',
    'to do': 'todo',
    todo: 'todo',
    'selected for development': 'todo',
    reopened: 'todo',
    'in progress': 'in_progress',
    'in review': 'in_progress',
    in_progress: 'in_progress',
    done: 'done',
    closed: 'done',
    resolved: 'done',
    completed: 'done',
    cancelled: 'cancelled',
    canceled: 'cancelled',
    "won't do": 'cancelled',
    not_planned: 'cancelled',
  },
  defaultStatus: 'todo',
  priorities: {
    highest: 'urgent',
    urgent: 'urgent',
    blocker: 'urgent',
    critical: 'urgent',
    high: 'high',
    major: 'high',
    medium: 'medium',
    low: 'low',
    minor: 'low',
    lowest: 'low',
    trivial: 'low',
    none: 'none',
  },
  types: {
    task: 'task',
    'sub-task': 'task',
    subtask: 'task',
    story: 'story',
    bug: 'bug',
    epic: 'epic',
  },
  people: {},
};

/** The default mapping with a caller's entries on top (their keys folded as the lookups fold them). */
export function mappingWith(overrides: Partial<ImportMapping> = {}): ImportMapping {
  const folded = <T>(m: Record<string, T> | undefined) =>
    Object.fromEntries(Object.entries(m ?? {}).map(([k, v]) => [fold(k), v]));
  return {
    statuses: { ...defaultMapping.statuses, ...folded(overrides.statuses) },
    defaultStatus: overrides.defaultStatus ?? defaultMapping.defaultStatus,
    priorities: { ...defaultMapping.priorities, ...folded(overrides.priorities) },
    types: { ...defaultMapping.types, ...folded(overrides.types) },
    people: { ...folded(overrides.people) },
  };
}

const fold = (s: string) => s.trim().toLowerCase();

/** A record as we would create it, or why it cannot be taken. */
export type PlannedRecord =
  | {
      ok: true;
      key: string;
      row: number;
      input: IssueCreate;
      /** The e-mail address of the assignee, to find among the organisation's accounts. */
      assigneeEmail?: string | undefined;
      /** Who, in the source's words, when no e-mail address is known for them. */
      unknownPerson?: string | undefined;
      sprint?: SourceRecord['sprint'];
      parentKey?: string | undefined;
      times: { created_at?: string | undefined; updated_at?: string | undefined };
      /** What was dropped or defaulted (the row is still taken). */
      warnings: string[];
      extra?: Record<string, unknown> | undefined;
    }
  | { ok: false; key: string; row: number; errors: string[] };

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An ISO 8601 instant from a source's date-time, or undefined (Jira's `25/Nov/26 9:05 AM` included). */
export function instantOf(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  const v = value.trim();
  const jira = /^(\d{1,2})\/([A-Za-z]{3})\/(\d{2,4}) (\d{1,2}):(\d{2}) ?([AP]M)$/i.exec(v);
  if (jira) {
    const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
    const [, d, mon, y, h, min, ampm] = jira as unknown as string[];
    const month = months.indexOf(String(mon).toLowerCase());
    if (month < 0) return undefined;
    const year = Number(y) < 100 ? 2000 + Number(y) : Number(y);
    const hour = (Number(h) % 12) + (String(ampm).toUpperCase() === 'PM' ? 12 : 0);
    return new Date(Date.UTC(year, month, Number(d), hour, Number(min))).toISOString();
  }
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** A calendar day from a source's date (or date-time), or undefined. */
export function dayOf(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) return value.trim();
  const jiraDay = /^(\d{1,2})\/([A-Za-z]{3})\/(\d{2,4})$/.exec(value.trim());
  return (jiraDay ? instantOf(`${value.trim()} 12:00 PM`) : instantOf(value))?.slice(0, 10);
}

/**
 * Maps one source record to the issue we would create: pure, so a dry run and the import decide
 * alike. A record is refused (with every reason) when it has no key or when the issue it maps to
 * fails the API's own validation; a status, type or priority the mapping does not hold, a person
 * with no known e-mail, story points or a due date that do not parse are taken with a warning.
 */
export function planRecord(record: SourceRecord, mapping: ImportMapping): PlannedRecord {
  const warnings: string[] = [];
  const key = record.key.trim();
  if (!key) return { ok: false, key: '', row: record.row, errors: ['the issue key is missing'] };

  let status = mapping.statuses[fold(record.status)];
  if (!status) {
    status = mapping.defaultStatus;
    warnings.push(`status "${record.status}" is not mapped: imported as ${status}`);
  }
  let type: IssueType | undefined;
  if (record.type?.trim()) {
    type = mapping.types[fold(record.type)];
    if (!type) warnings.push(`type "${record.type}" is not mapped: imported as task`);
  }
  let priority: IssuePriority | undefined;
  if (record.priority?.trim()) {
    priority = mapping.priorities[fold(record.priority)];
    if (!priority) warnings.push(`priority "${record.priority}" is not mapped: imported as none`);
  }
  let storyPoints: number | undefined;
  const sp = record.story_points;
  if (sp !== undefined && String(sp).trim() !== '') {
    const n = Number(sp);
    if (Number.isFinite(n) && n >= 0) storyPoints = Math.round(n);
    if (storyPoints === undefined) warnings.push(`story points "${sp}" are not a number: left empty`);
    else if (storyPoints !== n) warnings.push(`story points ${sp} rounded to ${storyPoints}`);
  }
  let dueDate: string | undefined;
  if (record.due_date?.trim()) {
    dueDate = dayOf(record.due_date);
    if (!dueDate) warnings.push(`due date "${record.due_date}" is not a date: left empty`);
  }
  let assigneeEmail: string | undefined;
  let unknownPerson: string | undefined;
  const who = record.assignee?.trim();
  if (who) {
    const email = emailPattern.test(who) ? who : mapping.people[fold(who)];
    if (email) assigneeEmail = email.toLowerCase();
    else unknownPerson = who;
  }
  const labels = [
    ...new Map(
      record.labels
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => [l.toLowerCase(), l]),
    ).values(),
  ];

  const candidate = {
    title: record.title,
    description: record.description?.length ? record.description : null,
    status,
    ...(type ? { type } : {}),
    ...(priority ? { priority } : {}),
    ...(storyPoints !== undefined ? { story_points: storyPoints } : {}),
    ...(dueDate ? { due_date: dueDate } : {}),
    ...(labels.length > 0 ? { labels } : {}),
  };
  const parsed = IssueCreateFields.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      key,
      row: record.row,
      errors: parsed.error.issues.map((i) => `${i.path.join('.') || 'issue'} ${i.message}`),
    };
  }
  return {
    ok: true,
    key,
    row: record.row,
    input: parsed.data,
    assigneeEmail,
    unknownPerson,
    sprint: record.sprint?.name.trim() ? { ...record.sprint, name: record.sprint.name.trim() } : undefined,
    parentKey: record.parent_key?.trim() || undefined,
    times: { created_at: instantOf(record.created_at), updated_at: instantOf(record.updated_at) },
    warnings,
    extra: record.extra,
  };
}

/**
 * The records of a Jira Cloud CSV export ("Export > Export CSV (all fields)" or "current fields"),
 * from its header: columns are found by name, ignoring case; a name Jira repeats (Labels, Sprint)
 * gives every non-empty value. Story points come from `Custom field (Story Points)` or
 * `Custom field (Story point estimate)`; the parent from `Parent key`, `Parent`, `Parent id` (an
 * issue id, resolved through the `Issue id` column) or `Parent summary` is ignored.
 */
export function jiraColumns(header: string[]) {
  const at = (name: string) => header.map((h, i) => (fold(h) === fold(name) ? i : -1)).filter((i) => i >= 0);
  const first = (...names: string[]) => names.map((n) => at(n)[0]).find((i) => i !== undefined);
  return {
    summary: first('Summary'),
    key: first('Issue key'),
    id: first('Issue id'),
    type: first('Issue Type'),
    status: first('Status'),
    priority: first('Priority'),
    assignee: first('Assignee'),
    created: first('Created'),
    updated: first('Updated'),
    due: first('Due date', 'Due Date'),
    description: first('Description'),
    labels: at('Labels'),
    sprints: at('Sprint'),
    parentKey: first('Parent key'),
    parent: first('Parent'),
    parentId: first('Parent id'),
    storyPoints: first(
      'Custom field (Story Points)',
      'Custom field (Story point estimate)',
      'Story point estimate',
      'Story Points',
    ),
  };
}
export type JiraColumns = ReturnType<typeof jiraColumns>;

/** What a Jira CSV header must hold. */
export function missingJiraColumns(columns: JiraColumns): string[] {
  return [
    ...(columns.summary === undefined ? ['Summary'] : []),
    ...(columns.key === undefined ? ['Issue key'] : []),
    ...(columns.status === undefined ? ['Status'] : []),
  ];
}

/**
 * One Jira CSV record. `Parent` holds a key in some exports and an issue id in others, and
 * `Parent id` an id: ids are resolved to keys after every row is read (`resolveParentIds`).
 */
export function jiraRecord(fields: string[], columns: JiraColumns, row: number): SourceRecord & { id?: string } {
  const get = (i: number | undefined) => (i === undefined ? undefined : fields[i]);
  const many = (is: number[]) => is.map((i) => fields[i]?.trim() ?? '').filter(Boolean);
  const sprints = many(columns.sprints);
  const parent = get(columns.parentKey)?.trim() || get(columns.parent)?.trim() || get(columns.parentId)?.trim() || undefined;
  return {
    row,
    key: get(columns.key) ?? '',
    id: get(columns.id)?.trim() || undefined,
    title: get(columns.summary) ?? '',
    description: get(columns.description) ?? null,
    status: get(columns.status) ?? '',
    type: get(columns.type),
    priority: get(columns.priority),
    assignee: get(columns.assignee),
    created_at: get(columns.created),
    updated_at: get(columns.updated),
    due_date: get(columns.due),
    labels: many(columns.labels),
    sprint: sprints.length > 0 ? { name: sprints.at(-1) as string } : undefined,
    parent_key: parent,
    story_points: get(columns.storyPoints),
  };
}

/** A GitHub person as `gh` writes one (`{login, name}`), or as the REST API does (`{login, email}`). */
interface GitHubPerson {
  login?: string;
  name?: string;
  email?: string | null;
}

/**
 * One issue object of `gh issue list --json number,title,body,state,labels,assignees,author,milestone,createdAt,updatedAt,closedAt,url`
 * (states `OPEN`/`CLOSED`, `stateReason` `NOT_PLANNED` for cancelled) or of the REST API
 * (`open`/`closed`, `state_reason`, `created_at`, `html_url`). Its key is the issue's URL (unique
 * across repositories), else `#<number>`. The milestone is the sprint; the first assignee the
 * assignee. Returns why it is not an issue object otherwise.
 */
export function githubRecord(value: unknown, row: number): SourceRecord | { row: number; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { row, error: 'is not an issue object' };
  const o = value as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const number = typeof o.number === 'number' ? o.number : undefined;
  const key = str(o.url) ?? str(o.html_url) ?? (number === undefined ? '' : `#${number}`);
  const reason = str(o.stateReason) ?? str(o.state_reason);
  const state = str(o.state) ?? '';
  const assignees = (Array.isArray(o.assignees) ? o.assignees : []) as GitHubPerson[];
  const person = assignees[0];
  const milestone = o.milestone as { title?: string; state?: string } | null | undefined;
  const labels = (Array.isArray(o.labels) ? o.labels : []).map((l) =>
    typeof l === 'string' ? l : String((l as { name?: unknown }).name ?? ''),
  );
  return {
    row,
    key,
    title: str(o.title) ?? '',
    description: str(o.body) ?? null,
    status: state.toLowerCase() === 'closed' && reason?.toLowerCase() === 'not_planned' ? 'not_planned' : state,
    assignee: person ? (person.email ?? person.login ?? person.name ?? undefined) : undefined,
    created_at: str(o.createdAt) ?? str(o.created_at),
    updated_at: str(o.updatedAt) ?? str(o.updated_at),
    labels,
    sprint: milestone?.title ? { name: milestone.title } : undefined,
  };
}

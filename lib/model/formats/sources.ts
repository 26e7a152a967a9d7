import {
  IssueCreateFields,
  issueStatuses,
  workflowStatuses,
  type IssueCreate,
  type IssuePriority,
  type IssueStatus,
  type IssueType,
} from '../../schemas/issues.ts';
import type { RelationType } from '../../vocabulary/relation-types.ts';
import { statusKey } from '../../vocabulary/workflow.ts';
import { limits } from '../../schemas/common.ts';
import { instantIn } from './dates.ts';

/**
 * What an import reads from any source, one issue per record, before anything is looked up in the
 * organisation: the source's own words (its status, its people), mapped to ours by `planRecord`.
 */
export interface SourceRecord {
  /** Where the record is in the file (the CSV line, the JSON array index + 1), for the report. */
  row: number;
  /** The source's issue key (`APL-12`, `acme/app#12`): what makes an import idempotent, shown as `source_key`. */
  key: string;
  /** A key earlier versions of the import recorded the record under (a GitHub issue's URL). */
  legacyKey?: string | undefined;
  /** The number the key carries (`DI-127`: 127), for `keep_numbers`. */
  number?: number | undefined;
  title: string;
  description: string | null;
  status: string;
  type?: string | undefined;
  priority?: string | undefined;
  /** Who it is assigned to: an e-mail address, or the source's name or id for the person (mapped through `people`). */
  assignee?: Person | undefined;
  /** Who reported it: its author here. */
  reporter?: Person | undefined;
  created_at?: string | undefined;
  updated_at?: string | undefined;
  /** When it was resolved or closed: its `completed_at` when its status is done or cancelled. */
  resolved_at?: string | undefined;
  due_date?: string | undefined;
  labels: string[];
  /** The sprint the issue goes to, already known (export files): its id here, or null for the backlog. */
  sprintId?: number | null | undefined;
  /** The sprint the issue is in (its last one), by name. */
  sprint?: { name: string; status?: string | undefined } | undefined;
  /** The sprints it was in before its last one (Jira's repeated Sprint columns), reported. */
  sprintHistory?: string[] | undefined;
  parent_key?: string | undefined;
  story_points?: string | number | undefined;
  comments?: SourceComment[] | undefined;
  /** Relations to other issues of the file, by their keys, seen from this one. */
  links?: SourceLink[] | undefined;
  /**
   * Files attached to the issue in the source, as links to them there (never fetched): Jira's
   * `Attachment` columns, GitHub's uploads linked from a body or comment.
   */
  attachments?: SourceAttachment[] | undefined;
  /**
   * Whether the links already stand in the issue's text (GitHub: in its body or a comment, where
   * they were written); else (Jira) the import notes them at the end of its description.
   */
  attachmentsInText?: boolean | undefined;
  /** The column (or field) each value came from, for the warnings: `status` -> `Status`. */
  columns?: Partial<
    Record<'status' | 'type' | 'priority' | 'due_date' | 'story_points' | 'assignee' | 'reporter' | 'resolved', string>
  >;
  /** What the reader could not take, already phrased (row, column, value). */
  warnings?: string[] | undefined;
  /** Custom field values by field key, as an issue write takes them (an export file's; a Jira row's once its columns are read). */
  custom_fields?: Record<string, unknown> | undefined;
  /** A Jira row's non-empty cells of `Custom field (…)` columns, by column: read into `custom_fields` once the whole file is read. */
  customCells?: Map<string, string[]> | undefined;
  /** Jira's `Custom field (Rank)`: the row's lexorank, which orders the issues of its list. */
  rank?: string | undefined;
}

/** A person as a source names them: an e-mail address, a display name or login, an account id. */
export interface Person {
  name?: string | undefined;
  id?: string | undefined;
}

export interface SourceComment {
  /** What makes the comment's import idempotent, unique in the file (`<issue key>#<n>`). */
  key: string;
  body: string;
  at?: string | undefined;
  author?: Person | undefined;
}

/** A file attached in the source: its name and its URL there (kept as a link; nothing is fetched). */
export interface SourceAttachment {
  name: string;
  url: string;
}

export interface SourceLink {
  type: RelationType;
  key: string;
  /** The column it came from (`Outward issue link (Blocks)`). */
  column: string;
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
  /** A source name or id for a person (a Jira display name or account id, a GitHub login) -> their e-mail address. */
  people: Record<string, string>;
  /**
   * The time zone (IANA: `Europe/Paris`) of date-times a source writes without one (Jira's
   * `25/Feb/26 10:17 PM`, in the exporting user's zone); UTC unless set.
   */
  timeZone: string;
}

/**
 * Source statuses that name a category itself (Jira's stock `To Do`, `In Progress`, `Done`,
 * GitHub's `open` and `closed`): an issue in one goes to the category's first state. A status the
 * mapping maps that is none of these (`In Review`, or one a caller maps) is a state of its own: the
 * import creates it in that category, once (lib/services/import-export/import.ts).
 */
export const categorySynonyms: Readonly<Record<string, IssueStatus>> = {
  backlog: 'backlog',
  open: 'todo',
  'to do': 'todo',
  todo: 'todo',
  'selected for development': 'todo',
  reopened: 'todo',
  'in progress': 'in_progress',
  in_progress: 'in_progress',
  done: 'done',
  closed: 'done',
  resolved: 'done',
  completed: 'done',
  cancelled: 'cancelled',
  canceled: 'cancelled',
  "won't do": 'cancelled',
  not_planned: 'cancelled',
};

/** Defaults: Jira's stock workflow and GitHub's two states, Jira's five priorities and its issue types. */
export const defaultMapping: ImportMapping = {
  statuses: {
    ...categorySynonyms,
    'in review': 'in_progress',
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
  timeZone: 'UTC',
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
    timeZone: overrides.timeZone ?? defaultMapping.timeZone,
  };
}

export const fold = (s: string) => s.trim().toLowerCase();

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * A person's e-mail address by the mapping: their own value if it is one, else what `people`
 * maps their name or their id to. Undefined: nobody known; `label` then names them in the report.
 */
export function personEmail(person: Person | undefined, mapping: ImportMapping): { email?: string; label?: string } {
  const name = person?.name?.trim();
  const id = person?.id?.trim();
  if (!name && !id) return {};
  for (const v of [name, id]) if (v && emailPattern.test(v)) return { email: v.toLowerCase() };
  const mapped = (name && mapping.people[fold(name)]) || (id && mapping.people[fold(id)]);
  if (mapped) return { email: mapped.toLowerCase() };
  return { label: name || id };
}

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
      reporterEmail?: string | undefined;
      unknownReporter?: string | undefined;
      sprint?: SourceRecord['sprint'];
      parentKey?: string | undefined;
      times: {
        created_at?: string | undefined;
        updated_at?: string | undefined;
        /** Null: a closed issue whose source does not say when (left empty). */
        completed_at?: string | null | undefined;
      };
      comments: { key: string; body: string; at?: string | undefined; authorEmail?: string; unknownAuthor?: string }[];
      /** The source's attachments, as links (the report lists them). */
      attachments: SourceAttachment[];
      /** What was dropped or defaulted (the row is still taken). */
      warnings: string[];
    }
  | { ok: false; key: string; row: number; errors: string[] };

/** An ISO 8601 instant from a source's date-time in `timeZone` (Jira's `25/Nov/26 9:05 AM` included), or undefined. */
export function instantOf(value: string | undefined, timeZone = 'UTC'): string | undefined {
  if (!value?.trim()) return undefined;
  const v = value.trim();
  const jira = /^(\d{1,2})\/([A-Za-z]{3})\/(\d{2,4}) (\d{1,2}):(\d{2}) ?([AP]M)$/i.exec(v);
  if (jira) {
    const months = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
    const [, d, mon, y, h, min, ampm] = jira as unknown as string[];
    const month = months.indexOf(String(mon).toLowerCase());
    if (month < 0 || Number(h) > 12 || Number(min) > 59) return undefined;
    const year = Number(y) < 100 ? 2000 + Number(y) : Number(y);
    const hour = (Number(h) % 12) + (String(ampm).toUpperCase() === 'PM' ? 12 : 0);
    return instantIn({ year, month, day: Number(d), hour, minute: Number(min) }, timeZone);
  }
  // An ISO 8601 date-time names its own offset (none: UTC, as Date reads it).
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(v)) return undefined;
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

const closedStatuses = new Set<IssueStatus>(['done', 'cancelled']);

/**
 * Maps one source record to the issue we would create: pure, so a dry run and the import decide
 * alike. A record is refused (with every reason) when it has no key or when the issue it maps to
 * fails the API's own validation; a status, type or priority the mapping does not hold, a person
 * with no known e-mail, story points, a date or a due date that do not parse are taken with a
 * warning that names the column and the value.
 */
export function planRecord(
  record: SourceRecord,
  mapping: ImportMapping,
  states: ReadonlyMap<string, IssueStatus> = new Map(),
): PlannedRecord {
  const warnings: string[] = [...(record.warnings ?? [])];
  const key = record.key.trim();
  if (!key) return { ok: false, key: '', row: record.row, errors: ['the issue key is missing'] };
  const { own, status, type, priority, storyPoints, dueDate } = mappedValues(record, mapping, states, warnings);
  const { time, created, updated, completed } = plannedTimes(record, mapping.timeZone, status, warnings);
  const assignee = personEmail(record.assignee, mapping);
  const reporter = personEmail(record.reporter, mapping);
  const labels = [
    ...new Map(
      record.labels
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => [l.toLowerCase(), l]),
    ).values(),
  ];
  const comments = (record.comments ?? []).flatMap((c) => {
    if (!c.body.trim()) return [];
    const author = personEmail(c.author, mapping);
    return [
      {
        key: c.key,
        body: c.body,
        at: time(c.at, 'Comment'),
        ...(author.email ? { authorEmail: author.email } : {}),
        ...(author.label ? { unknownAuthor: author.label } : {}),
      },
    ];
  });
  const attachments = record.attachments ?? [];
  const description = describedWith(record, attachments, warnings);

  const candidate = {
    title: record.title,
    description,
    status: own ? statusKey(record.status) : status,
    ...(type ? { type } : {}),
    ...(priority ? { priority } : {}),
    ...(storyPoints !== undefined ? { story_points: storyPoints } : {}),
    ...(dueDate ? { due_date: dueDate } : {}),
    ...(labels.length > 0 ? { labels } : {}),
    ...(record.custom_fields && Object.keys(record.custom_fields).length > 0 ? { custom_fields: record.custom_fields } : {}),
  };
  const parsed = workflowStatuses.run([...states.keys(), ...issueStatuses], () => IssueCreateFields.safeParse(candidate));
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
    assigneeEmail: assignee.email,
    unknownPerson: assignee.label,
    reporterEmail: reporter.email,
    unknownReporter: reporter.label,
    sprint: record.sprint?.name.trim() ? { ...record.sprint, name: record.sprint.name.trim() } : undefined,
    parentKey: record.parent_key?.trim() || undefined,
    times: { created_at: created, updated_at: updated, completed_at: completed },
    comments,
    attachments,
    warnings,
  };
}

/** The column a record's field came from (its own name when the source names none). */
const columnOf = (record: SourceRecord, field: keyof NonNullable<SourceRecord['columns']>) => record.columns?.[field] ?? field;

/** A record's status, type, priority, points and due date as mapped here, a warning for each that is not taken as it is. */
function mappedValues(
  record: SourceRecord,
  mapping: ImportMapping,
  states: ReadonlyMap<string, IssueStatus>,
  warnings: string[],
) {
  const column = (field: keyof NonNullable<SourceRecord['columns']>) => columnOf(record, field);
  // A state of the project by its name (docs/workflows.md: its `status` key) is taken as it is;
  // else the mapping's category (that category's first state).
  const own = states.get(statusKey(record.status));
  let status = own ?? mapping.statuses[fold(record.status)];
  if (!status) {
    status = mapping.defaultStatus;
    warnings.push(`${column('status')} "${record.status}" is not mapped: imported as ${status}`);
  }
  let type: IssueType | undefined;
  if (record.type?.trim()) {
    type = mapping.types[fold(record.type)];
    if (!type) warnings.push(`${column('type')} "${record.type}" is not mapped: imported as task`);
  }
  let priority: IssuePriority | undefined;
  if (record.priority?.trim()) {
    priority = mapping.priorities[fold(record.priority)];
    if (!priority) warnings.push(`${column('priority')} "${record.priority}" is not mapped: imported as none`);
  }
  let storyPoints: number | undefined;
  const sp = record.story_points;
  if (sp !== undefined && String(sp).trim() !== '') {
    const n = Number(sp);
    if (Number.isFinite(n) && n >= 0) storyPoints = Math.round(n);
    if (storyPoints === undefined) warnings.push(`${column('story_points')} "${sp}" is not a number: left empty`);
    else if (storyPoints !== n) warnings.push(`${column('story_points')} "${sp}" rounded to ${storyPoints}`);
  }
  let dueDate: string | undefined;
  if (record.due_date?.trim()) {
    dueDate = dayOf(record.due_date);
    if (!dueDate) warnings.push(`${column('due_date')} "${record.due_date}" is not a date: left empty`);
  }
  return { own, status, type, priority, storyPoints, dueDate };
}

/**
 * A record's times in the mapping's time zone (`time` reads one more, a comment's), each that does
 * not parse left out with a warning; its completion only for a closed issue, left empty (never
 * made up) when the source that names the column says not when.
 */
function plannedTimes(record: SourceRecord, timeZone: string | undefined, status: IssueStatus, warnings: string[]) {
  const time = (value: string | undefined, name: string) => {
    if (!value?.trim()) return undefined;
    const at = instantOf(value, timeZone);
    if (!at) warnings.push(`${name} "${value}" is not a date-time: left out`);
    return at;
  };
  const created = time(record.created_at, 'Created');
  const updated = time(record.updated_at, 'Updated');
  let resolved = time(record.resolved_at, 'Resolved');
  if (resolved && !closedStatuses.has(status)) {
    warnings.push(`Resolved "${record.resolved_at}" left out: the issue is ${status}, not done or cancelled`);
    resolved = undefined;
  }
  // A closed issue whose source says not when: its completion is left empty, never made up (from
  // its creation or update time). Sources that name the column say so; an export file keeps its own.
  const completion = record.columns?.resolved;
  let completed: string | null | undefined = resolved;
  if (!resolved && completion && closedStatuses.has(status)) {
    completed = null;
    if (!record.resolved_at?.trim()) warnings.push(`${completion} is missing: completed_at left empty (the issue is ${status})`);
  }
  return { time, created, updated, completed };
}

/** A record's description, with a note of its attachments' links at its end when the source's text lacks them and it fits. */
function describedWith(record: SourceRecord, attachments: SourceAttachment[], warnings: string[]): string | null {
  const description = record.description?.length ? record.description : null;
  if (attachments.length === 0 || record.attachmentsInText) return description;
  const noted = `${description ? `${description}\n\n` : ''}${attachmentNote(attachments)}`;
  if (noted.length <= limits.description && Buffer.byteLength(noted, 'utf8') <= limits.textBytes) return noted;
  warnings.push(`Attachment: ${attachments.length} link(s) left out of the description (too long): the report lists them`);
  return description;
}

/** A file name as Markdown link text: its brackets and backslashes escaped, on one line. */
const linkText = (name: string) => name.replace(/\s+/g, ' ').replace(/[\\[\]]/g, (c) => `\\${c}`);

/**
 * What an issue imported with attachments in the source says of them, at the end of its
 * description: their names and links, and that the files stay in the source (nothing is copied).
 */
export function attachmentNote(attachments: readonly SourceAttachment[]): string {
  return [
    '---',
    'Attachments in the source (not copied here; the links lead to the files there):',
    ...attachments.map((a) => `- [${linkText(a.name)}](<${a.url.replace(/[<>\s]/g, encodeURIComponent)}>)`),
  ].join('\n');
}

/** Story points, under every name Jira Cloud writes them (company-managed and team-managed projects). */
export const storyPointColumns = [
  'Custom field (Story Points)',
  'Custom field (Story point estimate)',
  'Story Points',
  'Story point estimate',
];

/** Jira's link types and what they are here, seen from the row (outward) and from the other issue (inward). */
const jiraLinkTypes: Record<string, { outward: RelationType; inward: RelationType }> = {
  blocks: { outward: 'blocks', inward: 'blocked_by' },
  relates: { outward: 'relates_to', inward: 'relates_to' },
  duplicate: { outward: 'duplicates', inward: 'duplicated_by' },
  cloners: { outward: 'relates_to', inward: 'relates_to' },
};

/** The columns the import reads (any case); repeated ones give every value. */
const jiraSingle = {
  summary: ['Summary'],
  key: ['Issue key'],
  id: ['Issue id'],
  type: ['Issue Type'],
  status: ['Status'],
  priority: ['Priority'],
  assignee: ['Assignee'],
  assigneeId: ['Assignee Id'],
  reporter: ['Reporter'],
  reporterId: ['Reporter Id'],
  created: ['Created'],
  updated: ['Updated'],
  resolved: ['Resolved'],
  due: ['Due date'],
  description: ['Description'],
} as const;

/**
 * The columns of a Jira Cloud CSV export ("Export > Export CSV (all fields)" or "current fields"),
 * from its header: found by name, ignoring case. Jira repeats a column per value (`Labels`,
 * `Sprint`, `Comment`, `Watchers`, `Attachment`, a link type's columns) and writes some fields
 * under several names (story points; `Sprint` and `Custom field (Sprint)`; `Parent`, `Parent id`,
 * `Parent key`). Every other column is unknown: counted once in the report, never read.
 */
export function jiraColumns(header: string[]) {
  const names = header.map(fold);
  const used = new Set<number>();
  const all = (...candidates: string[]) => {
    const wanted = new Set(candidates.map(fold));
    const found = names.flatMap((n, i) => (wanted.has(n) ? [i] : []));
    for (const i of found) used.add(i);
    return found;
  };
  const single = Object.fromEntries(Object.entries(jiraSingle).map(([field, n]) => [field, all(...n)])) as Record<
    keyof typeof jiraSingle,
    number[]
  >;
  const links: { index: number; column: string; type: RelationType | undefined }[] = [];
  names.forEach((n, i) => {
    const m = /^(inward|outward) issue link \((.+)\)$/.exec(n);
    if (!m) return;
    used.add(i);
    const kind = jiraLinkTypes[String(m[2])];
    links.push({ index: i, column: header[i] as string, type: kind ? kind[m[1] as 'inward' | 'outward'] : undefined });
  });
  const columns = {
    ...single,
    labels: all('Labels'),
    sprints: all('Sprint', 'Custom field (Sprint)'),
    parent: all('Parent key', 'Parent', 'Parent id'),
    storyPoints: all(...storyPointColumns),
    comments: all('Comment'),
    attachments: all('Attachment'),
    rank: all('Custom field (Rank)', 'Rank'),
    links,
    header,
  };
  // Each repeat appends to its name's list in place: a header of n columns of one name is read in
  // time linear in n (a copy of the list per repeat made it quadratic).
  const unknown = new Map<string, number[]>();
  header.forEach((h, i) => {
    if (used.has(i)) return;
    const indexes = unknown.get(h);
    if (indexes) indexes.push(i);
    else unknown.set(h, [i]);
  });
  const unknownColumns = [...unknown].map(([name, indexes]) => ({ name, indexes }));
  // `Custom field (…)` columns (repeated ones together): read into custom fields once the whole file is read.
  const custom = unknownColumns.filter((u) => /^custom field \(.+\)$/i.test(u.name.trim()));
  return { ...columns, unknown: unknownColumns, custom };
}
export type JiraColumns = ReturnType<typeof jiraColumns>;

/** What a Jira CSV header must hold. */
export function missingJiraColumns(columns: JiraColumns): string[] {
  return [
    ...(columns.summary.length === 0 ? ['Summary'] : []),
    ...(columns.key.length === 0 ? ['Issue key'] : []),
    ...(columns.status.length === 0 ? ['Status'] : []),
  ];
}

/** `DI-127` -> 127 (and the prefix `DI`); undefined for a key of another shape. */
export function keyNumber(key: string): { prefix: string; number: number } | undefined {
  const m = /^([A-Za-z][A-Za-z0-9]*)-([1-9]\d{0,15})$/.exec(key.trim());
  return m ? { prefix: String(m[1]).toUpperCase(), number: Number(m[2]) } : undefined;
}

/**
 * A Jira comment cell: `25/Feb/26 10:17 PM;557058:abcd-…;the body` (the body may hold `;`). A cell
 * of another shape is the body alone, with a warning.
 */
function jiraComment(cell: string, key: string, column: string, warnings: string[]): SourceComment {
  const m = /^([^;]*);([^;]*);([\s\S]*)$/.exec(cell);
  if (m && instantOf(m[1])) {
    const author = String(m[2]).trim();
    return { key, at: String(m[1]).trim(), author: author ? { id: author, name: author } : undefined, body: String(m[3]) };
  }
  warnings.push(`${column} "${clip(cell)}" is not "date;author;body": imported as the body, by the importer, now`);
  return { key, body: cell };
}

/**
 * A Jira attachment cell: `01/Feb/24 10:15 AM;557058:f581…;screenshot.png;https://acme.atlassian.net/secure/attachment/10001/screenshot.png`
 * (the time, the uploader's account id, the file name, its URL; the name may hold `;`). A bare URL
 * is taken with its last path segment as the name; anything else is left out with a warning.
 */
function jiraAttachment(cell: string, column: string, warnings: string[]): SourceAttachment | undefined {
  const m = /^([^;]*);([^;]*);(.*);\s*(https?:\/\/\S+)\s*$/i.exec(cell);
  if (m) return { name: String(m[3]).trim() || lastSegment(String(m[4])), url: String(m[4]) };
  if (/^https?:\/\/\S+$/i.test(cell)) return { name: lastSegment(cell), url: cell };
  warnings.push(`${column} "${clip(cell)}" is not "date;author;file name;URL": left out`);
  return undefined;
}

/** The last segment of a URL's path, decoded (`…/10001/screen%20shot.png` -> `screen shot.png`). */
function lastSegment(url: string): string {
  const segment = url.split(/[?#]/)[0]!.replace(/\/+$/, '').split('/').at(-1) ?? '';
  try {
    return decodeURIComponent(segment) || url;
  } catch {
    return segment || url;
  }
}

/** URLs of files uploaded to GitHub (issue and comment attachments, pasted images), old and new hosts. */
const githubUpload =
  /https:\/\/(?:github\.com\/user-attachments\/(?:assets|files)\/|(?:private-)?user-images\.githubusercontent\.com\/|github\.com\/[\w.-]+\/[\w.-]+\/files\/\d+\/)[^\s)"'<>\]]+/g;

/**
 * The files uploaded to GitHub that a Markdown text links to, each once, in order: named by its
 * link's text (`[trace.log](…)`, `![screenshot](…)`), an `<img>`'s `alt`, else its URL's last segment.
 */
export function githubUploads(text: string): SourceAttachment[] {
  const names = new Map<string, string>();
  for (const [name, url] of markdownLinks(text)) {
    if (name.trim() && !names.has(url)) names.set(url, name.trim());
  }
  for (const tag of imgTags(text)) {
    const src = /\bsrc\s*=\s*["']([^"']+)["']/i.exec(tag)?.[1];
    const alt = /\balt\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1]?.trim();
    if (src && alt && !names.has(src)) names.set(src, alt);
  }
  const found = new Map<string, SourceAttachment>();
  for (const [url] of text.matchAll(githubUpload)) {
    if (!found.has(url)) found.set(url, { name: names.get(url) ?? lastSegment(url), url });
  }
  return [...found.values()];
}

/**
 * The Markdown links and images of a text (`[text](url …)`, `![alt](<url>)`), as
 * `/!?\[([^\]]*)\]\(\s*<?([^\s)>]+)>?[^)]*\)/g` finds them, in time linear in the text: that
 * expression retries from every `[` up to the next `]` (or the end), quadratic in a text of many
 * `[`. A `[` whose `]` is not followed by a link makes every `[` before that `]` fail alike, so the
 * search goes on after it; a link needs a `)` after its URL, so none is found once none is left.
 */
export function* markdownLinks(text: string): Generator<[name: string, url: string]> {
  const lastParen = text.lastIndexOf(')');
  const spaces = /\s*/y;
  const urlRun = /[^\s)>]+/y;
  const runFrom = (at: number) => {
    urlRun.lastIndex = at;
    return urlRun.exec(text)?.[0] ?? '';
  };
  let pos = 0;
  for (;;) {
    const open = text.indexOf('[', pos);
    const close = open < 0 ? -1 : text.indexOf(']', open + 1);
    if (close < 0) return;
    pos = close + 1;
    if (text[close + 1] !== '(') continue;
    spaces.lastIndex = close + 2;
    spaces.exec(text);
    const start = spaces.lastIndex;
    // `<?` first takes a `<`; with nothing linkable after it, the URL is the `<` itself (the expression's backtracking).
    let url = text[start] === '<' ? runFrom(start + 1) : '';
    const urlStart = url ? start + 1 : start;
    url ||= runFrom(start);
    if (!url) continue;
    if (lastParen < urlStart + url.length) return;
    yield [text.slice(open + 1, close), url];
    pos = text.indexOf(')', urlStart + url.length) + 1;
  }
}

/** The `<img …>` tags of a text, as `/<img\b[^>]*>/gi` finds them, in linear time (none once no `>` is left). */
export function* imgTags(text: string): Generator<string> {
  const start = /<img\b/gi;
  for (;;) {
    const m = start.exec(text);
    if (!m) return;
    const end = text.indexOf('>', m.index + 4);
    if (end < 0) return;
    yield text.slice(m.index, end + 1);
    start.lastIndex = end + 1;
  }
}

/** A value as a warning quotes it: one line, at most 80 characters. */
export const clip = (v: string) => {
  const line = v.replace(/\s+/g, ' ').trim();
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
};

/**
 * One Jira CSV record. Of repeated or alternative columns the first non-empty value is taken (the
 * others, when they differ, are warned about), but for `Labels`, `Comment` and `Attachment` (every value) and
 * the sprint columns (the last non-empty one is the issue's sprint, the earlier ones its history).
 * `Parent` holds a key in some exports and an issue id in others, and `Parent id` an id: ids are
 * resolved to keys after every row is read.
 */
export function jiraRecord(fields: string[], columns: JiraColumns, row: number): SourceRecord & { id?: string } {
  const warnings: string[] = [];
  const { cell, values, first } = jiraCells(fields, columns, warnings);
  const raw = (is: number[]) => (is[0] === undefined ? undefined : fields[is[0]]);
  const key = cell(columns.key[0] ?? -1);
  const sprints = [...new Set(values(columns.sprints).map((v) => v.value))];
  // `Parent` (an id or a key), `Parent id` and `Parent key` name one parent in different forms.
  const parent = first(columns.parent, false);
  const points = first(columns.storyPoints);
  const status = first(columns.status);
  const type = first(columns.type);
  const priority = first(columns.priority);
  const due = first(columns.due);
  const person = (name: number[], id: number[]) => {
    const n = first(name)?.value;
    const i = first(id)?.value;
    return n || i ? { name: n, id: i } : undefined;
  };
  const comments = values(columns.comments).map((c, n) => jiraComment(c.value, `${key}#${n + 1}`, c.column, warnings));
  const attachments = values(columns.attachments).flatMap((a) => jiraAttachment(a.value, a.column, warnings) ?? []);
  const links = jiraLinks(columns, fields.length, cell, warnings);
  const number = keyNumber(key);
  const customCells = new Map<string, string[]>();
  for (const c of columns.custom) {
    const found = values(c.indexes);
    if (found.length > 0)
      customCells.set(
        c.name,
        found.map((v) => v.value),
      );
  }
  const rank = first(columns.rank, false)?.value;
  return {
    row,
    key,
    ...(number ? { number: number.number } : {}),
    id: cell(columns.id[0] ?? -1) || undefined,
    title: raw(columns.summary) ?? '',
    description: raw(columns.description) ?? null,
    status: status?.value ?? '',
    type: type?.value,
    priority: priority?.value,
    assignee: person(columns.assignee, columns.assigneeId),
    reporter: person(columns.reporter, columns.reporterId),
    created_at: first(columns.created)?.value,
    updated_at: first(columns.updated)?.value,
    resolved_at: first(columns.resolved)?.value,
    due_date: due?.value,
    labels: values(columns.labels).map((v) => v.value),
    sprint: sprints.length > 0 ? { name: sprints.at(-1) as string } : undefined,
    sprintHistory: sprints.slice(0, -1),
    parent_key: parent?.value,
    story_points: points?.value,
    comments,
    attachments,
    links,
    columns: {
      status: status?.column,
      type: type?.column,
      priority: priority?.column,
      due_date: due?.column,
      story_points: points?.column,
      resolved: 'Resolved',
    },
    warnings,
    ...(customCells.size > 0 ? { customCells } : {}),
    ...(rank ? { rank } : {}),
  };
}

/** A Jira row's cells: one, the non-empty values of columns, the first of alternative columns (the others that differ warned about). */
function jiraCells(fields: string[], columns: JiraColumns, warnings: string[]) {
  const cell = (i: number) => fields[i]?.trim() ?? '';
  /** The non-empty values of columns (indexes ascending), past the row's last field none: a short row costs its own length. */
  const values = (is: number[]) => {
    const found: { column: string; value: string }[] = [];
    for (const i of is) {
      if (i >= fields.length) break;
      const value = cell(i);
      if (value) found.push({ column: columns.header[i] as string, value });
    }
    return found;
  };
  /** The first non-empty value of alternative columns; the others that differ are warned about. */
  const first = (is: number[], warn = true) => {
    const [taken, ...rest] = values(is);
    for (const r of warn ? rest : []) {
      if (r.value !== taken?.value)
        warnings.push(`${r.column} "${clip(r.value)}" left out: ${taken?.column} "${clip(taken?.value ?? '')}" is taken`);
    }
    return taken;
  };
  return { cell, values, first };
}

/** The issue links of a Jira row's link columns (each a type and a direction), keys split on spaces and commas. */
function jiraLinks(columns: JiraColumns, length: number, cell: (i: number) => string, warnings: string[]): SourceLink[] {
  const links: SourceLink[] = [];
  for (const l of columns.links) {
    if (l.index >= length) break;
    for (const other of cell(l.index)
      .split(/[\s,]+/)
      .filter(Boolean)) {
      if (l.type) links.push({ type: l.type, key: other, column: l.column });
      else warnings.push(`${l.column} "${other}" left out: no relation here is that link type`);
    }
  }
  return links;
}

/** A GitHub person as `gh` writes one (`{login, name}`), or as the REST API does (`{login, email}`). */
interface GitHubPerson {
  login?: string;
  name?: string;
  email?: string | null;
}

/** The fields of a GitHub issue object the import reads (`gh issue list --json …` and the REST API's names). */
export const githubFields = new Set([
  'number',
  'title',
  'body',
  'state',
  'stateReason',
  'state_reason',
  'labels',
  'assignees',
  'assignee',
  'author',
  'user',
  'milestone',
  'comments',
  'createdAt',
  'created_at',
  'updatedAt',
  'updated_at',
  'closedAt',
  'closed_at',
  'url',
  'html_url',
]);

const githubPerson = (p: GitHubPerson | null | undefined): Person | undefined =>
  p && (p.email || p.login || p.name) ? { name: p.email ?? p.login ?? p.name, id: p.login } : undefined;

/**
 * One issue object of
 * `gh issue list --json number,title,body,author,labels,milestone,state,stateReason,assignees,comments,createdAt,updatedAt,closedAt,url`
 * (states `OPEN`/`CLOSED`, `stateReason` `COMPLETED`/`NOT_PLANNED`) or of the REST API
 * (`open`/`closed`, `state_reason`, `created_at`, `html_url`, `user`). Its key is `owner/repo#n`
 * from its URL (else `#n`); the milestone is the sprint; the first assignee the assignee, the
 * author its author; comments with their authors and times. Returns why it is not an issue object
 * otherwise.
 */
export function githubRecord(value: unknown, row: number): SourceRecord | { row: number; error: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { row, error: 'is not an issue object' };
  const o = value as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const warnings: string[] = [];
  const number = typeof o.number === 'number' && Number.isSafeInteger(o.number) && o.number > 0 ? o.number : undefined;
  const url = str(o.url) ?? str(o.html_url);
  const repo = url ? /^https?:\/\/[^/]+\/([^/]+\/[^/]+)\/(?:issues|pull)\/(\d+)$/.exec(url) : null;
  const key = repo ? `${repo[1]}#${repo[2]}` : number === undefined ? '' : `#${number}`;
  const reason = (str(o.stateReason) ?? str(o.state_reason))?.toLowerCase();
  const state = str(o.state) ?? '';
  const closed = state.toLowerCase() === 'closed';
  const assignees = (Array.isArray(o.assignees) ? o.assignees : o.assignee ? [o.assignee] : []) as GitHubPerson[];
  for (const other of assignees.slice(1)) {
    const who = githubPerson(other);
    if (who) warnings.push(`assignees "${who.name}" left out: one assignee here, the first is taken`);
  }
  const milestone = o.milestone as { title?: string; state?: string } | null | undefined;
  const labels = (Array.isArray(o.labels) ? o.labels : []).map((l) =>
    typeof l === 'string' ? l : String((l as { name?: unknown }).name ?? ''),
  );
  const comments = (Array.isArray(o.comments) ? o.comments : []).flatMap((c, i): SourceComment[] => {
    if (typeof c !== 'object' || c === null) return [];
    const comment = c as Record<string, unknown>;
    return [
      {
        key: `${key}#${str(comment.url) ?? str(comment.id) ?? i + 1}`,
        body: str(comment.body) ?? '',
        at: str(comment.createdAt) ?? str(comment.created_at),
        author: githubPerson((comment.author ?? comment.user) as GitHubPerson | undefined),
      },
    ];
  });
  // Uploads linked from the body or a comment: they stay there as written, and the report lists them.
  const attachments = [
    ...new Map(
      [str(o.body) ?? '', ...comments.map((c) => c.body)].flatMap(githubUploads).map((a) => [a.url, a] as const),
    ).values(),
  ];
  return {
    row,
    key,
    ...(url && url !== key ? { legacyKey: url } : {}),
    ...(number === undefined ? {} : { number }),
    title: str(o.title) ?? '',
    description: str(o.body) ?? null,
    // A closed issue is done, or cancelled when it was closed as not planned.
    status: closed && reason === 'not_planned' ? 'not_planned' : state,
    assignee: githubPerson(assignees[0]),
    reporter: githubPerson((o.author ?? o.user) as GitHubPerson | undefined),
    created_at: str(o.createdAt) ?? str(o.created_at),
    updated_at: str(o.updatedAt) ?? str(o.updated_at),
    resolved_at: closed ? (str(o.closedAt) ?? str(o.closed_at)) : undefined,
    labels,
    sprint: milestone?.title ? { name: milestone.title } : undefined,
    comments,
    attachments,
    attachmentsInText: true,
    columns: {
      status: 'state',
      assignee: 'assignees',
      reporter: 'author',
      resolved: 'created_at' in o && !('createdAt' in o) ? 'closed_at' : 'closedAt',
    },
    warnings,
  };
}

/**
 * Which keys keep their number (`keep_numbers`, and every export file): a number is kept when it
 * is reserved for the source already (`ranges`, an earlier run's), or above the project's
 * sequence (`sequence`, the last number handed out), and no earlier key of the file took it. The
 * others get the sequence's next. `reserveTo`: how far the sequence must move first, if at all.
 */
export function keptNumbers(
  wanted: Iterable<[key: string, number: number]>,
  sequence: number,
  ranges: readonly (readonly [number, number])[],
): { kept: Map<string, number>; reserveTo: number | undefined } {
  const kept = new Map<string, number>();
  const claimed = new Set<number>();
  let reserveTo: number | undefined;
  for (const [key, n] of wanted) {
    if (claimed.has(n)) continue;
    const reserved = ranges.some(([from, to]) => n >= from && n <= to);
    if (!reserved && n <= sequence) continue;
    kept.set(key, n);
    claimed.add(n);
    if (!reserved) reserveTo = Math.max(reserveTo ?? 0, n);
  }
  return { kept, reserveTo };
}

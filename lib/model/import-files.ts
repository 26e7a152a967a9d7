/**
 * How an import job's uploaded file and its report's maps are cut into parts (lib/db/imports/import-jobs.ts
 * stores them beside the job). Pure.
 */

/** A part's text, in UTF-8 bytes: items stay well inside DynamoDB's 400 KB. */
export const PART_BYTES = 300_000;

/** Cuts a text into parts of at most PART_BYTES of UTF-8, never inside a character. */
export function fileParts(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + PART_BYTES / 3);
    // Grow while it fits (most text is one byte a character), never splitting a surrogate pair.
    while (end < text.length && Buffer.byteLength(text.slice(start, Math.min(text.length, end + 10_000)), 'utf8') <= PART_BYTES) {
      end = Math.min(text.length, end + 10_000);
    }
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}

/** The maps of a report that grow with the file (every key, every id): stored in parts beside the job. */
const mapNames = ['keys', 'issues', 'ids'] as const;

export type Report = Record<string, unknown>;

/** A report without its maps (the job item keeps it), and the maps (in parts). */
export function splitReport(report: Report): { slim: Report; maps: Report } {
  const take = (r: Report) => {
    const slim: Report = { ...r };
    const maps: Report = {};
    for (const name of mapNames) {
      if (name in slim) {
        maps[name] = slim[name];
        delete slim[name];
      }
    }
    return { slim, maps };
  };
  const top = take(report);
  // An export file's report: each project's report has its maps too.
  if (top.slim.projects && typeof top.slim.projects === 'object') {
    const projects: Report = {};
    const projectMaps: Report = {};
    for (const [prefix, p] of Object.entries(top.slim.projects as Record<string, Report>)) {
      const { slim, maps } = take(p);
      projects[prefix] = slim;
      projectMaps[prefix] = maps;
    }
    top.slim.projects = projects;
    top.maps.projects = projectMaps;
  }
  return top;
}

/** The report with its maps back (`splitReport` undone). */
export function joinReport(slim: Report, maps: Report): Report {
  const { projects: projectMaps, ...own } = maps;
  const joined: Report = { ...slim, ...own };
  if (projectMaps && slim.projects) {
    joined.projects = Object.fromEntries(
      Object.entries(slim.projects as Record<string, Report>).map(([prefix, p]) => [
        prefix,
        { ...p, ...((projectMaps as Record<string, Report>)[prefix] ?? {}) },
      ]),
    );
  }
  return joined;
}

/**
 * What the service takes as the ids in its paths (and MCP's arguments): anything else names
 * nothing (404). Pure patterns, no dependency, so that every handler may check them; the OpenAPI
 * document states them (lib/schemas/path-params.ts).
 */

/** A positive integer id of at most 16 digits (and at most 2^53 - 1). */
export const pathIdPattern = /^[1-9]\d{0,15}$/;

/** An issue key as people read it: a project prefix and a number ("APL-7"), in any case. */
export const issueKeyPattern = /^[A-Za-z0-9]{2,4}-[1-9]\d{0,15}$/;

/** A relation id as a path carries it: the two issue ids and the kind (`12-blocks-7`). */
export const relationIdPattern = /^[1-9]\d{0,15}-(blocks|relates_to|duplicates)-[1-9]\d{0,15}$/;

/** An import job's id: a UUID as the service writes it (lower-case). */
export const jobIdPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A webhook delivery's id, the `webhook-id` header of its attempts: `msg_` and up to 64 URL-safe characters. */
/** A trash item's id: the kind of item and its own id (`webhook-12`). */
export const trashIdPattern = /^[a-z]{1,16}-[1-9]\d{0,15}$/;
export const deliveryIdPattern = /^msg_[\w-]{1,64}$/;

/**
 * An activity entry's id as the API shows it: where the entry lives, then its sequence
 * (`<project>-<issue>-<sequence>`, `<project>-s<sprint>-<sequence>` for a sprint's own entry), so that
 * an id alone finds its entry in the caller's organisation with one read. The sequence is the
 * stream record's (digits); an import's entries carry `-` or `.` before theirs (below any digit, so
 * ids still sort in time order within an issue).
 */
export const activityIdPattern = /^([1-9]\d{0,15})-(s?)([1-9]\d{0,15})-([-.]?\d{1,40})$/;

/** Where an activity entry lives and its stored sequence, from its id; undefined for anything else. */
export function activityIdParts(
  id: string,
): { projectId: number; owner: { issueId: number } | { sprintId: number }; sequence: string } | undefined {
  const m = activityIdPattern.exec(id);
  if (!m) return undefined;
  const [projectId, ownerId] = [Number(m[1]), Number(m[3])];
  if (!Number.isSafeInteger(projectId) || !Number.isSafeInteger(ownerId)) return undefined;
  const sequence = m[4]!.replace(/^-/, '#').replace(/^\./, '$');
  return { projectId, owner: m[2] === 's' ? { sprintId: ownerId } : { issueId: ownerId }, sequence };
}

/** The id the API shows for an entry stored under `owner` of project `projectId` with `sequence`. */
export function activityIdOf(projectId: number, owner: { issueId: number } | { sprintId: number }, sequence: string): string {
  const where = 'issueId' in owner ? String(owner.issueId) : `s${owner.sprintId}`;
  return `${projectId}-${where}-${sequence.replace(/^#/, '-').replace(/^\$/, '.')}`;
}

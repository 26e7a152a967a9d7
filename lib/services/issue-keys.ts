import { issueOfNumber } from '../db/issues/issue-lookup.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { readIssueItem } from '../db/issues/issue-refs.ts';
import type { IssueLocation } from '../schemas/issues.ts';
import { IssueElsewhereError, NotFoundError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';

/**
 * An issue named by its key ("APL-12", any case) rather than by the path of its list: the routes
 * by key (`/api/v1/issues/{issue_key}`...) and the MCP tools run the nested paths' own functions on
 * the list the key's pointer says the issue is in (docs/api.md: Issues by key).
 */

/** What a key looks like: the project's prefix and the issue's number. */
const issueKey = /^[A-Za-z0-9]{2,4}-[1-9]\d{0,15}$/;

/** Where an issue lives: its project and list, and its id. */
export interface IssuePlace {
  at: IssueLocation;
  issueId: number;
  /** By key: the issue's list key as its pointer last saw it, a hint (`getIssue` counts its place beside its read). */
  position?: number | undefined;
}

/** An issue as a route names it: by the ids of its nested path, or by its key. */
export type IssueTarget = IssuePlace | { key: string };

/** The 404 of a key that names no issue of the caller's organisation. */
const unknownKey = (key: string) => new NotFoundError(`Issue ${key.toUpperCase()}`);

/**
 * The project, list and id an issue key names now, with the issue's list key as a hint: its
 * pointer (one consistent GetItem), which keeps them. A pointer written before it kept the list
 * costs a read of the issue.
 */
export async function placeOfKey(caller: Principal, key: string): Promise<IssuePlace> {
  if (!issueKey.test(key)) throw unknownKey(key);
  const pointer = await issueOfNumber(caller.orgId, key.toUpperCase());
  if (!pointer) throw unknownKey(key);
  let { sprintId, position } = pointer;
  if (sprintId === undefined) {
    const issue = await readIssueItem(caller.orgId, pointer.projectId, pointer.issueId);
    if (!issue) throw unknownKey(key);
    sprintId = issueItem.field(issue, 'sprintId');
    position = issueItem.field(issue, 'position');
  }
  return { at: { projectId: pointer.projectId, sprintId }, issueId: pointer.issueId, position };
}

/** Moves between a key's pointer read and the issue's own read that a route by key follows. */
const FOLLOWED_MOVES = 3;

/**
 * Runs `act` (a nested path's function) on the issue a target names. By key: on the list its
 * pointer says (with its hint of the issue's list key), and again on the list the issue's own read
 * says when it moved in between; any 404 then names the key (the path names no project or sprint).
 */
export async function onIssue<T>(caller: Principal, target: IssueTarget, act: (place: IssuePlace) => Promise<T>): Promise<T> {
  if (!('key' in target)) return act(target);
  let place = await placeOfKey(caller, target.key);
  for (let moves = 0; ; moves++) {
    try {
      return await act(place);
    } catch (err) {
      if (err instanceof IssueElsewhereError && moves < FOLLOWED_MOVES) {
        place = { at: { projectId: place.at.projectId, sprintId: err.sprintId }, issueId: place.issueId };
        continue;
      }
      throw err instanceof NotFoundError ? unknownKey(target.key) : err;
    }
  }
}

/**
 * The 404 of a nested path whose issue is not in the path's list (`otherwise`, the plain one, when
 * it is missing or in that list): an issue read that lives in another list of the project says where
 * (its key and the key's URL). Another organisation's issue is never read (every key starts with the
 * caller's organisation), so it is never hinted at.
 */
export function issueNotHere(
  found: object | undefined,
  pathSprint: number | null,
  otherwise: NotFoundError = new NotFoundError('Issue'),
): NotFoundError {
  const sprintId = found && issueItem.field(found, 'sprintId');
  if (!found || sprintId === undefined || sprintId === pathSprint) return otherwise;
  return new IssueElsewhereError(issueItem.field(found, 'number'), sprintId);
}

import * as z from 'zod';
import { ValidationError } from '../vocabulary/errors.ts';
import { findIssueInProject } from '../services/issue-lookup.ts';
import { onIssue, placeOfKey } from '../services/issue-keys.ts';
import type { IssueLocation } from '../schemas/issues.ts';
import type { Principal } from '../model/principal.ts';
import type { Issue } from '../schemas/issues.ts';
import { id } from './tool.ts';

/**
 * How a tool names an issue: by its number ("APL-12"), or by project and id (the server's
 * instructions say so once, lib/mcp/server.ts, rather than every issue tool's schema). Every issue a tool
 * returns carries `project_id`, `sprint_id` and `id`, and passing all three costs no lookup.
 */
export const issueRef = {
  issue_number: z
    .string()
    // A refinement, not `regex`: a pattern in every issue tool's schema costs the tool list 400 bytes.
    .refine((s) => /^[A-Z0-9]{2,4}-[1-9]\d{0,15}$/.test(s), { error: 'must look like APL-12' })
    .optional(),
  project_id: id().optional(),
  issue_id: id().optional(),
  sprint_id: id().nullable().optional(),
};
/** The arguments of `issueRef` the instructions describe once, rather than every issue tool's schema. */
export const issueRefUnlisted = ['project_id', 'issue_id', 'sprint_id'] as const;
export type IssueRefArgs = z.output<z.ZodObject<typeof issueRef>>;

export interface LocatedIssue {
  at: IssueLocation;
  issueId: number;
  /** By number: the issue's list key as its pointer last saw it (a hint, lib/services/issue-keys.ts). */
  position?: number | undefined;
  /** The issue as read while locating it, if it had to be looked up. */
  found?: Issue;
}

/**
 * Resolves an issue reference to the list it lives in. A full reference costs nothing; a number
 * costs its pointer's read (lib/services/issue-keys.ts), a bare id the issue's (lib/services/issue-lookup.ts).
 */
export async function locateIssue(caller: Principal, ref: IssueRefArgs): Promise<LocatedIssue> {
  let found: Issue;
  if (ref.issue_number !== undefined) {
    return placeOfKey(caller, ref.issue_number);
  } else if (ref.project_id === undefined || ref.issue_id === undefined) {
    throw new ValidationError(['issue_number, or project_id and issue_id, are required']);
  } else if (ref.sprint_id !== undefined) {
    return { at: { projectId: ref.project_id, sprintId: ref.sprint_id }, issueId: ref.issue_id };
  } else {
    found = await findIssueInProject(caller, ref.project_id, ref.issue_id);
  }
  return { at: { projectId: found.project_id, sprintId: found.sprint_id }, issueId: found.id, found };
}

/**
 * Runs `act` on the issue a reference names. By number, as the routes by key run it
 * (lib/services/issue-keys.ts: `onIssue`): it follows an issue that moved meanwhile, and any 404
 * names the number ("Issue APL-12 not found"), never a sprint or project the caller did not name.
 */
export async function onIssueRef<T>(
  caller: Principal,
  ref: IssueRefArgs,
  act: (located: LocatedIssue) => Promise<T>,
): Promise<T> {
  if (ref.issue_number !== undefined) return onIssue(caller, { key: ref.issue_number }, act);
  return act(await locateIssue(caller, ref));
}

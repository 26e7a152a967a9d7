import * as z from 'zod';
import { issueOfNumber } from '../db/issues/issue-lookup.ts';
import { accountNames, projectIdOfPrefix, projectNames, sprintNames } from '../db/projects/names.ts';
import { ambiguous, isActive, isMe, pickByName } from '../model/names.ts';
import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';

/**
 * Names where a person would use them (docs/mcp.md: Names and "me"). Every tool argument below
 * takes an id or a name, and `defineTool` (lib/mcp/tool.ts) turns names into ids before the tool
 * runs, so a tool body only ever sees ids:
 *
 * - `project_id`: an id, a prefix ("APL", any case) or a project name;
 * - `assignee_id`: an id, "me" (the caller), an account name or e-mail;
 * - `sprint_id`, `to_sprint_id`, `carry_over_sprint_id`: an id, "active" (the project's active
 *   sprint) or a sprint name, in the project of `project_id` or, failing it, of `issue_number`.
 *
 * Matching rules: lib/model/names.ts (an ambiguous name is an error listing the candidates; an
 * unknown one, not found). Labels are taken by name by the issue tools themselves (lib/services/labels.ts).
 *
 * Cost: nothing for ids and "me"; otherwise one round of calls more, two for a sprint named in a
 * project that is named too: a prefix is one GetItem (its guard), a project or account name one
 * Query of the organisation's projects or accounts, a sprint one Query of the project's sprints,
 * the project of an issue number one GetItem (its pointer). Each is made once per resolver.
 */
const NAME = z.string().trim().min(1).max(4096);
const id = () => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** An argument that takes a project id or a project's prefix or name. */
export const projectRef = () => z.union([id(), NAME]);
/** An argument that takes an account id, "me", or an account's name or e-mail. */
export const accountRef = () => z.union([id(), NAME]);
/** An argument that takes a sprint id, "active", or a sprint's name (in the project of the call). */
export const sprintRef = () => z.union([id(), NAME]);

const PROJECT_FIELDS = ['project_id'] as const;
const ACCOUNT_FIELDS = ['assignee_id'] as const;
const SPRINT_FIELDS = ['sprint_id', 'to_sprint_id', 'carry_over_sprint_id'] as const;
type NameField = (typeof PROJECT_FIELDS)[number] | (typeof ACCOUNT_FIELDS)[number] | (typeof SPRINT_FIELDS)[number];

/** Arguments with every name turned into its id. */
export type Resolved<T> = { [K in keyof T]: K extends NameField ? Exclude<T[K], string> : T[K] };

/** Turns the names among one tool call's (or one batch item's) arguments into ids. */
export type NameResolver = <T extends object>(args: T) => Promise<Resolved<T>>;

const projectKind = { one: 'Project', many: 'projects' };
const accountKind = { one: 'Account', many: 'accounts' };
const sprintKind = { one: 'Sprint', many: 'sprints' };

/**
 * A resolver for the calls of one request on behalf of `caller`: each lookup is made once and its
 * answer reused, so that a batch of items naming the same project, account or sprint pays once.
 * Errors are thrown as domain errors (422 ambiguous, 404 unknown): the tool error of the call, or
 * of its item in a batch.
 */
export function nameResolver(caller: Principal): NameResolver {
  const lookups = new Lookups(caller);
  return async <T extends object>(input: T): Promise<Resolved<T>> => {
    const args = { ...input } as Record<string, unknown>;
    const named = (fields: readonly string[]) => fields.filter((f) => typeof args[f] === 'string');
    const projects = named(PROJECT_FIELDS);
    const accounts = named(ACCOUNT_FIELDS);
    const sprints = named(SPRINT_FIELDS);
    if (projects.length + accounts.length + sprints.length === 0) return args as Resolved<T>;
    // Projects and accounts in one round; sprints, which need the project, after.
    await Promise.all([
      ...projects.map(async (f) => (args[f] = await lookups.project(f, args[f] as string))),
      ...accounts.map(async (f) => (args[f] = await lookups.account(f, args[f] as string))),
    ]);
    await Promise.all(
      sprints.map(async (f) => (args[f] = await lookups.sprint(f, args[f] as string, await lookups.projectOfCall(args, f)))),
    );
    return args as Resolved<T>;
  };
}

/** The lookups of one resolver: each made once, its answer reused. */
class Lookups {
  private readonly caller: Principal;
  private readonly once = new Map<string, Promise<unknown>>();

  constructor(caller: Principal) {
    this.caller = caller;
  }

  private memo<T>(key: string, load: () => Promise<T>): Promise<T> {
    let hit = this.once.get(key) as Promise<T> | undefined;
    if (!hit) {
      hit = load();
      this.once.set(key, hit);
    }
    return hit;
  }

  /** A project by its prefix (APL), name or alias. */
  project(field: string, text: string): Promise<number> {
    return this.memo(`p:${text.toLowerCase()}`, async () => {
      if (/^[A-Za-z0-9]{2,4}$/.test(text)) {
        const byPrefix = await projectIdOfPrefix(this.caller.orgId, text.toUpperCase());
        if (byPrefix !== undefined) return byPrefix;
      }
      const all = await this.memo('projects', () => projectNames(this.caller.orgId));
      return pickByName(
        projectKind,
        field,
        text,
        all.map((p) => ({ ...p, aliases: [p.prefix] })),
      ).id;
    });
  }

  /** An account by its name or email, or the caller (`me`). */
  async account(field: string, text: string): Promise<number> {
    if (isMe(text)) return this.caller.accountId;
    const all = await this.memo('accounts', () => accountNames(this.caller.orgId));
    return pickByName(
      accountKind,
      field,
      text,
      all.map((a) => ({ ...a, aliases: [a.email] })),
    ).id;
  }

  /** A sprint of a project by its name, or the project's one active sprint (`active`). */
  async sprint(field: string, text: string, projectId: number): Promise<number> {
    const all = await this.memo(`s:${projectId}`, () => sprintNames(this.caller.orgId, projectId));
    if (!isActive(text)) return pickByName(sprintKind, field, text, all).id;
    const active = all.filter((s) => s.status === 'active');
    if (active.length === 1) return (active[0] as { id: number }).id;
    if (active.length === 0) throw new NotFoundError(`Sprint "${text}"`, 'the project has no active sprint');
    throw ambiguous({ many: 'active sprints' }, field, text, active);
  }

  /** The project a sprint name is looked for in: the call's project, or its issue's. */
  async projectOfCall(args: Record<string, unknown>, field: string): Promise<number> {
    if (typeof args.project_id === 'number') return args.project_id;
    if (typeof args.issue_number === 'string') {
      const number = args.issue_number.toUpperCase();
      const pointer = await this.memo(`i:${number}`, () => issueOfNumber(this.caller.orgId, number));
      if (!pointer) throw new NotFoundError(`Issue ${number}`);
      return pointer.projectId;
    }
    throw new ValidationError([`${field} names a sprint: project_id (or issue_number) is required with it`]);
  }
}

/** Resolves the names of one set of arguments (a resolver used once). */
export const resolveNames = <T extends object>(caller: Principal, args: T): Promise<Resolved<T>> => nameResolver(caller)(args);

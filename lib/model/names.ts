import { NotFoundError, ValidationError } from '../vocabulary/errors.ts';

/**
 * How a name a person would use picks one thing (docs/mcp.md: Names and "me"): an account by name
 * or e-mail, a project by prefix or name, a sprint by name. Pure; the lookups are lib/db/projects/names.ts,
 * applied to MCP tool arguments by lib/mcp/resolve.ts.
 *
 * 1. Equal, in any case (NFKC, trimmed), to a candidate's name or one of its aliases: that one.
 * 2. Otherwise, the candidates one of whose words starts with it ("ada" for "Ada Lovelace",
 *    "mob" for "Mobile app"), or whose whole name does.
 * Exactly one: that one. Several at the same step: an error listing them (the first 10), to be
 * told apart by id. None: not found, naming what was looked for.
 */
export interface Candidate {
  id: number;
  name: string;
  /** Other spellings that name it exactly (an e-mail, a prefix). */
  aliases?: string[];
}

const fold = (text: string) => text.normalize('NFKC').trim().toLowerCase();
const SHOWN = 10;

export function pickByName<C extends Candidate>(
  kind: { one: string; many: string },
  field: string,
  text: string,
  candidates: readonly C[],
): C {
  const wanted = fold(text);
  const exact = candidates.filter((c) => fold(c.name) === wanted || (c.aliases ?? []).some((a) => fold(a) === wanted));
  const found =
    exact.length > 0
      ? exact
      : candidates.filter((c) => {
          const name = fold(c.name);
          return name.startsWith(wanted) || name.split(/[\s\-_./]+/).some((word) => word.startsWith(wanted));
        });
  if (found.length === 1) return found[0] as C;
  if (found.length === 0) throw new NotFoundError(`${kind.one} "${text}"`);
  throw ambiguous(kind, field, text, found);
}

/** An error listing the candidates a name leaves open, by name and id. */
export function ambiguous(kind: { many: string }, field: string, text: string, found: readonly Candidate[]): ValidationError {
  const listed = found
    .slice(0, SHOWN)
    .map((c) => `${c.name} (id ${c.id})`)
    .join(', ');
  const more = found.length > SHOWN ? `, and ${found.length - SHOWN} more` : '';
  return new ValidationError([`${field} "${text}" matches ${found.length} ${kind.many}: ${listed}${more}; pass the id`]);
}

/** The word that names the caller's own account wherever an account is asked for. */
export const isMe = (text: string) => fold(text) === 'me';

/** The word that names a project's active sprint wherever a sprint is asked for. */
export const isActive = (text: string) => fold(text) === 'active';

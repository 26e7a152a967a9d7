/**
 * How deeply a JSON value may nest objects and arrays (docs/limits.md#request-bodies). Validators
 * of recursive forms (a selection's groups) recurse once per level, so a deeper value is refused
 * before any of them sees it: 32 holds every valid selection (at most 5 levels of groups, about 20
 * levels of JSON) and any other body, with room to spare.
 */
export const MAX_NESTING = 32;

/** The 422 message for a value nested deeper than `MAX_NESTING`, `what` naming it (`body`, `selection`). */
export const nestingMessage = (what: string) =>
  `${what} nests objects and arrays more than ${MAX_NESTING} deep (at most ${MAX_NESTING} levels)`;

/**
 * Whether a JSON text opens more than `limit` objects and arrays inside one another: one pass over
 * its characters, brackets inside strings left out. It reads malformed JSON too (the parser
 * refuses that afterwards), so it never throws and never recurses.
 */
export function textNestsDeeper(text: string, limit = MAX_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Whether a parsed value nests objects and arrays more than `limit` deep; walks with its own stack, never recursing. */
export function valueNestsDeeper(value: unknown, limit = MAX_NESTING): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, depth] = next;
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return true;
    for (const inner of Object.values(v)) pending.push([inner, depth + 1]);
  }
  return false;
}

/**
 * Who a markdown text (an issue's description, a comment) mentions: each `@handle` outside code.
 * Code is a fenced block, an indented block or an inline code span, read as CommonMark reads them
 * in the simple cases. The reading is linear in the text's length whatever the text: it goes over
 * the lines once, and pairs the backticks of code spans through the next run of the same length,
 * found in one pass, rather than by searching ahead from each run. A handle is lib/model/handles.ts's.
 */
import { maxHandleLength } from './handles.ts';

/** The most handles one text mentions; the ones after these are not notified. */
export const maxMentions = 50;

const AT = 0x40;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;

const isAsciiAlnum = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
const isHandleChar = (c: number) => isAsciiAlnum(c) || c === 0x2d || c === 0x2e || c === 0x5f;
const isSpace = (c: number) => c === SPACE || c === TAB || c === CR;

/** A letter, digit or mark of any script: part of a word that a mention cannot start or end inside. */
const wordChar = /^[\p{L}\p{N}\p{M}]$/u;
const isWordChar = (cp: number) => (cp < 0x80 ? isAsciiAlnum(cp) : wordChar.test(String.fromCodePoint(cp)));

/** After these an `@` belongs to something else: an e-mail address, a path, another `@`, code. */
const joinsAt = new Set([...'_.-@/`'].map((c) => c.charCodeAt(0)));

/** Whether the character before the `@` at `at` makes it part of a word rather than a mention. */
function joinsPrevious(text: string, at: number): boolean {
  if (at === 0) return false;
  const before = text.charCodeAt(at - 1);
  if (joinsAt.has(before)) return true;
  const isLowSurrogate = before >= 0xdc00 && before <= 0xdfff;
  return isWordChar(isLowSurrogate && at >= 2 ? (text.codePointAt(at - 2) ?? before) : before);
}

/**
 * Adds the handle the `@` at `at` mentions, if it mentions one, to `found`, and returns where its
 * word ends: the characters up to there hold no `@` and no backtick.
 */
function readMention(text: string, at: number, to: number, found: Set<string>): number {
  let end = at + 1;
  while (end < to && isHandleChar(text.charCodeAt(end))) end++;
  // Trailing `.`, `-` and `_` are the sentence's punctuation, not the handle's.
  let last = end;
  while (last > at + 1 && !isAsciiAlnum(text.charCodeAt(last - 1))) last--;
  const length = last - at - 1;
  if (length === 0 || length > maxHandleLength || !isAsciiAlnum(text.charCodeAt(at + 1))) return end;
  if (last < text.length && isWordChar(text.codePointAt(last) ?? 0)) return end;
  if (joinsPrevious(text, at)) return end;
  found.add(text.slice(at + 1, last).toLowerCase());
  return end;
}

/** Adds the handles mentioned in text[from, to), which holds no code, until `found` holds `limit`. */
function mentionsBetween(text: string, from: number, to: number, found: Set<string>, limit: number): void {
  for (let i = from; i < to && found.size < limit;) {
    i = text.charCodeAt(i) === AT ? readMention(text, i, to, found) : i + 1;
  }
}

/** A run of backticks, and the index of the next run of the same length (-1 if none). */
interface Run {
  start: number;
  end: number;
  next: number;
}

/** The backtick runs of text[from, to), each linked to the next one of its length. */
function backtickRuns(text: string, from: number, to: number): Run[] {
  const runs: Run[] = [];
  const lastOfLength = new Map<number, Run>();
  for (let i = from; i < to;) {
    if (text.charCodeAt(i) !== BACKTICK) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < to && text.charCodeAt(end) === BACKTICK) end++;
    const run = { start: i, end, next: -1 };
    const previous = lastOfLength.get(end - i);
    if (previous) previous.next = runs.length;
    lastOfLength.set(end - i, run);
    runs.push(run);
    i = end;
  }
  return runs;
}

/**
 * Adds the handles mentioned in a stretch of prose, outside its code spans. A run of backticks
 * opens a span closed by the next run of the same length; a run with none after it is text.
 */
function mentionsInProse(text: string, from: number, to: number, found: Set<string>, limit: number): void {
  const runs = backtickRuns(text, from, to);
  let position = from;
  for (let k = 0; found.size < limit;) {
    const opener = runs[k];
    mentionsBetween(text, position, opener?.start ?? to, found, limit);
    if (!opener) return;
    const closer = runs[opener.next];
    position = (closer ?? opener).end;
    k = closer ? opener.next + 1 : k + 1;
  }
}

/** The fence of a fenced code block: its character and length. */
interface Fence {
  char: number;
  length: number;
}

/** The columns a line is indented by (counted up to 4, a tab to the next multiple of 4) and where that ends. */
function indentOf(text: string, from: number, to: number): { columns: number; content: number } {
  let columns = 0;
  let i = from;
  for (; i < to && columns < 4; i++) {
    const c = text.charCodeAt(i);
    if (c === SPACE) columns++;
    else if (c === TAB) columns += 4 - (columns % 4);
    else break;
  }
  return { columns, content: i };
}

/** The length of the run of `char` at `from`, within `to`. */
function runLength(text: string, from: number, to: number, char: number): number {
  let end = from;
  while (end < to && text.charCodeAt(end) === char) end++;
  return end - from;
}

/** Whether text[from, to) is only spaces and tabs. */
function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (!isSpace(text.charCodeAt(i))) return false;
  return true;
}

/** The fence a line opens, if it opens one: 3 or more ``` ` ``` or `~`, and no backtick after a backtick fence. */
function fenceOpened(text: string, content: number, to: number): Fence | undefined {
  const char = text.charCodeAt(content);
  if (char !== BACKTICK && char !== TILDE) return undefined;
  const length = runLength(text, content, to, char);
  if (length < 3) return undefined;
  if (char === BACKTICK) {
    for (let i = content + length; i < to; i++) if (text.charCodeAt(i) === BACKTICK) return undefined;
  }
  return { char, length };
}

/** Whether a line closes a fence: the same character, at least as many, and nothing after but spaces. */
function closesFence(text: string, from: number, to: number, fence: Fence): boolean {
  const { columns, content } = indentOf(text, from, to);
  if (columns >= 4) return false;
  const length = runLength(text, content, to, fence.char);
  return length >= fence.length && isBlank(text, content + length, to);
}

/**
 * The stretches of prose of a text, [from, to): its runs of lines that are neither blank nor code.
 * A line indented 4 columns is code unless it continues a paragraph; a fence opens a block that
 * runs to its closing fence, or to the end of the text.
 */
function* proseStretches(text: string): Generator<[number, number]> {
  let fence: Fence | undefined;
  let stretch: [number, number] | undefined;
  for (let from = 0; from <= text.length;) {
    const newline = text.indexOf('\n', from);
    const to = newline < 0 ? text.length : newline;
    const line = { from, to };
    from = to + 1;
    if (fence) {
      if (closesFence(text, line.from, line.to, fence)) fence = undefined;
      continue;
    }
    const { columns, content } = indentOf(text, line.from, line.to);
    const opened = columns < 4 ? fenceOpened(text, content, line.to) : undefined;
    const isCode = columns >= 4 && !stretch;
    if (!opened && !isCode && !isBlank(text, content, line.to)) {
      stretch = [stretch?.[0] ?? line.from, line.to];
      continue;
    }
    if (stretch) yield stretch;
    stretch = undefined;
    fence = opened;
  }
  if (stretch) yield stretch;
}

/** The distinct handles a text mentions, in order of first mention, up to `limit`. */
function handlesIn(text: string, limit: number): Set<string> {
  const found = new Set<string>();
  if (!text.includes('@')) return found;
  for (const [from, to] of proseStretches(text)) {
    mentionsInProse(text, from, to, found, limit);
    if (found.size >= limit) break;
  }
  return found;
}

/**
 * The handles a markdown text mentions, lower-cased, each once, in order of first mention, at most
 * `maxMentions`. An `@` mentions where it starts the text or follows a character that is not a
 * letter, digit, `_`, `.`, `-`, `@`, `/` or backtick, and not inside code.
 */
export function mentionedHandles(text: string | null | undefined): string[] {
  return [...handlesIn(text ?? '', maxMentions)];
}

/**
 * The handles an edited text mentions that it did not mention before, so an edit notifies only
 * them. What the text mentioned before counts in full, even past `maxMentions`.
 */
export function newMentions(before: string | null | undefined, after: string | null | undefined): string[] {
  const known = handlesIn(before ?? '', Infinity);
  return mentionedHandles(after).filter((handle) => !known.has(handle));
}

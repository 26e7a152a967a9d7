import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isHandle } from '../../lib/model/handles.ts';
import { maxMentions, mentionedHandles, newMentions } from '../../lib/model/mentions.ts';

/**
 * The mention parser over generated markdown (words, handles, backticks, fences, indents, newlines):
 * (a) what it finds is mentioned in the text, valid, distinct and at most 50; an edit's new
 *     mentions are mentions of the text after and none of the text before;
 * (b) a text without `@` mentions no one, and neither does any text inside a fenced block;
 * (c) in a text without code it agrees with a reference written here as one regular expression;
 * (d) its time grows linearly on hostile texts: 4 times the text takes well under 12 times as long.
 */

const handle = fc
  .tuple(fc.constantFrom('a', 'Ana', 'bob', 'X9', 'c.d', 'e-f', 'g_h', 'ANA'), fc.constantFrom('', '.', '-', '_', '..', 'é'))
  .map(([name, tail]) => name + tail);

const token = fc.oneof(
  fc.constantFrom('word', 'fix it', 'ana@example.com', 'path/x', '名', 'é', '(', ')', ',', '.', '-', '_', '/', '*'),
  handle.map((h) => `@${h}`),
  handle,
  fc.constantFrom('@', '@@', ' ', ' ', '    ', '\t', '\n', '\n', '\n\n'),
  fc.constantFrom('`', '``', '```', '````', '~~~', '~~~~', '```js', '\n```\n', '\n~~~\n'),
);

const markdown = fc.array(token, { maxLength: 60 }).map((tokens) => tokens.join(''));

/** The longest run of `char` in a text. */
const longestRun = (text: string, char: string) =>
  Math.max(0, ...[...text.matchAll(new RegExp(`${char}+`, 'g'))].map((m) => m[0].length));

describe('mentions of generated markdown', () => {
  it('are handles the text mentions, each once, at most 50', () => {
    fc.assert(
      fc.property(markdown, markdown, (before, after) => {
        const found = mentionedHandles(after);
        const lower = after.toLowerCase();
        expect(found.every((h) => isHandle(h) && lower.includes(`@${h}`))).toBe(true);
        expect(new Set(found).size).toBe(found.length);
        expect(found.length).toBeLessThanOrEqual(maxMentions);
        const added = newMentions(before, after);
        // The generated texts hold fewer than 50 distinct handles: the cap does not cut what `before` mentions.
        const known = new Set(mentionedHandles(before));
        expect(added.every((h) => found.includes(h) && !known.has(h))).toBe(true);
        expect(newMentions(after, after)).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it('are none in a text without @, or inside a fenced block', () => {
    fc.assert(
      fc.property(markdown, (text) => {
        expect(mentionedHandles(text.replaceAll('@', ' '))).toEqual([]);
        const backticks = '`'.repeat(Math.max(3, longestRun(text, '`') + 1));
        const tildes = '~'.repeat(Math.max(3, longestRun(text, '~') + 1));
        expect(mentionedHandles(`${backticks}\n${text}\n${backticks}`)).toEqual([]);
        expect(mentionedHandles(`${tildes} info\n${text}`)).toEqual([]);
      }),
      { numRuns: 1500 },
    );
  });

  it('agree with a reference regular expression in a text without code', () => {
    // The rule in one expression: an @ not after a word, path or address character, the handle's
    // characters, its trailing punctuation dropped, not followed by a letter of any script.
    const mention = /(?<![\p{L}\p{N}\p{M}_.\-@/`])@([a-z0-9._-]+)/giu;
    const reference = (text: string) => {
      const found = new Set<string>();
      for (const m of text.matchAll(mention)) {
        const name = (m[1] ?? '').replace(/[._-]+$/, '');
        const next = text.slice(m.index + 1 + name.length);
        if (isHandle(name.toLowerCase()) && !/^[\p{L}\p{N}\p{M}]/u.test(next)) found.add(name.toLowerCase());
      }
      return [...found].slice(0, maxMentions);
    };
    const prose = markdown.map((text) => text.replace(/[`~\t]/g, '').replace(/^ +/gm, ''));
    fc.assert(
      fc.property(prose, (text) => {
        expect(mentionedHandles(text)).toEqual(reference(text));
      }),
      { numRuns: 1500 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Linear time

/** The size of the smaller hostile text, and how much longer 4 times that may take at most. */
const N = 50_000;
const BOUND = 12;

/** The process's CPU time (ms) for `calls` readings of a text: waiting for a busy core does not count. */
function cpuMs(text: string, calls: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) mentionedHandles(text);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * How much longer a text 4 times as long takes: the best of 9 rounds for each size, interleaved so
 * that a busy spell slows both, tried up to 3 times so that one bad spell does not decide.
 */
function growth(unit: string, n: number): { ratio: number; small: number; large: number } {
  const small = unit.repeat(Math.ceil(n / unit.length)).slice(0, n) + '\n\n@tail';
  const large = unit.repeat(Math.ceil((4 * n) / unit.length)).slice(0, 4 * n) + '\n\n@tail';
  let best = { ratio: Infinity, small: 0, large: 0 };
  for (let attempt = 0; attempt < 3 && best.ratio >= BOUND; attempt++) {
    cpuMs(small, 2);
    cpuMs(large, 2);
    let [s, l] = [Infinity, Infinity];
    for (let round = 0; round < 9; round++) {
      s = Math.min(s, cpuMs(small, 3));
      l = Math.min(l, cpuMs(large, 3));
    }
    // A floor under the small text's time, so that a reading too quick for the clock cannot fail it.
    const ratio = l / Math.max(s, 0.5);
    if (ratio < best.ratio) best = { ratio, small: s, large: l };
  }
  return best;
}

/** Runs of 1, 2, ... k backticks: each length's last run has no closer. */
const ladder = (k: number) => Array.from({ length: k }, (_, i) => '`'.repeat(i + 1)).join(' ') + ' ';

describe('reading a hostile text takes linear time', () => {
  it.each([
    ['one run of backticks', 'x ' + '`'.repeat(N)],
    ['single backticks', '` '],
    ['single backticks, no spaces between mentions', '`@a '],
    ['runs of 1 to 50 backticks', ladder(50)],
    ['runs of 1 to 300 backticks, each length unmatched once', ladder(300)],
    ['@ signs', '@'],
    ['@a', '@a'],
    ['@a and a space', '@a '],
    ['a long handle', '@' + 'a'.repeat(N)],
    ['fence lines', '```\n'],
    ['fence lines of growing length', '```\n````\n`````\n'],
    ['tilde fences with backticks after', '~~~ `\n``` `\n'],
    ['indented lines', '    @a\n'],
    ['blank lines and indents', '\n    \n\t@a`\n'],
  ])('%s', (_, unit) => {
    const { ratio, small, large } = growth(unit, N);
    expect(ratio, `${small.toFixed(2)} ms for ${N} characters, ${large.toFixed(2)} ms for ${4 * N}`).toBeLessThan(BOUND);
  });

  it('generated repeats of markdown characters', () => {
    const unit = fc
      .array(fc.constantFrom('`', '``', '@', 'a', '.', '-', '\n', ' ', '    ', '~~~', '```', '\t', '/', 'é'), {
        minLength: 1,
        maxLength: 8,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(unit, (u) => {
        const { ratio, small, large } = growth(u, N);
        expect(ratio, `${JSON.stringify(u)}: ${small.toFixed(2)} ms, then ${large.toFixed(2)} ms`).toBeLessThan(BOUND);
      }),
      { numRuns: 12 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { maxMentions, mentionedHandles, newMentions } from '../../lib/model/mentions.ts';

describe('mentions in a text', () => {
  it('are the handles after an @, in order of first mention', () => {
    expect(mentionedHandles('@ana can you look? cc @bob-2 and @c.d_e')).toEqual(['ana', 'bob-2', 'c.d_e']);
    expect(mentionedHandles('@ana')).toEqual(['ana']);
  });

  it('leave out punctuation around a handle', () => {
    expect(mentionedHandles('thanks @ana. (@bob), "@carl"! @dee- @eve_, @fay... @gus?')).toEqual([
      'ana',
      'bob',
      'carl',
      'dee',
      'eve',
      'fay',
      'gus',
    ]);
    expect(mentionedHandles('**@ana** *@bob* [@carl](x) > @dee\n- @eve')).toEqual(['ana', 'bob', 'carl', 'dee', 'eve']);
  });

  it('are not e-mail addresses, paths, doubled @ or words of other scripts', () => {
    expect(mentionedHandles('write to ana@example.com or x.@bob or a-@carl or a_@dee')).toEqual([]);
    expect(mentionedHandles('see path/@x, @@y, `@z and é@w or 名@v')).toEqual([]);
    expect(mentionedHandles('@anaé is one word, @-ana and @_ana and @.ana are no handles')).toEqual([]);
  });

  it('are not handles longer than 39 characters', () => {
    expect(mentionedHandles(`@${'x'.repeat(39)} @${'y'.repeat(40)}`)).toEqual(['x'.repeat(39)]);
  });

  it('are folded to lower case and listed once', () => {
    expect(mentionedHandles('@Ana @ANA @ana @Bob @ana')).toEqual(['ana', 'bob']);
  });

  it('are at most 50', () => {
    const text = Array.from({ length: 60 }, (_, i) => `@user${i}`).join(' ');
    const handles = mentionedHandles(text);
    expect(handles).toHaveLength(maxMentions);
    expect(handles.at(-1)).toBe('user49');
  });

  it('are none in an empty or missing text', () => {
    expect([mentionedHandles(''), mentionedHandles(null), mentionedHandles(undefined)]).toEqual([[], [], []]);
  });
});

describe('code does not mention', () => {
  it('in a code span of one or two backticks', () => {
    expect(mentionedHandles('run `@ana` then @bob')).toEqual(['bob']);
    expect(mentionedHandles('``a ` @ana`` and @bob')).toEqual(['bob']);
    expect(mentionedHandles('`a\n@ana` @bob')).toEqual(['bob']);
  });

  it('but an unmatched backtick run is text', () => {
    expect(mentionedHandles('a ` lone @ana')).toEqual(['ana']);
    expect(mentionedHandles('``a` @ana')).toEqual(['ana']);
    expect(mentionedHandles('`` @ana ` @bob `')).toEqual(['ana']);
    expect(mentionedHandles('a `span` then ` @ana')).toEqual(['ana']);
  });

  it('nor does a code span stretch over a blank line', () => {
    expect(mentionedHandles('`a\n\n@ana `')).toEqual(['ana']);
  });

  it('in a fenced block of backticks or tildes', () => {
    expect(mentionedHandles('@ana\n```js\n@bob\n```\n@carl')).toEqual(['ana', 'carl']);
    expect(mentionedHandles('~~~\n@bob\n~~~\n@carl')).toEqual(['carl']);
    expect(mentionedHandles('````\n@bob\n```\n@dee\n````\n@carl')).toEqual(['carl']);
    expect(mentionedHandles('~~~\n@bob\n```\n@dee\n~~~~ \n@carl')).toEqual(['carl']);
    expect(mentionedHandles('text\n  ```\n@bob\n   ```\n@carl')).toEqual(['carl']);
  });

  it('in a fenced block left open, up to the end', () => {
    expect(mentionedHandles('@ana\n```\n@bob\n\n@carl')).toEqual(['ana']);
    expect(mentionedHandles('~~~~\n@bob\n~~~\n@carl')).toEqual([]);
  });

  it('but a line of backticks with a backtick after it opens no fence', () => {
    expect(mentionedHandles('``` a ` @ana\n@bob')).toEqual(['ana', 'bob']);
    expect(mentionedHandles('    ```\n@ana')).toEqual(['ana']);
  });

  it('in an indented block, after a blank line or at the start', () => {
    expect(mentionedHandles('text\n\n    @ana\n\t@bob\n\n    @carl\n@dee')).toEqual(['dee']);
    expect(mentionedHandles('    @ana\nnext')).toEqual([]);
    expect(mentionedHandles('```\n```\n    @ana')).toEqual([]);
  });

  it('but an indented line that continues a paragraph is prose', () => {
    expect(mentionedHandles('a paragraph\n    @ana')).toEqual(['ana']);
  });
});

describe('new mentions of an edit', () => {
  it('are the handles the text mentions now and did not before', () => {
    expect(newMentions('@ana and @bob', '@bob, @Carl and @ana, and @dee')).toEqual(['carl', 'dee']);
    expect(newMentions(null, '@ana')).toEqual(['ana']);
    expect(newMentions('@ana', undefined)).toEqual([]);
    expect(newMentions('`@ana`', '@ana')).toEqual(['ana']);
  });

  it('count what the text mentioned before in full, past the cap', () => {
    const before = Array.from({ length: 60 }, (_, i) => `@user${i}`).join(' ');
    expect(newMentions(before, `@user55 ${before}`)).toEqual([]);
  });
});

describe('reading a hostile text', () => {
  it('takes a moment for 200,000 backticks, @ signs or fence lines', () => {
    const texts = ['`'.repeat(200_000), '` '.repeat(100_000), '@'.repeat(200_000), '```\n'.repeat(50_000), '@a'.repeat(100_000)];
    const started = performance.now();
    expect(texts.map((t) => mentionedHandles(`${t}\n\n@ok`))).toEqual([[], ['ok'], ['ok'], ['ok'], ['a', 'ok']]);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GithubAutomation,
  type GithubEvent,
  type KeyMention,
  type LinkObservation,
  closingKeywords,
  githubEvent,
  githubSignature,
  isBackward,
  issueKeyMentions,
  laterObservation,
  MENTION_TEXT_LIMIT,
  MENTIONS_LIMIT,
  moveFor,
  PUSH_COMMITS_LIMIT,
  TITLE_LIMIT,
  verifyGithubSignature,
} from '../../lib/model/github.ts';
import { issueKeyPattern } from '../../lib/vocabulary/ids.ts';

/** GitHub's own example payloads (octokit/webhooks), as GitHub sends them. */
const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as { name: string; examples: any[] }[];
const examplesOf = (name: string): any[] => definitions.find((d) => d.name === name)!.examples;
const example = (name: string, test: (payload: any) => boolean = () => true): any =>
  structuredClone(examplesOf(name).find(test)!);
const pullRequest = (action: string) => example('pull_request', (p) => p.action === action);

const PREFIX = 'APL';
const repository = { owner: 'Codertocat', name: 'Hello-World', fullName: 'Codertocat/Hello-World' };

function linkOf(event: GithubEvent): LinkObservation {
  if (event.kind !== 'pull_request' && event.kind !== 'branch') throw new Error(`no single link: ${JSON.stringify(event)}`);
  return event.link;
}
const prLink = (payload: any) => linkOf(githubEvent('pull_request', payload, PREFIX));
const keys = (mentions: KeyMention[]) => mentions.map((m) => `${m.key}${m.closing ? '!' : ''}`);
const mentions = (text: string) => keys(issueKeyMentions(text, PREFIX));

describe('X-Hub-Signature-256', () => {
  const secret = 'a-project-secret';
  const body = JSON.stringify(example('pull_request', (p) => p.action === 'opened'));

  it("is GitHub's documented example ('Validating webhook deliveries')", () => {
    const header = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
    expect(githubSignature("It's a Secret to Everybody", 'Hello, World!')).toBe(header);
    expect(verifyGithubSignature("It's a Secret to Everybody", Buffer.from('Hello, World!'), header)).toBe(true);
  });

  it('verifies a payload re-signed with the secret, as a string or as bytes', () => {
    const header = githubSignature(secret, body);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyGithubSignature(secret, body, header)).toBe(true);
    expect(verifyGithubSignature(secret, Buffer.from(body), header)).toBe(true);
    expect(verifyGithubSignature(secret, body, header.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
  });

  it('refuses a changed byte, another secret, and a missing or malformed header', () => {
    const header = githubSignature(secret, body);
    const changed = Buffer.from(body);
    changed.writeUInt8(changed[10]! ^ 1, 10);
    const hex = header.slice('sha256='.length);
    const refused: [string, Buffer | string, string | undefined][] = [
      [secret, changed, header],
      [secret, `${body} `, header],
      ['another-secret', body, header],
      ['', body, githubSignature('', body)],
      [secret, body, undefined],
      [secret, body, ''],
      [secret, body, hex],
      [secret, body, `sha1=${hex.slice(0, 40)}`],
      [secret, body, `sha1=${hex}`],
      [secret, body, `sha256=${hex.slice(0, 62)}`],
      [secret, body, `sha256=${hex}00`],
      [secret, body, `sha256=${hex.slice(0, 63)}g`],
      [secret, body, `sha256=${'z'.repeat(64)}`],
      [secret, body, ` ${header}`],
      [secret, body, `${header}\n`],
      [secret, body, `sha256=${'0'.repeat(64)}`],
    ];
    for (const [s, b, h] of refused) expect(verifyGithubSignature(s, b, h), `${s} ${h}`).toBe(false);
  });
});

describe('issue key mentions', () => {
  it('finds keys of the project as whole words, in any case, once per number, in order', () => {
    expect(mentions('fixes apl-12.')).toEqual(['APL-12!']);
    expect(issueKeyMentions('see Apl-7', PREFIX)).toEqual([{ number: 7, key: 'APL-7', closing: false }]);
    expect(mentions('APL-3, then apl-1 and (APL-3) again; Apl-1')).toEqual(['APL-3', 'APL-1']);
    expect(mentions('feature/apl-12-login https://jira.example/browse/APL-13 [APL-14] APL-15: "APL-16"')).toEqual([
      'APL-12',
      'APL-13',
      'APL-14',
      'APL-15',
      'APL-16',
    ]);
    expect(mentions('APL-1\nAPL-2\tAPL-3')).toEqual(['APL-1', 'APL-2', 'APL-3']);
  });

  it.each([
    'XAPL-12',
    'APL-12a',
    'APL-012',
    'APL-0',
    'APL-',
    'APL 12',
    'APL_12',
    '_APL-12',
    'APL-12_x',
    '1APL-12',
    'fooAPL-12bar',
    'APL-12APL-13',
    'AP-12',
    'APLX-12',
    'BPL-12',
    'Fixes #12',
    'APL-12345678901234567',
    'APL-9007199254740992',
  ])('finds no key in %j', (text) => {
    expect(issueKeyMentions(text, PREFIX)).toEqual([]);
  });

  it('reads numbers of up to 16 digits that are safe integers', () => {
    expect(mentions('APL-9007199254740991')).toEqual(['APL-9007199254740991']);
    expect(issueKeyMentions('apl-9007199254740991', PREFIX)[0]!.number).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('spells the key with the prefix upper-cased, for any prefix a project may have', () => {
    expect(keys(issueKeyMentions('a1-5 and AB-6', 'a1'))).toEqual(['A1-5']);
    expect(keys(issueKeyMentions('web2-5 fixes WEB2-6', 'Web2'))).toEqual(['WEB2-5', 'WEB2-6!']);
    expect(keys(issueKeyMentions('12-5', '12'))).toEqual(['12-5']);
    for (const bad of ['A', 'ABCDE', 'A-B', '', 'ÄB']) expect(issueKeyMentions('A-1 ABCDE-1 A-B-1 -1 ÄB-1', bad)).toEqual([]);
  });

  it("marks a key closing after each of GitHub's nine keywords, in any case, with or without a colon", () => {
    expect(closingKeywords).toHaveLength(9);
    for (const word of closingKeywords)
      for (const spelled of [word, word.toUpperCase(), word[0]!.toUpperCase() + word.slice(1)])
        for (const text of [`${spelled} APL-4`, `${spelled}: APL-4`, `${spelled}:\tapl-4`, `Also ${spelled}\n  APL-4.`])
          expect(mentions(text), text).toEqual(['APL-4!']);
  });

  it('marks no key closing without a keyword right before it', () => {
    expect(mentions('APL-4')).toEqual(['APL-4']);
    expect(mentions('APL-4 is fixed')).toEqual(['APL-4']);
    expect(mentions('prefixes APL-4, unfixed APL-5, fixing APL-6, closure APL-7')).toEqual(['APL-4', 'APL-5', 'APL-6', 'APL-7']);
    expect(mentions('fixes:APL-4 fix-APL-5 fixes_APL-6 fixes : APL-7 fixes the APL-8')).toEqual([
      'APL-4',
      'APL-5',
      'APL-7',
      'APL-8',
    ]);
    expect(mentions('Fixes APL-1, APL-2 and fixes apl-3')).toEqual(['APL-1!', 'APL-2', 'APL-3!']);
  });

  it('keeps a key where it was first named, closing if any mention closes it', () => {
    expect(mentions('APL-2 and APL-1; Resolves APL-1')).toEqual(['APL-2', 'APL-1!']);
    expect(mentions('closes APL-1 and later APL-1')).toEqual(['APL-1!']);
  });

  it(`reads at most ${MENTION_TEXT_LIMIT} characters and returns at most ${MENTIONS_LIMIT} keys`, () => {
    expect(mentions(`${'x'.repeat(MENTION_TEXT_LIMIT)} APL-1`)).toEqual([]);
    expect(mentions(`${'x'.repeat(MENTION_TEXT_LIMIT - 7)} APL-1`)).toEqual(['APL-1']);
    expect(mentions(`${'x'.repeat(MENTION_TEXT_LIMIT - 7)} APL-12`)).toEqual(['APL-12']);
    // A key the limit cuts is not read as a shorter one.
    expect(mentions(`${'x'.repeat(MENTION_TEXT_LIMIT - 6)} APL-12`)).toEqual([]);
    expect(mentions(`${'x'.repeat(MENTION_TEXT_LIMIT - 3)} APLX-1`)).toEqual([]);
    const many = Array.from({ length: 3 * MENTIONS_LIMIT }, (_, i) => `APL-${i + 1}`).join(' ');
    const found = issueKeyMentions(`${many} fixes APL-1`, PREFIX);
    expect(found).toHaveLength(MENTIONS_LIMIT);
    expect(found.map((m) => m.number)).toEqual(Array.from({ length: MENTIONS_LIMIT }, (_, i) => i + 1));
    expect(found[0]!.closing).toBe(true);
  });

  /** The same rule, spelled with regular expressions (fine on the short texts of a property). */
  function reference(text: string): string[] {
    const found = new Map<number, boolean>();
    for (const m of text.matchAll(/(?<![A-Za-z0-9_])apl-([1-9]\d{0,15})(?![A-Za-z0-9_])/gi)) {
      const n = Number(m[1]);
      if (!Number.isSafeInteger(n)) continue;
      const before = text.slice(0, m.index);
      const closing = new RegExp(`(?<![A-Za-z0-9_])(${closingKeywords.join('|')}):?\\s+$`, 'i').test(before);
      if (found.has(n)) found.set(n, found.get(n)! || closing);
      else if (found.size < MENTIONS_LIMIT) found.set(n, closing);
    }
    return [...found].map(([n, closing]) => `APL-${n}${closing ? '!' : ''}`);
  }

  const fragment = fc.constantFrom(
    'APL',
    'apl',
    'XAPL',
    '-',
    '1',
    '2',
    '0',
    '12',
    ' ',
    '\n',
    '\t',
    ':',
    'fixes',
    'Closed',
    'x',
    '#',
    '_',
  );

  it('finds what the regular expressions find, in texts made of the pieces that matter', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        const found = issueKeyMentions(text, PREFIX);
        expect(keys(found)).toEqual(reference(text));
        for (const m of found) expect(m.key).toMatch(issueKeyPattern);
      }),
      { numRuns: 2000 },
    );
  });

  /** The least time of a few rounds of `rounds` reads of `text`, in milliseconds. */
  function timeOf(text: string, rounds: number): number {
    let best = Infinity;
    for (let trial = 0; trial < 5; trial++) {
      const start = performance.now();
      for (let r = 0; r < rounds; r++) issueKeyMentions(text, PREFIX);
      best = Math.min(best, performance.now() - start);
    }
    return best;
  }

  it('reads a hostile text in time linear in its length, within the limits', () => {
    const hostile = fc.oneof(
      fc.constantFrom(
        'APL-',
        'fixes ',
        'A',
        'A-1',
        'APL-1',
        'fixes: APL-1 ',
        ' ',
        '1',
        'apl-0',
        'APL-12a ',
        'fixes APL-',
        'APLAPL-',
      ),
      fc.array(fragment, { minLength: 1, maxLength: 8 }).map((p) => p.join('')),
    );
    fc.assert(
      fc.property(hostile, (unit) => {
        // The long text fills the limit; the short one is an eighth of it.
        const long = unit.repeat(Math.ceil(MENTION_TEXT_LIMIT / unit.length)).slice(0, MENTION_TEXT_LIMIT);
        const short = long.slice(0, MENTION_TEXT_LIMIT / 8);
        timeOf(long, 2);
        const ratio = timeOf(long, 8) / Math.max(timeOf(short, 8), 0.05);
        expect(ratio, JSON.stringify(unit)).toBeLessThan(40);
        expect(issueKeyMentions(long, PREFIX).length).toBeLessThanOrEqual(MENTIONS_LIMIT);
      }),
      { numRuns: 25 },
    );
  });

  it('reads no further than the limit in a text of many megabytes', () => {
    const huge = 'fixes APL-'.repeat(2_000_000);
    const start = performance.now();
    expect(issueKeyMentions(huge, PREFIX)).toEqual([]);
    expect(issueKeyMentions(`${'APL-1 '.repeat(10)}${'APL-'.repeat(2_000_000)}`, PREFIX)).toHaveLength(1);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe("GitHub's example deliveries, normalised", () => {
  const stateByAction: Record<string, LinkObservation['state']> = {
    opened: 'open',
    closed: 'closed',
    reopened: 'open',
    ready_for_review: 'open',
    converted_to_draft: 'draft',
    synchronize: 'open',
  };

  it('reads every pull_request example: its state per action, the others ignored', () => {
    const seen = new Set<string>();
    for (const payload of examplesOf('pull_request')) {
      const event = githubEvent('pull_request', payload, PREFIX);
      const state = stateByAction[payload.action];
      if (state === undefined) {
        expect(event.kind, payload.action).toBe('ignored');
        continue;
      }
      seen.add(payload.action);
      expect(event).toEqual({
        kind: 'pull_request',
        repository,
        action: payload.action,
        link: {
          kind: 'pull_request',
          ref: '2',
          url: 'https://github.com/Codertocat/Hello-World/pull/2',
          title: 'Update the README with new information.',
          author: 'Codertocat',
          state,
          createdAt: '2019-05-15T15:20:33.000Z',
          updatedAt: new Date(payload.pull_request.updated_at).toISOString(),
          mergedAt: null,
          closedAt: state === 'closed' ? '2019-05-15T15:21:18.000Z' : null,
          mentions: [],
        },
      });
    }
    expect([...seen].sort()).toEqual(Object.keys(stateByAction).sort());
  });

  it('reads a merged pull request as merged', () => {
    const payload = pullRequest('closed');
    Object.assign(payload.pull_request, { merged: true, merged_at: '2019-05-15T15:21:18Z' });
    expect(prLink(payload)).toMatchObject({
      state: 'merged',
      mergedAt: '2019-05-15T15:21:18.000Z',
      closedAt: '2019-05-15T15:21:18.000Z',
    });
    payload.pull_request.merged = null;
    expect(prLink(payload).state).toBe('merged');
  });

  it('finds the keys a pull request names in its title, body and branch; only the title and body close', () => {
    const payload = pullRequest('opened');
    payload.pull_request.title = 'APL-7: update the README';
    payload.pull_request.body = 'Fixes apl-12, touches APL-3.\r\n\r\nCloses #4, resolves: APL-7';
    payload.pull_request.head.ref = 'feature/APL-9-readme';
    expect(keys(prLink(payload).mentions)).toEqual(['APL-7!', 'APL-12!', 'APL-3', 'APL-9']);
    payload.pull_request.body = null;
    expect(keys(prLink(payload).mentions)).toEqual(['APL-7', 'APL-9']);
    expect(keys(linkOf(githubEvent('pull_request', payload, 'HW')).mentions)).toEqual([]);
  });

  it('cuts a long title without splitting a character, and keeps the mentions read from all of it', () => {
    const payload = pullRequest('opened');
    payload.pull_request.title = `${'x'.repeat(TITLE_LIMIT - 1)}😀 and more, fixes APL-5`;
    const link = prLink(payload);
    expect(link.title).toBe('x'.repeat(TITLE_LIMIT - 1));
    expect(keys(link.mentions)).toEqual(['APL-5!']);
  });

  it('reads the pushes of tags as nothing, and a push to the default branch', () => {
    for (const payload of examplesOf('push')) {
      const event = githubEvent('push', payload, PREFIX);
      if (payload.ref.startsWith('refs/tags/')) expect(event).toEqual({ kind: 'ignored', reason: 'a tag was pushed' });
      else expect(event).toEqual({ kind: 'push', repository, branch: 'master', links: [] });
    }
  });

  const masterPush = () => example('push', (p) => p.ref === 'refs/heads/master');
  const pushedAt = '2019-05-15T15:20:57.000Z';

  it('links the commits of a push to the default branch that name a key, merged', () => {
    const payload = masterPush();
    payload.commits[0].message = 'Fixes APL-12: the first line\n\nAlso APL-13.';
    const event = githubEvent('push', payload, PREFIX);
    expect(event).toEqual({
      kind: 'push',
      repository,
      branch: 'master',
      links: [
        {
          kind: 'commit',
          ref: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
          url: 'https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246',
          title: 'Fixes APL-12: the first line',
          author: 'Codertocat',
          state: 'merged',
          createdAt: '2019-05-15T15:19:25.000Z',
          updatedAt: '2019-05-15T15:19:25.000Z',
          mergedAt: pushedAt,
          closedAt: null,
          mentions: [
            { number: 12, key: 'APL-12', closing: true },
            { number: 13, key: 'APL-13', closing: false },
          ],
        },
      ],
    });
  });

  it('links the commits of a push to another branch as open, and the branch when its name names a key', () => {
    const payload = masterPush();
    payload.ref = 'refs/heads/feature/APL-14';
    payload.commits[0].message = 'APL-12 work in progress';
    payload.commits[0].timestamp = '2019-05-15T08:19:25-07:00';
    delete payload.commits[0].author.username;
    const event = githubEvent('push', payload, PREFIX);
    if (event.kind !== 'push') throw new Error(event.kind);
    expect(event.branch).toBe('feature/APL-14');
    expect(event.links.map((l) => [l.kind, l.ref, l.state, l.author, l.updatedAt, keys(l.mentions)])).toEqual([
      ['commit', payload.commits[0].id, 'open', 'Codertocat', '2019-05-15T15:19:25.000Z', ['APL-12']],
      ['branch', 'feature/APL-14', 'open', 'Codertocat', pushedAt, ['APL-14']],
    ]);
    expect(event.links[1]).toMatchObject({
      url: 'https://github.com/Codertocat/Hello-World/tree/feature/APL-14',
      title: 'feature/APL-14',
      createdAt: pushedAt,
      mergedAt: null,
      closedAt: null,
    });
  });

  it('closes the link of a branch a push deleted', () => {
    const payload = example('push', (p) => p.deleted === true);
    payload.ref = 'refs/heads/apl-15-fix#2';
    const event = githubEvent('push', payload, PREFIX);
    if (event.kind !== 'push') throw new Error(event.kind);
    expect(event.links).toEqual([
      {
        kind: 'branch',
        ref: 'apl-15-fix#2',
        url: 'https://github.com/Codertocat/Hello-World/tree/apl-15-fix%232',
        title: 'apl-15-fix#2',
        author: 'Codertocat',
        state: 'closed',
        createdAt: null,
        updatedAt: pushedAt,
        mergedAt: null,
        closedAt: pushedAt,
        mentions: [{ number: 15, key: 'APL-15', closing: false }],
      },
    ]);
  });

  it(`links at most ${PUSH_COMMITS_LIMIT} commits of a push, and stays small`, () => {
    const payload = masterPush();
    const [commit] = payload.commits;
    const manyKeys = Array.from({ length: 2 * MENTIONS_LIMIT }, (_, i) => `fixes ABCD-${9007199254740991 - i}`).join(' ');
    payload.repository.owner.login = 'o'.repeat(39);
    payload.repository.name = 'n'.repeat(100);
    payload.repository.full_name = `${'o'.repeat(39)}/${'n'.repeat(100)}`;
    payload.commits = Array.from({ length: 3 * PUSH_COMMITS_LIMIT }, (_, i) => ({
      ...commit,
      id: i.toString(16).padStart(40, '0'),
      url: `https://github.com/${payload.repository.full_name}/commit/${i.toString(16).padStart(40, '0')}`,
      message: `${'😀'.repeat(2 * TITLE_LIMIT)}\n${manyKeys}`,
      author: { name: 'é'.repeat(500), username: null },
    }));
    const event = githubEvent('push', payload, 'abcd');
    if (event.kind !== 'push') throw new Error(event.kind);
    expect(event.links).toHaveLength(PUSH_COMMITS_LIMIT);
    expect(event.links.every((l) => l.mentions.length === MENTIONS_LIMIT && l.title.length <= TITLE_LIMIT)).toBe(true);
    expect(event.links[0]!.author).toBe('é'.repeat(100));
    // A DynamoDB item holds at most 400 KB.
    expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThan(250_000);
  });

  it('reads the create and delete of a branch; tags, as in all of GitHub examples, are ignored', () => {
    for (const name of ['create', 'delete'])
      for (const payload of examplesOf(name))
        expect(githubEvent(name, payload, PREFIX)).toEqual({ kind: 'ignored', reason: `a ${name} of a tag` });
    const created = example('create');
    Object.assign(created, { ref: 'APL-21-login', ref_type: 'branch' });
    expect(githubEvent('create', created, PREFIX)).toEqual({
      kind: 'branch',
      repository,
      link: {
        kind: 'branch',
        ref: 'APL-21-login',
        url: 'https://github.com/Codertocat/Hello-World/tree/APL-21-login',
        title: 'APL-21-login',
        author: 'Codertocat',
        state: 'open',
        createdAt: '2019-05-15T15:20:56.000Z',
        updatedAt: '2019-05-15T15:20:56.000Z',
        mergedAt: null,
        closedAt: null,
        mentions: [{ number: 21, key: 'APL-21', closing: false }],
      },
    });
    const deleted = example('delete');
    Object.assign(deleted, { ref: 'APL-21-login', ref_type: 'branch' });
    expect(linkOf(githubEvent('delete', deleted, PREFIX))).toMatchObject({
      state: 'closed',
      createdAt: null,
      updatedAt: '2019-05-15T15:20:57.000Z',
      closedAt: '2019-05-15T15:20:57.000Z',
    });
  });

  it("answers a ping with its repository, or none for an organisation's hook", () => {
    const pings = examplesOf('ping').map((p) => githubEvent('ping', p, PREFIX));
    expect(pings).toContainEqual({
      kind: 'ping',
      repository: { owner: 'Octocoders', name: 'Hello-World', fullName: 'Octocoders/Hello-World' },
    });
    expect(pings).toContainEqual({ kind: 'ping', repository: null });
  });

  it('ignores other events, and anything not in the shape GitHub sends, without throwing', () => {
    const opened = pullRequest('opened');
    const broken = [
      ['issues', example('push')],
      ['pull_request', null],
      ['pull_request', []],
      ['pull_request', 'x'],
      ['pull_request', { ...opened, repository: 5 }],
      ['pull_request', { ...opened, repository: { ...opened.repository, owner: { login: '../x' } } }],
      ['pull_request', { ...opened, action: 'labeled' }],
      ['pull_request', { ...opened, pull_request: { ...opened.pull_request, number: '2' } }],
      ['pull_request', { ...opened, pull_request: { ...opened.pull_request, html_url: 'javascript:alert(1)' } }],
      ['pull_request', { ...opened, pull_request: { ...opened.pull_request, updated_at: 'yesterday' } }],
      ['pull_request', { ...opened, pull_request: { ...opened.pull_request, head: null } }],
      ['push', { ...example('push'), ref: 'refs/notes/x' }],
      ['create', { ...example('create'), ref_type: 'branch', ref: 5 }],
    ] as const;
    for (const [event, payload] of broken)
      expect(githubEvent(event, payload, PREFIX).kind, JSON.stringify(event)).toBe('ignored');
  });

  it('never throws, whatever a field of an example holds', () => {
    const all = ['pull_request', 'push', 'create', 'delete', 'ping'].flatMap((name) =>
      examplesOf(name).map((p) => [name, p] as const),
    );
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.nat(), fc.nat(), fc.anything(), ([name, original], i, j, value) => {
        const payload = structuredClone(original);
        const topKeys = Object.keys(payload);
        const key = topKeys[i % topKeys.length]!;
        const inner = payload[key];
        if (inner && typeof inner === 'object' && j % 2 === 0) {
          const innerKeys = Object.keys(inner);
          if (innerKeys.length > 0) inner[innerKeys[j % innerKeys.length]!] = value;
        } else payload[key] = value;
        const event = githubEvent(name, payload, PREFIX);
        expect(['ping', 'pull_request', 'push', 'branch', 'ignored']).toContain(event.kind);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('observations arriving out of order', () => {
  /** One pull request's observations: opened as a draft, edited, marked ready, merged. */
  function pullRequestHistory() {
    const at = (action: string, time: string, change: (pr: any) => void) => {
      const payload = pullRequest(action === 'edited' ? 'opened' : action);
      payload.action = action;
      Object.assign(payload.pull_request, { updated_at: time, title: 'APL-1: work' });
      change(payload.pull_request);
      return prLink(payload);
    };
    return {
      opened: at('opened', '2024-01-01T10:00:00Z', (pr) => (pr.draft = true)),
      edited: at('edited', '2024-01-01T11:00:00Z', (pr) => Object.assign(pr, { draft: true, title: 'APL-1: better' })),
      ready: at('ready_for_review', '2024-01-01T12:00:00Z', () => {}),
      merged: at('closed', '2024-01-01T13:00:00Z', (pr) =>
        Object.assign(pr, { merged: true, merged_at: '2024-01-01T13:00:00Z' }),
      ),
      reopened: at('reopened', '2024-01-01T14:00:00Z', () => {}),
      closed: at('closed', '2024-01-01T13:00:00Z', () => {}),
    };
  }
  const fold = (observations: LinkObservation[]) =>
    observations.reduce<LinkObservation | null>((stored, incoming) => laterObservation(stored, incoming).observation, null)!;
  const permutations = <T>(items: T[]): T[][] =>
    items.length <= 1
      ? [items]
      : items.flatMap((item, i) => permutations(items.filter((_, k) => k !== i)).map((p) => [item, ...p]));

  it('ends merged, as the merge observed it, in every order', () => {
    const h = pullRequestHistory();
    expect([h.opened.state, h.edited.state, h.ready.state, h.merged.state]).toEqual(['draft', 'draft', 'open', 'merged']);
    const orders = permutations([h.opened, h.edited, h.ready, h.merged]);
    expect(orders).toHaveLength(24);
    for (const order of orders) expect(fold(order)).toBe(h.merged);
  });

  it('keeps a merge against anything later that is not merged, and takes a later observation of it merged', () => {
    const h = pullRequestHistory();
    expect(laterObservation(h.merged, h.reopened)).toEqual({ winner: 'stored', observation: h.merged });
    const editedAfter = { ...h.merged, title: 'APL-1: renamed after the merge', updatedAt: '2024-01-02T00:00:00.000Z' };
    expect(laterObservation(h.merged, editedAfter)).toEqual({ winner: 'incoming', observation: editedAfter });
    expect(laterObservation(editedAfter, h.merged).winner).toBe('stored');
  });

  it('ends open after a close then a reopen, in either order; a first observation stands', () => {
    const h = pullRequestHistory();
    for (const order of permutations([h.ready, h.closed, h.reopened])) expect(fold(order)).toBe(h.reopened);
    expect(laterObservation(null, h.opened)).toEqual({ winner: 'incoming', observation: h.opened });
    expect(laterObservation(undefined, h.opened).winner).toBe('incoming');
  });

  it('takes the further state on a tie of times, in either order', () => {
    const h = pullRequestHistory();
    const closed = { ...h.closed, updatedAt: h.ready.updatedAt };
    expect(laterObservation(h.ready, closed).observation).toBe(closed);
    expect(laterObservation(closed, h.ready).observation).toBe(closed);
    const draft = { ...h.ready, state: 'draft' as const };
    expect(laterObservation(draft, h.ready).observation).toBe(h.ready);
    expect(laterObservation(h.ready, draft).observation).toBe(h.ready);
    const same = { ...h.ready, title: 'another title' };
    expect(laterObservation(h.ready, same)).toEqual({ winner: 'incoming', observation: same });
  });

  it('ends a branch closed after its create and delete, open again when a later push makes it again', () => {
    const create = example('create');
    Object.assign(create, { ref: 'APL-3-x', ref_type: 'branch' });
    const remove = example('delete');
    Object.assign(remove, { ref: 'APL-3-x', ref_type: 'branch' });
    const [created, deleted] = [linkOf(githubEvent('create', create, PREFIX)), linkOf(githubEvent('delete', remove, PREFIX))];
    expect(fold([created, deleted]).state).toBe('closed');
    expect(fold([deleted, created]).state).toBe('closed');
    const pushed = masterPushTo('refs/heads/APL-3-x', 1557933700);
    expect(fold([deleted, pushed, created]).state).toBe('open');
  });

  function masterPushTo(ref: string, pushedAtSeconds: number): LinkObservation {
    const payload = example('push', (p) => p.ref === 'refs/heads/master');
    Object.assign(payload, { ref, created: true });
    payload.repository.pushed_at = pushedAtSeconds;
    const event = githubEvent('push', payload, PREFIX);
    if (event.kind !== 'push') throw new Error(event.kind);
    return event.links.find((l) => l.kind === 'branch')!;
  }

  it('ends a commit merged once a push to the default branch carried it, in either order', () => {
    const onBranch = example('push', (p) => p.ref === 'refs/heads/master');
    onBranch.ref = 'refs/heads/feature';
    onBranch.commits[0].message = 'APL-4 done';
    const onMaster = structuredClone(onBranch);
    onMaster.ref = 'refs/heads/master';
    const commitOf = (payload: any) => (githubEvent('push', payload, PREFIX) as Extract<GithubEvent, { kind: 'push' }>).links[0]!;
    const [open, merged] = [commitOf(onBranch), commitOf(onMaster)];
    expect([open.state, merged.state]).toEqual(['open', 'merged']);
    expect(fold([open, merged])).toBe(merged);
    expect(fold([merged, open])).toBe(merged);
  });
});

describe('the status automation', () => {
  const automation: GithubAutomation = { enabled: true, onOpen: null, onMerge: null, mergeNeedsClosingWord: true };
  const h = (() => {
    const link = (state: LinkObservation['state']): LinkObservation => ({
      kind: 'pull_request',
      ref: '2',
      url: 'https://github.com/o/r/pull/2',
      title: 't',
      author: null,
      state,
      createdAt: null,
      updatedAt: '2024-01-01T00:00:00.000Z',
      mergedAt: null,
      closedAt: null,
      mentions: [],
    });
    return { open: link('open'), draft: link('draft'), merged: link('merged'), closed: link('closed') };
  })();
  const bare: KeyMention = { number: 1, key: 'APL-1', closing: false };
  const closing: KeyMention = { ...bare, closing: true };

  it('asks to start an issue when its pull request opens, is marked ready or reopens', () => {
    expect(moveFor(h.open, bare, automation)).toEqual({ category: 'in_progress', stateName: null });
    expect(moveFor(h.open, bare, automation, 'draft')).toEqual({ category: 'in_progress', stateName: null });
    expect(moveFor(h.open, bare, automation, 'closed')).toEqual({ category: 'in_progress', stateName: null });
    expect(moveFor(h.open, bare, { ...automation, onOpen: 'In review' })).toEqual({
      category: 'in_progress',
      stateName: 'In review',
    });
  });

  it('asks to complete an issue when its pull request merges, named with a closing word unless the project says otherwise', () => {
    expect(moveFor(h.merged, closing, automation, 'open')).toEqual({ category: 'done', stateName: null });
    expect(moveFor(h.merged, bare, automation, 'open')).toBeNull();
    expect(moveFor(h.merged, bare, { ...automation, mergeNeedsClosingWord: false, onMerge: 'Shipped' })).toEqual({
      category: 'done',
      stateName: 'Shipped',
    });
  });

  it('asks nothing when off, for drafts and closes, for an event that leaves the state as it was, for branches and commits', () => {
    expect(moveFor(h.open, closing, { ...automation, enabled: false })).toBeNull();
    expect(moveFor(h.merged, closing, { ...automation, enabled: false })).toBeNull();
    expect(moveFor(h.draft, closing, automation)).toBeNull();
    expect(moveFor(h.closed, closing, automation, 'open')).toBeNull();
    expect(moveFor(h.open, closing, automation, 'open')).toBeNull();
    expect(moveFor(h.merged, closing, automation, 'merged')).toBeNull();
    expect(moveFor({ ...h.open, kind: 'branch' }, closing, automation)).toBeNull();
    expect(moveFor({ ...h.merged, kind: 'commit' }, closing, automation)).toBeNull();
  });

  it('calls a move back anything out of done or cancelled, and any move to an earlier category', () => {
    expect(isBackward('done', 'in_progress')).toBe(true);
    expect(isBackward('cancelled', 'done')).toBe(true);
    expect(isBackward('cancelled', 'in_progress')).toBe(true);
    expect(isBackward('in_progress', 'todo')).toBe(true);
    expect(isBackward('done', 'done')).toBe(false);
    expect(isBackward('in_progress', 'in_progress')).toBe(false);
    expect(isBackward('backlog', 'in_progress')).toBe(false);
    expect(isBackward('todo', 'done')).toBe(false);
    expect(isBackward('in_progress', 'done')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { keys, type Key } from '../../lib/db/core/keys.ts';
import { layout } from '../../lib/db/layout.ts';

/**
 * Every key lib/db/core/keys.ts builds is a row of lib/db/layout.ts (the layout table of
 * docs/data-model.md): a new kind of item cannot be stored without being declared there.
 */

/** Arguments to build one key of each kind (a builder missing here fails the first test). */
const samples: Record<keyof typeof keys, unknown[]> = {
  orgSequence: [],
  org: [1],
  sequences: [1],
  account: [1, 2],
  email: [1, 'Ada@Example.com'],
  project: [1, 2],
  prefix: [1, 'ABC'],
  sprint: [1, 2, 3],
  issue: [1, 2, 3],
  comment: [1, 2, 3, 4],
  commentPointer: [1, 2],
  attachment: [1, 2, 3, 4],
  attachmentExpired: [1, 4],
  pendingUploads: [1, 2],
  label: [1, 2, 3],
  labelName: [1, 2, 'bug'],
  state: [1, 2, 3],
  velocity: [1, 2, '2026-11-26T00:00:00.000Z', 4],
  issueActivity: [1, 2, 3, '12345'],
  issueActivityText: [1, 2, 3, '12345'],
  sprintActivity: [1, 2, 3, '12345'],
  webhook: [1, 2],
  delivery: [1, 2, 'd1'],
  deliveriesInFlight: [1, 'lane'],
  assignedIssue: [1, 2, 3, 4],
  searchIssue: [1, 2, 3],
  issueKey: [1, 'ABC-12'],
  subIssue: [1, 'ABC-12', 3],
  token: ['f'.repeat(64)],
  oauthClient: ['client'],
  oauthRegistrations: ['127.0.0.1', 5],
  oauthCode: ['c'.repeat(64)],
  oauthGrant: ['grant'],
  oauthRefresh: ['r'.repeat(64)],
  idempotency: ['key'],
  idempotencyPart: ['key', 2],
  trash: [1, 'WEBHOOK#0000000002'],
  deletion: [{ PK: 'ORG#0000000001#P#0000000002', SK: 'ISSUE#0000000003' }],
  migration: ['add-things'],
  migrationLease: [],
  importedIssue: [1, 2, 'jira', 'ABC-1'],
  importedComment: [1, 2, 'jira', '10001'],
  importNumbers: [1, 2, 'jira'],
  importJob: [1, 'job'],
  importJobReportPart: [1, 'job', 3],
  importJobPart: [1, 'job', 3],
  pendingCascade: ['project', 1, 2, 3],
};

/** A layout row's key as a pattern: upper-case words are literal, the rest (`o`, `X-n`, `sha256`…) stand for values. */
const pattern = (shape: string) =>
  new RegExp(
    `^${shape
      .split('#')
      .map((part) => (/^[A-Z]{2,}$/.test(part) ? part : part === '<PK of x>' || part === '<SK of x>' ? '.+' : '[^#]+'))
      .join('#')}$`,
  );

const rowsOf = (key: Key) => layout.filter((row) => pattern(row.PK).test(key.PK) && pattern(row.SK).test(key.SK));

describe('the layout of the one table (lib/db/layout.ts)', () => {
  it('has a sample for every key builder', () => {
    expect(Object.keys(keys).sort()).toEqual(Object.keys(samples).sort());
  });

  it.each(Object.entries(samples))('declares the item %s keys', (name, args) => {
    const key = (keys[name as keyof typeof keys] as (...a: unknown[]) => Key)(...args);
    expect(
      rowsOf(key).map((r) => `${r.PK} ${r.SK}`),
      `${key.PK} ${key.SK}`,
    ).not.toEqual([]);
  });

  it('matches no key that the layout does not declare', () => {
    expect(rowsOf({ PK: 'ORG#0000000001', SK: 'UNDECLARED#1' })).toEqual([]);
  });
});

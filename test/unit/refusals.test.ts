import { describe, expect, it } from 'vitest';
import type { CommentRefusal, RefusalReason, WebhookRefusal } from '../../lib/db/core/refusals.ts';
import { isRefused, Refused } from '../../lib/db/core/transactions.ts';
import { explainRefusal, type Meanings } from '../../lib/services/refusals.ts';
import * as errors from '../../lib/vocabulary/errors.ts';

// The type-level half of these tests is checked by `tsc --noEmit` (part of `npm test`): each
// `@ts-expect-error` below fails the type check the day its line compiles, that is, the day refusal
// reasons are open strings again or a mapping need not name every reason of its write.
describe('refusal reasons are a closed set', () => {
  it('a misspelt reason does not compile, in a refusal, a comparison or a mapping', () => {
    // @ts-expect-error 'sprnt' is no reason any guard names
    const misspelt = new Refused('sprnt');
    const refused: Refused = new Refused('sprint');
    // @ts-expect-error the comparison of a reason with a misspelt one has no overlap
    const compared = refused.reason === 'sprnt';
    // @ts-expect-error isRefused takes reasons only
    const guarded = isRefused(refused, 'sprnt');
    expect([misspelt.reason, compared, guarded]).toEqual(['sprnt', false, false]);
  });

  it('a mapping that forgets a reason of its write does not compile', () => {
    const complete = {
      webhook: () => new errors.NotFoundError('Webhook'),
      limit: () => new errors.ValidationError(['too many']),
      delivery: () => new errors.TransitionError('pending'),
    } satisfies Meanings<WebhookRefusal>;
    const forgetful = {
      project: () => new errors.NotFoundError('Project'),
      // @ts-expect-error 'comment' (and 'sprint', 'issue', 'pointed') are missing
    } satisfies Meanings<CommentRefusal>;
    expect(Object.keys(complete).sort()).toEqual(['delivery', 'limit', 'webhook']);
    expect(Object.keys(forgetful)).toEqual(['project']);
  });

  it('a refusal means what its reason is mapped to; an unmapped reason passes through', () => {
    const meanings = { webhook: () => new errors.NotFoundError('Webhook') } satisfies Partial<Meanings>;
    expect(explainRefusal(new Refused('webhook'), meanings)).toEqual(new errors.NotFoundError('Webhook'));
    const other = new Refused('limit');
    expect(explainRefusal(other, meanings)).toBe(other);
    expect(isRefused(other, 'limit', 'webhook')).toBe(true);
    expect(isRefused(other, 'webhook')).toBe(false);
    expect(isRefused(new Error('limit'), 'limit')).toBe(false);
    const reason: RefusalReason = 'if-present:ORG#1';
    expect(new Refused(reason).reason).toBe('if-present:ORG#1');
  });
});

describe('every error class has a name', () => {
  it('names each typed error after its class, and a refusal as Refused', () => {
    const made: Error[] = [
      new errors.NotFoundError('Issue'),
      new errors.ValidationError(['title is required']),
      new errors.TransitionError('no'),
      new errors.PreconditionFailedError(),
      new errors.ForbiddenError('no'),
      new errors.UnauthorizedError('no'),
      new errors.ConflictError(['taken']),
      new errors.HandleTakenError('ana'),
      new errors.RateLimitedError(1),
      new errors.UnavailableError(),
      new errors.RequestInProgressError(),
      new errors.SprintBusyError(),
      new errors.TrashBusyError('busy'),
      new errors.NotRecordedError(),
      new errors.BadRequestError(400, 'bad'),
      new errors.RevertConflictError([{ field: 'title', value: 'Now' }]),
      new errors.IssueElsewhereError('APL-12', 3),
    ];
    const classes = Object.entries(errors).filter(([, v]) => typeof v === 'function' && v !== errors.DomainError);
    expect(made.map((e) => e.name).sort()).toEqual(classes.map(([name]) => name).sort());
    for (const e of made) expect(String(e)).toMatch(new RegExp(`^${e.name}: `));
    expect(new Refused('stale').name).toBe('Refused');
  });
});

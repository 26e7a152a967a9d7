import { describe, expect, it } from 'vitest';
import { bulkResults } from '../../lib/http/bulk.ts';
import { RESPONSE_BYTE_BUDGET, restItemBytes } from '../../lib/http/byte-budget.ts';
import { NotFoundError, ValidationError } from '../../lib/vocabulary/errors.ts';
import type { Issue } from '../../lib/schemas/issues.ts';

const issue = (id: number, description: string): Issue => ({
  id,
  project_id: 1,
  sprint_id: null,
  issue_number: `APL-${id}`,
  source_key: null,
  custom_fields: {},
  title: `T${id}`,
  description,
  status: 'backlog',
  state_id: null,
  allowed_next_states: [],
  status_category: 'backlog',
  story_points: null,
  position: id,
  assignee_id: null,
  priority: 'none',
  type: 'task',
  due_date: null,
  parent_id: null,
  sub_issues_summary: { total: 0, done: 0, story_points: 0, completed_story_points: 0 },
  labels: [],
  started_at: null,
  completed_at: null,
  created_at: '2026-11-25T00:00:00.000Z',
  updated_at: '2026-11-25T00:00:00.000Z',
  blocked: false,
  links: { count: 0, pull_request_state: null, pull_requests: { open: 0, draft: 0, merged: 0, closed: 0 } },
  watchers: { count: 0, account_ids: [] },
});

describe('bulk results', () => {
  it('answers each error with the status and body of the single route', () => {
    const results = bulkResults([
      { ok: false, error: new ValidationError(['title is required']) },
      { ok: false, error: new NotFoundError('Issue') },
      { ok: true, status: 201, issue: issue(1, 'short') },
    ]);
    expect(results).toEqual([
      { status: 422, errors: ['title is required'] },
      { status: 404, error: 'Issue not found' },
      { status: 201, issue: issue(1, 'short') },
    ]);
  });

  it('keeps the answer within the response byte budget: issues past it come without their description', () => {
    // 100 updated issues of 100,000 characters each: about 10 MB as they are.
    const outcomes = Array.from({ length: 100 }, (_, i) => ({
      ok: true as const,
      status: 200 as const,
      issue: issue(i + 1, '"'.repeat(100_000)),
    }));
    const results = bulkResults(outcomes);
    const bytes = results.reduce((sum, r) => sum + restItemBytes(r) + 1, 0);
    expect(bytes).toBeLessThanOrEqual(RESPONSE_BYTE_BUDGET);
    const omitted = results.filter((r) => 'description_omitted' in r);
    expect(omitted.length).toBeGreaterThan(50);
    expect(results[0]).toEqual({ status: 200, issue: outcomes[0]!.issue });
    expect(omitted.every((r) => (r as { issue: Issue }).issue.description === null)).toBe(true);
  });
});

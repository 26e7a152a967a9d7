import { afterEach, describe, expect, it, vi } from 'vitest';
import { createIssue, listIssues, updateIssue, deleteIssue } from '../../lib/services/issues.ts';
import type { Principal } from '../../lib/model/principal.ts';
import { createProject } from '../../lib/services/projects.ts';
import { activateSprint, completeSprint, createSprint, getBurndown } from '../../lib/services/sprints.ts';
import { newOrganisation, randomPrefix } from '../support/api.ts';

/**
 * The burndown is kept by the writes (a per-day change of open story points on the sprint, in the
 * same transaction as its counters). Here a sprint lives through ten days on a fake clock, and its
 * burndown is compared with a replay: the open story points recomputed from its issues at the end
 * of every day.
 */

afterEach(() => {
  vi.useRealTimers();
});

const DAY = 86_400_000;
/** A fixed start a few days ahead, so that "today" moves only where the test says. */
const start = new Date(Math.floor(Date.now() / DAY) * DAY + 3 * DAY);
const day = (n: number) => new Date(start.getTime() + n * DAY).toISOString().slice(0, 10);
const at = (n: number, hour = 10) => vi.setSystemTime(new Date(start.getTime() + n * DAY + hour * 3_600_000));

async function openPointsOf(caller: Principal, projectId: number, sprintId: number): Promise<number> {
  const { items } = await listIssues(caller, { projectId, sprintId }, { page: 1, perPage: 100 });
  return items.filter((i) => i.status !== 'done' && i.status !== 'cancelled').reduce((a, i) => a + (i.story_points ?? 0), 0);
}

describe('burndown', () => {
  it('matches a replay of each day’s changes, carries quiet days, and is frozen at completion', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at(0, 8);
    const org = await newOrganisation();
    const caller: Principal = { orgId: org.orgId, accountId: org.admin.id, role: 'admin', tokenHash: '' };
    const project = await createProject(caller, { name: 'Burn', prefix: randomPrefix() });
    const sprint = await createSprint(caller, project.id, { name: 'S', start_date: day(0), end_date: day(9) });
    const inSprint = { projectId: project.id, sprintId: sprint.id };
    const next = await createSprint(caller, project.id, { name: 'Next' });

    // Planning, the day it starts: changes before activation belong to the commitment.
    const a = await createIssue(caller, inSprint, { title: 'a', story_points: 5 });
    const b = await createIssue(caller, inSprint, { title: 'b', story_points: 3 });
    const c = await createIssue(caller, inSprint, { title: 'c', story_points: 8 });
    await updateIssue(caller, inSprint, c.id, { story_points: 9 });
    at(0, 9);
    await activateSprint(caller, project.id, sprint.id);
    const replay: (number | null)[] = [];

    at(0, 11);
    await updateIssue(caller, inSprint, a.id, { status: 'in_progress' });
    await updateIssue(caller, inSprint, b.id, { status: 'done' });
    replay[0] = await openPointsOf(caller, project.id, sprint.id);
    replay[1] = replay[0]; // a quiet day

    at(2);
    const d = await createIssue(caller, inSprint, { title: 'd', story_points: 2 });
    await updateIssue(caller, inSprint, c.id, { story_points: 6 });
    const backlogIssue = await createIssue(caller, { projectId: project.id, sprintId: null }, { title: 'e', story_points: 4 });
    await updateIssue(caller, { projectId: project.id, sprintId: null }, backlogIssue.id, { sprint_id: sprint.id });
    replay[2] = await openPointsOf(caller, project.id, sprint.id);
    replay[3] = replay[2];

    at(4);
    await updateIssue(caller, inSprint, a.id, { sprint_id: null });
    await updateIssue(caller, inSprint, c.id, { status: 'cancelled' });
    await deleteIssue(caller, inSprint, backlogIssue.id);
    replay[4] = await openPointsOf(caller, project.id, sprint.id);

    at(5, 23);
    await updateIssue(caller, inSprint, d.id, { status: 'done' });
    await updateIssue(caller, inSprint, b.id, { status: 'todo' });
    replay[5] = await openPointsOf(caller, project.id, sprint.id);
    replay[6] = replay[5];

    at(6, 12);
    const ideal = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => Math.round(17 * (1 - i / 9) * 100) / 100);
    const during = await getBurndown(caller, project.id, sprint.id);
    expect(during).toEqual({
      sprint_id: sprint.id,
      status: 'active',
      start_date: day(0),
      end_date: day(9),
      committed_story_points: 17,
      days: ideal.map((line, i) => ({
        date: day(i),
        remaining_story_points: i <= 6 ? replay[i] : null,
        ideal_story_points: line,
      })),
    });
    expect(replay).toEqual([14, 14, 17, 17, 2, 3, 3]);

    // Completed on day 7 with 3 points carried over; edits afterwards change nothing shown.
    at(7);
    await updateIssue(caller, inSprint, d.id, { story_points: 1 });
    replay[7] = await openPointsOf(caller, project.id, sprint.id);
    await completeSprint(caller, project.id, sprint.id, { carry_over: { sprint_id: next.id } });
    const completed = await getBurndown(caller, project.id, sprint.id);
    expect(completed.days.map((x) => x.remaining_story_points)).toEqual([...replay, null, null]);
    expect(completed.status).toBe('completed');
    at(7, 20);
    await updateIssue(caller, inSprint, d.id, { status: 'todo', story_points: 20 });
    at(8);
    await updateIssue(caller, inSprint, d.id, { status: 'done' });
    expect(await getBurndown(caller, project.id, sprint.id)).toEqual(completed);
  }, 60_000);
});

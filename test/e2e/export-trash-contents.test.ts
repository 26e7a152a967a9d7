import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  exportLines as parse,
  exportPages as pages,
  ok,
  orgWithClients,
  randomPrefix,
  useGateway,
  type ApiClient,
} from '../support/api.ts';
import { eventually } from '../support/eventually.ts';
import { importIntoNewOrganisation } from '../support/import-file.ts';
import { heldInTrash, restoreWhole } from '../support/trash.ts';

/**
 * An export and what is in the trash (docs/import-export.md): a sprint, an issue or a project in
 * the trash, and everything it holds, is in no line of an export; asked to include the trash, each
 * is a `trash` line, its item as its own line showed it, followed by a `trash_content` line per
 * thing it holds (its issues in list order, their comments and activity; a project's labels and
 * sprints too), exactly as those lines were before the delete; the same over REST pages of any
 * size; an import skips them all; restored, the export is what it was.
 */

const gateway = useGateway();
const folder = mkdtempSync(join(tmpdir(), 'export-trash-contents-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

type Line = Record<string, any>;

/** The lines of an export but its header and `end` line (which carry the time and the digest). */
const body = async (admin: ApiClient, query = '') => parse(await pages(admin, `/api/v1/export${query}`)).slice(1, -1);

/**
 * Two projects: in `kept`, a sprint of two issues (one commented), a live sprint, and backlog
 * issues (one commented); `gone`, a project with a label, a sprint, issues and a comment. Waits
 * for every issue's history (the change feed writes it after the answers), so that the exports
 * compared are read once it is all there.
 */
async function world(admin: ApiClient) {
  const kept = await ok(admin.post('/api/v1/projects', { project: { name: 'Kept', prefix: randomPrefix() } }));
  const k = `/api/v1/projects/${kept.id}`;
  const sprint = await ok(admin.post(`${k}/sprints`, { sprint: { name: 'To trash' } }));
  const s = `${k}/sprints/${sprint.id}`;
  const inSprint = [
    await ok(admin.post(`${s}/issues`, { issue: { title: 'First', story_points: 2 } })),
    await ok(admin.post(`${s}/issues`, { issue: { title: 'Second', story_points: 3 } })),
  ];
  await ok(admin.post(`${s}/issues/${inSprint[1].id}/comments`, { comment: { body: 'In the sprint' } }));
  const liveSprint = await ok(admin.post(`${k}/sprints`, { sprint: { name: 'Stays' } }));
  const stays = await ok(admin.post(`${k}/sprints/${liveSprint.id}/issues`, { issue: { title: 'Stays in its sprint' } }));
  const backlog = [
    await ok(admin.post(`${k}/issues`, { issue: { title: 'Backlog one' } })),
    await ok(admin.post(`${k}/issues`, { issue: { title: 'Backlog two, to trash' } })),
    await ok(admin.post(`${k}/issues`, { issue: { title: 'Backlog three' } })),
  ];
  const trashedIssue = backlog[1];
  await ok(admin.post(`${k}/issues/${trashedIssue.id}/comments`, { comment: { body: 'On the trashed issue' } }));

  const gone = await ok(admin.post('/api/v1/projects', { project: { name: 'Gone', prefix: randomPrefix() } }));
  const g = `/api/v1/projects/${gone.id}`;
  await ok(admin.post(`${g}/labels`, { label: { name: 'bug' } }));
  const goneSprint = await ok(admin.post(`${g}/sprints`, { sprint: { name: 'Its sprint' } }));
  const goneIssue = await ok(
    admin.post(`${g}/sprints/${goneSprint.id}/issues`, { issue: { title: 'Its issue', labels: ['bug'] } }),
  );
  const goneBacklog = await ok(admin.post(`${g}/issues`, { issue: { title: 'Its backlog' } }));
  await ok(admin.post(`${g}/sprints/${goneSprint.id}/issues/${goneIssue.id}/comments`, { comment: { body: 'In the project' } }));

  const issues = [...inSprint, stays, ...backlog, goneIssue, goneBacklog];
  await eventually(
    "every issue's issue.created and every comment's comment.created",
    async () => (await body(admin)).filter((l) => l.kind === 'activity'),
    (entries) =>
      issues.every((i) => entries.some((e) => e.issue_id === i.id && e.event === 'issue.created')) &&
      entries.filter((e) => e.event === 'comment.created').length === 3,
  );
  return { kept, sprint, inSprint, backlog, trashedIssue, gone, goneSprint, issues };
}

/** Who an export line belongs to: a project, a sprint, an issue (its own line or one of its contents). */
const issueOf = (l: Line) => (l.kind === 'issue' ? l.id : (l.issue_id ?? undefined));

describe('an export and the trash', () => {
  it('leaves a trashed sprint, issue and project out, whole; with the trash, each is a trash line with its contents as they were; restored, the export is as before', async () => {
    const { admin } = await orgWithClients(gateway);
    const w = await world(admin);
    const before = await body(admin);
    const k = `/api/v1/projects/${w.kept.id}`;
    const sprintIssueIds = new Set(w.inSprint.map((i) => i.id));
    const ofSprint = (l: Line) =>
      (l.project_id === w.kept.id || l.kind === 'comment') &&
      (sprintIssueIds.has(issueOf(l)) || (l.kind === 'activity' && (l.issue_id ?? null) === null && l.sprint_id === w.sprint.id));
    const ofIssue = (l: Line) => issueOf(l) === w.trashedIssue.id && (l.kind !== 'issue' || l.project_id === w.kept.id);
    const projectIds = new Set(before.filter((l) => l.kind === 'issue' && l.project_id === w.gone.id).map((l) => l.id));
    const ofProject = (l: Line) =>
      l.project_id === w.gone.id ||
      (l.kind === 'comment' && projectIds.has(l.issue_id)) ||
      (l.kind === 'project' && l.id === w.gone.id);
    // Comments carry no project: issue ids are per organisation, so an issue id names one issue.
    expect(before.filter(ofSprint).map((l) => l.kind)).toEqual(['issue', 'issue', 'activity', 'activity', 'activity', 'comment']);

    expect((await admin.delete(`${k}/sprints/${w.sprint.id}`)).status).toBe(204);
    expect((await admin.delete(`${k}/issues/${w.trashedIssue.id}`)).status).toBe(204);
    expect((await admin.delete(`/api/v1/projects/${w.gone.id}`)).status).toBe(204);
    // Held: what they keep of each other outside them is taken out (the lines compared do not move then).
    await heldInTrash(admin, `sprint-${w.sprint.id}`);
    await heldInTrash(admin, `project-${w.gone.id}`);

    // Without the trash: nothing of them; every other line as it was, but the counts and places that moved.
    const without = await body(admin);
    expect(without.filter(ofSprint)).toEqual([]);
    expect(without.filter(ofIssue)).toEqual([]);
    expect(without.filter(ofProject)).toEqual([]);
    expect(without.filter((l) => l.kind === 'sprint').map((l) => l.id)).not.toContain(w.sprint.id);
    const identity = (l: Line) => `${l.kind}:${l.id}`;
    const untouched = before.filter(
      (l) => !ofSprint(l) && !ofIssue(l) && !ofProject(l) && !(l.kind === 'sprint' && l.id === w.sprint.id),
    );
    expect(without.map(identity)).toEqual(expect.arrayContaining(untouched.filter((l) => l.kind !== 'activity').map(identity)));
    expect(without.filter((l) => l.kind !== 'activity').length).toBe(untouched.filter((l) => l.kind !== 'activity').length);
    // The backlog issue after the trashed one moved up a place; the rest of every line is the same.
    const third = (ls: Line[]) => ls.find((l) => l.kind === 'issue' && l.id === w.backlog[2].id)!;
    expect(third(without).position).toBe(third(before).position - 1);

    // With the trash: each a trash line, its item as its own line showed it, then what it holds.
    const withTrash = await body(admin, '?include_trash=true');
    expect(withTrash.slice(0, without.length)).toEqual(without);
    const trash = withTrash.slice(without.length);
    const entries = trash.filter((l) => l.kind === 'trash');
    // Newest deletion first.
    expect(entries.map((l) => l.id)).toEqual([`project-${w.gone.id}`, `issue-${w.trashedIssue.id}`, `sprint-${w.sprint.id}`]);
    const contentsOf = (id: string) =>
      trash
        .filter((l) => l.kind === 'trash_content' && l.trash_id === id)
        .map(({ item_kind, item }) => ({ kind: item_kind, ...item }));
    const asBefore = (ls: Line[]) => ls.filter((l) => l.kind !== 'activity');
    // The sprint: its line, then its issues in their places, their comments and activity.
    const sprintEntry = entries.find((l) => l.item_kind === 'sprint')!;
    expect({ kind: 'sprint', ...sprintEntry.item }).toEqual(before.find((l) => l.kind === 'sprint' && l.id === w.sprint.id));
    expect(asBefore(contentsOf(`sprint-${w.sprint.id}`))).toEqual(asBefore(before.filter(ofSprint)));
    expect(contentsOf(`sprint-${w.sprint.id}`)).toEqual(expect.arrayContaining(before.filter(ofSprint)));
    // The issue: in no list (no place), its comment and activity.
    const issueEntry = entries.find((l) => l.item_kind === 'issue')!;
    const { position: _position, ...issueBefore } = before.find((l) => l.kind === 'issue' && l.id === w.trashedIssue.id)!;
    expect(issueEntry.item).toEqual({ ...withoutKind(issueBefore), position: null });
    expect(asBefore(contentsOf(`issue-${w.trashedIssue.id}`))).toEqual(
      asBefore(before.filter(ofIssue).filter((l) => l.kind !== 'issue')),
    );
    expect(contentsOf(`issue-${w.trashedIssue.id}`)).toEqual(
      expect.arrayContaining(before.filter(ofIssue).filter((l) => l.kind !== 'issue')),
    );
    // The project: its line, then its label, sprint, issues in list order, their comment and activity.
    const projectEntry = entries.find((l) => l.item_kind === 'project')!;
    expect({ kind: 'project', ...projectEntry.item }).toEqual(before.find((l) => l.kind === 'project' && l.id === w.gone.id));
    expect(asBefore(contentsOf(`project-${w.gone.id}`))).toEqual(
      asBefore(before.filter(ofProject).filter((l) => l.kind !== 'project')),
    );
    // Counted, and nothing else in the trash part.
    expect(trash.length).toBe(
      entries.length +
        contentsOf(`sprint-${w.sprint.id}`).length +
        contentsOf(`issue-${w.trashedIssue.id}`).length +
        contentsOf(`project-${w.gone.id}`).length,
    );

    // Over REST pages of any size (resumed inside a trashed thing's contents), the same lines.
    const one = parse(await pages(admin, '/api/v1/export?include_trash=true&per_page=1')).slice(1);
    expect(one.slice(0, -1)).toEqual(withTrash);
    expect(one.at(-1)!.counts).toMatchObject({ trash: 3, trash_content: trash.length - 3 });

    // An import skips the trash and all it holds: only what is live comes in.
    const path = join(folder, 'with-trash.jsonl');
    writeFileSync(path, await pages(admin, '/api/v1/export?include_trash=true'));
    const { report, there } = await importIntoNewOrganisation(gateway, path);
    expect(report.errors).toEqual([]);
    const imported = await body(there);
    expect(imported.filter((l) => l.kind === 'project').map((l) => l.name)).toEqual(['Kept']);
    expect(imported.filter((l) => l.kind === 'sprint').map((l) => l.name)).toEqual(['Stays']);
    expect(imported.filter((l) => l.kind === 'issue').map((l) => l.title)).toEqual([
      'Stays in its sprint',
      'Backlog one',
      'Backlog three',
    ]);
    expect(imported.filter((l) => l.kind === 'comment')).toEqual([]);
    expect(await ok(there.get('/api/v1/trash'))).toEqual([]);

    // Restored, every line is as it was (history aside, which the delete and restore add to).
    expect((await admin.post(`/api/v1/trash/issue-${w.trashedIssue.id}/restore`)).status).toBe(200);
    await restoreWhole(admin, `sprint-${w.sprint.id}`);
    await restoreWhole(admin, `project-${w.gone.id}`);
    const after = await body(admin);
    expect(asBefore(after)).toEqual(asBefore(before));
    expect(after).toEqual(expect.arrayContaining(before));
  });
});

const withoutKind = ({ kind: _kind, ...rest }: Line) => rest;

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runScaleBench, table } from '../../tools/bench/scale.ts';
import { useGateway } from '../support/api.ts';

const gateway = useGateway();

describe('the scale bench (npm run bench:scale)', () => {
  it('runs every comparison end to end on tiny sizes and prints a row for each', async () => {
    const sizes = { bigIssues: 6, smallIssues: 2, sprintIssues: 4, smallSprintIssues: 1, reps: 1, completions: 1 };
    const results = await runScaleBench(gateway.baseUrl, sizes);
    expect(results.map((r) => r.what)).toEqual([
      'Read a project',
      'Read the first page of the backlog (10 issues)',
      'Read a backlog issue',
      "Read an issue's comments",
      'Create an issue in a sprint',
      'Move an issue in a backlog of 6',
      'Complete a sprint (open issues to the backlog)',
      'Delete a project into the trash, until its issues are out of every index',
      'Restore it, until it is back whole',
      'Purge it, until its partition is empty',
    ]);
    for (const r of results) {
      expect(r.a.ms, r.what).toBeGreaterThan(0);
      expect(r.b.ms, r.what).toBeGreaterThan(0);
      expect(r.b.calls, r.what).toBeGreaterThan(0);
    }
    expect(table(results).split('\n')).toHaveLength(2 + results.length);

    // tools/bench/README.md shows a full run's table: the same columns and requests (sizes aside).
    const cells = (line: string) => line.split('|').map((cell) => cell.trim());
    const sizeless = (s: string) => s.replace(/\d[\d,]*/g, 'N');
    const doc = readFileSync(new URL('../../tools/bench/README.md', import.meta.url), 'utf8').split('\n');
    const [header] = table(results).split('\n');
    const at = doc.findIndex((line) => line.startsWith('|') && cells(line).join('|') === cells(header!).join('|'));
    expect(at, 'the scale table in tools/bench/README.md').toBeGreaterThan(-1);
    const documented = doc.slice(at + 2, at + 2 + results.length + 1).filter((line) => line.startsWith('|'));
    expect(documented.map((line) => sizeless(cells(line)[1]!))).toEqual(results.map((r) => sizeless(r.what)));
  }, 60_000);
});

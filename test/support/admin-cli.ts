import { join } from 'node:path';
import { repoRoot } from '../../infra/paths.ts';

/**
 * The admin CLI's command line without npm in front, its TypeScript run as `npm start` runs the
 * service's (tools/local/typescript.js): by this Node.js's own type stripping when it has it (22.18
 * and newer), about a quarter of a second less CPU a run than tsx, which an older Node.js 22 loads.
 */
export function adminCommand(args: string[]): [string, string[]] {
  return [
    process.execPath,
    ['--import', join(repoRoot, 'tools/local/typescript.js'), join(repoRoot, 'tools/cli/admin.ts'), ...args],
  ];
}

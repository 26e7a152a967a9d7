import { join } from 'node:path';
import { repoRoot } from '../../infra/paths.ts';

/**
 * The admin CLI's command line without npm in front: on this Node.js's own TypeScript support when
 * it has it (22.18 and newer; the project writes only what it can strip, `erasableSyntaxOnly`),
 * about a quarter of a second less CPU a run than tsx, which an older Node.js 22 runs it with.
 */
export function adminCommand(args: string[]): [string, string[]] {
  const typescript = (process.features as { typescript?: string | false }).typescript;
  return typescript
    ? [process.execPath, ['tools/cli/admin.ts', ...args]]
    : [join(repoRoot, 'node_modules/.bin/tsx'), ['tools/cli/admin.ts', ...args]];
}

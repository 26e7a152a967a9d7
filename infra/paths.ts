import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: handler modules in `lib/routes.ts` are relative to it. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

import { keys } from '../core/keys.ts';
import { goneForGood, trashedKey } from '../core/trash.ts';

/**
 * Whether a project is gone for good: neither there nor in the trash. One TransactGetItems reads
 * both, so a restore (which writes the project and deletes its trash item at once) is never seen
 * half done.
 */
export const projectGoneForGood = (orgId: number, projectId: number): Promise<boolean> =>
  goneForGood(keys.project(orgId, projectId), trashedKey(orgId, 'project', projectId));

import * as z from 'zod';
import { Issue } from '../../schemas/issues.ts';
import { Restored, RestoreStarted, TrashEntry } from '../../schemas/trash.ts';
import { revertActivity } from '../../services/revert.ts';
import { listTrash, restore } from '../../services/trash.ts';
import { listInput } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

/**
 * Undo (docs/trash.md, docs/activity.md): the trash and what comes back from it, and the revert of
 * one change. The same domain calls as the REST routes, so the same rules: admins see and restore
 * the whole trash, members what they deleted; a revert answers 409's message when its fields moved
 * on, and applies only at `expected_version` (the issue's, as `If-Match` over HTTP) when given.
 */
export const undoTools: Tool[] = [
  defineTool(
    'list_trash',
    {
      description: 'Deleted items, newest first.',
      input: z.object({ ...listInput }),
      output: {
        trash: z.array(TrashEntry),
        next_cursor: z.string().nullable(),
      },
      annotations: annotations.read,
    },
    async (caller, { limit, cursor }) => {
      const { page, items } = await listTrash(caller, { page: 1, perPage: limit, cursor });
      return { trash: items, next_cursor: page.nextCursor ?? null };
    },
  ),

  defineTool(
    'restore',
    {
      description: 'Bring back a list_trash item.',
      input: z.object({ id: z.string().min(1).max(64) }),
      output: { restored: z.union([Restored, RestoreStarted]) },
      // Not `annotations.update`: a trashed item never changes, so the tool takes no expected_version.
      annotations: { ...annotations.update },
    },
    async (caller, { id }) => ({ restored: await restore(caller, id) }),
  ),

  defineTool(
    'revert_change',
    {
      description: 'Undo a get_issue_activity entry whose fields hold what it wrote.',
      input: z.object({ activity_id: z.string().min(1).max(200) }),
      output: { issue: Issue },
      annotations: annotations.update,
    },
    async (caller, { activity_id }) => ({ issue: await revertActivity(caller, activity_id) }),
  ),
];

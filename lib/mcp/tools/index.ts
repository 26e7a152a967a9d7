import { accountTools } from './accounts.ts';
import { attachmentTools } from './attachments.ts';
import { batchTools } from './batch.ts';
import { commentTools } from './comments.ts';
import { issueTools } from './issues.ts';
import { labelTools } from './labels.ts';
import { notificationTools } from './notifications.ts';
import { projectTools } from './projects.ts';
import { relationTools } from './relations.ts';
import { searchTools } from './search.ts';
import { sprintTools } from './sprints.ts';
import { subIssueTools } from './sub-issues.ts';
import { undoTools } from './undo.ts';
import { workspaceTools } from './workspace.ts';
import type { Tool } from '../tool.ts';

/** Every tool, in the order `tools/list` shows them (lib/mcp/tool-list.json is rendered from these). */
export const tools: Tool[] = [
  ...workspaceTools,
  ...projectTools,
  ...sprintTools,
  ...issueTools,
  ...batchTools,
  ...subIssueTools,
  ...searchTools,
  ...labelTools,
  ...commentTools,
  ...attachmentTools,
  ...relationTools,
  ...undoTools,
  ...accountTools,
  ...notificationTools,
];

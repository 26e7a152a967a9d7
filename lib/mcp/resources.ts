import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ForbiddenError, NotFoundError } from '../vocabulary/errors.ts';
import type { Principal } from '../model/principal.ts';
import type { Issue } from '../schemas/issues.ts';
import { issueStatuses } from '../schemas/issues.ts';
import type { Connection } from './connection.ts';
import type { NameResolver } from './resolve.ts';

/**
 * MCP resources (docs/mcp.md: Resources and prompts), read on behalf of the caller like the read
 * tools (they need the `read` scope):
 *
 * - `sprint://{project_prefix}/active`: the project's active sprint with its issues by status
 *   (listed: one per project, from one Query of the organisation's projects);
 * - `issue://{issue_number}`: one issue, by number ("APL-12"); not listed (there are too many),
 *   a template the client fills in;
 * - `attachment://{issue_number}/{attachment_id}`: an attachment's file (docs/attachments.md), so
 *   that an agent sees the screenshot and reads the log: an image or a text of at most 1 MB as its
 *   contents (base64 `blob`, or `text`), anything else as JSON with its short-lived `download_url`.
 */

/** What the resources read with, loaded on the first read (lib/mcp/domain.ts). */
const domain = () => import('./domain.ts');

/** Issues a sprint resource shows at most (2 pages of the issue list); `truncated` says when there are more. */
const SPRINT_ISSUES = 200;

const json = (uri: URL, value: unknown): ReadResourceResult => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }],
});

function readable(connection: Connection) {
  if (!connection.allowed.includes('read')) throw new ForbiddenError(connection.refusal('read'));
}

/** An issue as the sprint resource lists it: what a person scans on a board. */
const card = (i: Issue) => ({
  issue_number: i.issue_number,
  title: i.title,
  assignee_id: i.assignee_id,
  story_points: i.story_points,
  priority: i.priority,
  type: i.type,
  labels: i.labels.map((l) => l.name),
  blocked: i.blocked,
});

/** The active sprint of the project `prefix` names, with its issues by status. */
export async function activeSprint(caller: Principal, resolve: NameResolver, prefix: string) {
  const { project_id, sprint_id } = await resolve({ project_id: prefix, sprint_id: 'active' });
  const at = { projectId: project_id, sprintId: sprint_id };
  const { getSprint, listIssues } = await domain();
  const [sprint, first] = await Promise.all([
    getSprint(caller, project_id, sprint_id),
    listIssues(caller, at, { page: 1, perPage: 100 }),
  ]);
  const issues = [...first.items];
  const next = first.page.nextCursor;
  if (next !== undefined && issues.length < SPRINT_ISSUES) {
    issues.push(...(await listIssues(caller, at, { page: 1, perPage: 100, cursor: next })).items);
  }
  const by_status = Object.fromEntries(issueStatuses.map((s) => [s, issues.filter((i) => i.status === s).map(card)] as const));
  return { sprint, issues_by_status: by_status, issues_count: first.total, truncated: issues.length < first.total };
}

export function registerResources(server: McpServer, caller: Principal, connection: Connection, resolve: NameResolver) {
  server.registerResource(
    'active_sprint',
    new ResourceTemplate('sprint://{project_prefix}/active', {
      list: async () => {
        readable(connection);
        const projects = await (await domain()).projectNames(caller.orgId);
        return {
          resources: projects.map((p) => ({
            uri: `sprint://${p.prefix}/active`,
            name: `${p.prefix} active sprint`,
            title: `${p.name}: active sprint`,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Active sprint',
      description: "A project's active sprint with its issues by status.",
      mimeType: 'application/json',
    },
    async (uri, { project_prefix }) => {
      readable(connection);
      return json(uri, await activeSprint(caller, resolve, String(project_prefix)));
    },
  );
  server.registerResource(
    'attachment',
    new ResourceTemplate('attachment://{issue_number}/{attachment_id}', { list: undefined }),
    {
      title: 'Attachment',
      description: "An attachment's file (APL-12/3): an image or text up to 1 MB as contents, else a download link.",
    },
    async (uri, { issue_number, attachment_id }) => {
      readable(connection);
      const id = Number(attachment_id);
      if (!Number.isSafeInteger(id) || id < 1) throw new NotFoundError('Attachment');
      const { attachment, kind, bytes } = await (await domain()).attachmentContent(caller, String(issue_number), id);
      const mimeType = attachment.content_type;
      if (kind === 'image') return { contents: [{ uri: uri.href, mimeType, blob: bytes!.toString('base64') }] };
      if (kind === 'text') return { contents: [{ uri: uri.href, mimeType, text: bytes!.toString('utf8') }] };
      return json(uri, attachment);
    },
  );
  server.registerResource(
    'issue',
    new ResourceTemplate('issue://{issue_number}', { list: undefined }),
    { title: 'Issue', description: 'One issue, by number (APL-12).', mimeType: 'application/json' },
    async (uri, { issue_number }) => {
      readable(connection);
      return json(uri, await (await domain()).findIssueByNumber(caller, String(issue_number)));
    },
  );
}

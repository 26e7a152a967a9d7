/**
 * What the MCP server runs on a call: every tool's code, what resources and prompts read, the name
 * resolver, and through them the services and the data layer with the DynamoDB client. The server
 * (lib/mcp/server.ts) loads this with `import()` on the first call that needs it; its own part
 * (the SDK, zod, the tool list rendered at build time, lib/mcp/tool-list.json) answers `initialize`
 * and `tools/list` without it. The function's bundle is split there (infra/bundling.ts: `splitEntries`).
 */
export { tools } from './tools/index.ts';
export { nameResolver } from './resolve.ts';
export { projectNames, sprintNames } from '../db/projects/names.ts';
export { findIssueByNumber } from '../services/issue-lookup.ts';
export { attachmentContent } from '../services/attachments.ts';
export { listIssues } from '../services/issues.ts';
export { getSprint, getSprintReport, getVelocity } from '../services/sprints.ts';

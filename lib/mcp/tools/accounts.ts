import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { listAccounts, me } from '../../domain/accounts.ts';
import type { Principal } from '../../domain/principal.ts';
import { Account, Organisation } from '../../schemas/accounts.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { addTool, annotations } from '../tool.ts';

export function registerAccountTools(server: McpServer, caller: Principal): void {
  addTool(
    server,
    'get_me',
    {
      title: 'Who am I',
      description:
        'The account this token belongs to (id, name, role) and its organisation. Use the account id to assign issues to yourself.',
      input: z.object({}),
      output: { account: Account, organisation: Organisation },
      annotations: annotations.read,
    },
    async () => me(caller),
  );

  addTool(
    server,
    'list_accounts',
    {
      title: 'List accounts',
      description: "List the organisation's accounts (id, name, e-mail, role): the ids to use as assignee_id or sprint_lead_id.",
      input: z.object(listInput),
      output: { accounts: z.array(Account), ...listInfo },
      annotations: annotations.read,
    },
    async (args) => {
      const { items, ...info } = await listThrough(args, (page) => listAccounts(caller, page));
      return { accounts: items, ...info };
    },
  );
}

import * as z from 'zod';
import { listAccounts, me } from '../../domain/accounts.ts';
import { Account, Organisation } from '../../schemas/accounts.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

export const accountTools: Tool[] = [
  defineTool(
    'get_me',
    {
      title: 'Who am I',
      description:
        'The account this token belongs to (id, name, role) and its organisation. Use the account id to assign issues to yourself.',
      input: z.object({}),
      output: { account: Account, organisation: Organisation },
      annotations: annotations.read,
    },
    async (caller) => me(caller),
  ),

  defineTool(
    'list_accounts',
    {
      title: 'List accounts',
      description: "List the organisation's accounts (id, name, e-mail, role): the ids to use as assignee_id or sprint_lead_id.",
      input: z.object(listInput),
      output: { accounts: z.array(Account), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, args) => {
      const { items, ...info } = await listThrough(args, (page) => listAccounts(caller, page));
      return { accounts: items, ...info };
    },
  ),
];

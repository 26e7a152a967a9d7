import * as z from 'zod';
import { listAccounts, me } from '../../services/accounts.ts';
import { Account, Organisation } from '../../schemas/accounts.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

export const accountTools: Tool[] = [
  defineTool(
    'get_me',
    {
      description: 'Your account and organisation.',
      input: z.object({}),
      output: { account: Account, organisation: Organisation },
      annotations: annotations.read,
    },
    async (caller) => me(caller),
  ),

  defineTool(
    'list_accounts',
    {
      description: "The organisation's accounts.",
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

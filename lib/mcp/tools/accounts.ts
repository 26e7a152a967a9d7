import * as z from 'zod';
import { listAccounts } from '../../services/accounts.ts';
import { Account } from '../../schemas/accounts.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

/** The organisation's accounts; who you are is get_workspace's `me` and `organisation`. */
export const accountTools: Tool[] = [
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

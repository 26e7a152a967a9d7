import * as z from 'zod';
import { listNotifications, markNotificationsRead } from '../../services/notifications.ts';
import { Notification } from '../../schemas/notifications.ts';
import { filteredPage, listInput } from '../list.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

/** The caller's inbox (docs/notifications.md): what concerns it, and marking it read. */
export const notificationTools: Tool[] = [
  defineTool(
    'get_inbox',
    {
      description: 'Your notifications, newest first.',
      input: z.object({ unread: z.boolean().optional(), ...listInput }),
      output: { notifications: z.array(Notification), total: z.number().int(), next_cursor: z.string().nullable() },
      annotations: annotations.read,
    },
    async (caller, args) => {
      const query = { unread: args.unread ? ('true' as const) : undefined };
      const page = { page: 1, perPage: args.limit, cursor: args.cursor };
      const { items, ...info } = filteredPage(await listNotifications(caller, page, query));
      return { notifications: items, ...info };
    },
  ),
  defineTool(
    'mark_read',
    {
      description: 'Mark get_inbox ids read, or all.',
      input: z.object({ ids: z.array(z.string().max(64)).optional(), all: z.boolean().optional() }),
      output: { marked: z.number().int(), more: z.boolean() },
      annotations: annotations.update,
    },
    async (caller, args) => markNotificationsRead(caller, { notifications: args.ids, all: args.all === true ? true : undefined }),
  ),
];

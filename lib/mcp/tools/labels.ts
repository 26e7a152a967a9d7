import * as z from 'zod';
import { createLabel, listLabels } from '../../services/labels.ts';
import { Label, LabelCreateFields } from '../../schemas/labels.ts';
import { meta } from '../../schemas/zod.ts';
import { listInfo, listInput, listThrough } from '../list.ts';
import { projectRef } from '../resolve.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

const one = { label: Label };

/**
 * A project's label catalogue: what an agent needs to label issues (create_issue and update_issue
 * take `labels` by name or id). Renaming and deleting labels stay with the REST API: rare catalogue
 * upkeep, not worth the bytes every conversation pays for the tool list.
 */
export const labelTools: Tool[] = [
  defineTool(
    'list_labels',
    {
      description: "A project's labels, oldest first.",
      input: z.object({ project_id: projectRef(), ...listInput }),
      output: { labels: z.array(Label), ...listInfo },
      annotations: annotations.read,
    },
    async (caller, { project_id, ...args }) => {
      const { items, ...info } = await listThrough(args, (page) => listLabels(caller, project_id, page));
      return { labels: items, ...info };
    },
  ),

  defineTool(
    'create_label',
    {
      description: 'Create a label in a project.',
      input: z.object({
        project_id: projectRef(),
        ...LabelCreateFields.shape,
        // Grey when absent: an agent need not be told (tools/list pays for every byte).
        color: meta(LabelCreateFields.shape.color, { description: undefined }),
      }),
      output: one,
      annotations: annotations.create,
    },
    async (caller, { project_id, ...input }) => ({ label: await createLabel(caller, project_id, input) }),
  ),
];

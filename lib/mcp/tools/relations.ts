import * as z from 'zod';
import { addRelation, listRelations, removeRelation, relationIdPattern } from '../../services/relations.ts';
import { NotFoundError } from '../../vocabulary/errors.ts';
import { Relation, relationTypes } from '../../schemas/relations.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

// Short schemas: every byte of tools/list is paid in every conversation (a malformed key is not found).
const issueKey = z.string();

export const relationTools: Tool[] = [
  defineTool(
    'list_relations',
    {
      description: "An issue's relations (type, other issue).",
      input: z.object({ issue_key: issueKey }),
      output: { relations: z.array(Relation) },
      annotations: annotations.read,
    },
    async (caller, args) => ({ relations: await listRelations(caller, args.issue_key) }),
  ),

  defineTool(
    'add_relation',
    {
      description: 'Relate two issues; the other shows the inverse type.',
      input: z.object({ issue_key: issueKey, type: z.enum(relationTypes), other_issue_key: issueKey }),
      output: { relation: Relation },
      annotations: annotations.create,
    },
    async (caller, args) => ({
      relation: await addRelation(caller, args.issue_key, { type: args.type, issue_key: args.other_issue_key }),
    }),
  ),

  defineTool(
    'delete_relation',
    {
      description: 'Remove a relation from both issues.',
      input: z.object({ issue_key: issueKey, relation_id: z.string() }),
      output: { deleted: z.literal(true), relation_id: z.string() },
      annotations: annotations.delete,
    },
    async (caller, args) => {
      if (!relationIdPattern.test(args.relation_id)) throw new NotFoundError('Relation');
      await removeRelation(caller, args.issue_key, args.relation_id);
      return { deleted: true as const, relation_id: args.relation_id };
    },
  ),
];

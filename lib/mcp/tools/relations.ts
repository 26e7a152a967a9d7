import * as z from 'zod';
import { addRelation, listRelations, removeRelation, relationIdPattern } from '../../domain/relations.ts';
import { NotFoundError } from '../../domain/errors.ts';
import { issueKeyPattern, Relation, RelationType } from '../../schemas/relations.ts';
import { annotations, defineTool, type Tool } from '../tool.ts';

const issueKey = () =>
  z.string().regex(issueKeyPattern, { error: 'must be an issue key such as APL-7' }).describe('An issue key, e.g. APL-12.');

export const relationTools: Tool[] = [
  defineTool(
    'list_relations',
    {
      description:
        "An issue's relations (blocks, blocked_by, relates_to, duplicates, duplicated_by), each with the other issue; at most 50.",
      input: z.object({ issue_key: issueKey() }),
      output: { relations: z.array(Relation) },
      annotations: annotations.read,
    },
    async (caller, args) => ({ relations: await listRelations(caller, args.issue_key) }),
  ),

  defineTool(
    'add_relation',
    {
      description:
        'Relate an issue to another issue of the organisation (any project); the other shows the inverse type. ' +
        '`blocks`/`blocked_by` make the blocked issue `blocked` while the blocker is open.',
      input: z.object({
        issue_key: issueKey(),
        type: RelationType,
        other_issue_key: issueKey().describe('The other issue, e.g. APL-7.'),
      }),
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
      description: 'Remove a relation (by its id, from list_relations) from both of its issues.',
      input: z.object({ issue_key: issueKey(), relation_id: z.string().describe('e.g. 12-blocks-7') }),
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

import * as z from 'zod';
import { dateTime, wrapped } from './common.ts';
import { issueKeyPattern } from '../vocabulary/ids.ts';
import { relationTypes } from '../vocabulary/relation-types.ts';

/** An issue key as `GET /issues/{issue_key}` takes it ("APL-7", any case). */
export { issueKeyPattern };

export { relationInverse, relationTypes } from '../vocabulary/relation-types.ts';

export const RelationType = z.enum(relationTypes, { error: `must be one of: ${relationTypes.join(', ')}` }).meta({
  id: 'RelationType',
  description:
    'Seen from the issue the path names; the other issue shows the inverse: `blocks`/`blocked_by`, ' +
    '`duplicates`/`duplicated_by`, `relates_to` (its own inverse).',
});

export type RelationType = z.infer<typeof RelationType>;

export const RelationCreateFields = z
  .object(
    {
      type: RelationType,
      issue_key: z
        .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
        .regex(issueKeyPattern, { error: 'must be an issue key such as APL-7' })
        .meta({ description: 'The other issue: any issue of the organisation, in any project.' }),
    },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  )
  .meta({ id: 'RelationCreate' });
export type RelationCreate = z.output<typeof RelationCreateFields>;

export const Relation = z
  .object({
    id: z.string().meta({
      description: 'The same on both issues: it names the two issue ids and the kind (`12-blocks-7`: issue 12 blocks issue 7).',
      example: '12-blocks-7',
    }),
    type: RelationType,
    issue: z
      .object({
        id: z.number().int(),
        issue_number: z.string().meta({ example: 'APL-7' }),
        project_id: z.number().int(),
      })
      .meta({ description: 'The other issue (GET /issues/{issue_key} for the rest of it).' }),
    created_at: dateTime(),
  })
  .meta({ id: 'Relation' });
export type Relation = z.infer<typeof Relation>;

export const RelationCreateBody = wrapped('relation', RelationCreateFields, Relation);

export const RelationList = z.array(Relation).meta({ id: 'RelationList' });

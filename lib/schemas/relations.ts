import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { dateTime, wrapped } from './common.ts';
import { issueKeyPattern } from '../vocabulary/ids.ts';
import { relationTypes } from '../vocabulary/relation-types.ts';

/** An issue key as `GET /issues/{issue_key}` takes it ("APL-7", any case). */
export { issueKeyPattern };

export { relationInverse, relationTypes } from '../vocabulary/relation-types.ts';

export const RelationType = meta(z.enum(relationTypes, { error: `must be one of: ${relationTypes.join(', ')}` }), {
  id: 'RelationType',
  description:
    'Seen from the issue the path names; the other issue shows the inverse: `blocks`/`blocked_by`, ' +
    '`duplicates`/`duplicated_by`, `relates_to` (its own inverse).',
});

export type RelationType = z.infer<typeof RelationType>;

export const RelationCreateFields = meta(
  z.object(
    {
      type: RelationType,
      issue_key: meta(
        z
          .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
          .check(z.regex(issueKeyPattern, { error: 'must be an issue key such as APL-7' })),
        { description: 'The other issue: any issue of the organisation, in any project.' },
      ),
    },
    { error: (iss) => (iss.input === undefined ? 'is required' : 'must be an object') },
  ),
  { id: 'RelationCreate' },
);
export type RelationCreate = z.output<typeof RelationCreateFields>;

export const Relation = meta(
  z.object({
    id: meta(z.string(), {
      description: 'The same on both issues: it names the two issue ids and the kind (`12-blocks-7`: issue 12 blocks issue 7).',
      example: '12-blocks-7',
    }),
    type: RelationType,
    issue: meta(
      z.object({
        id: z.number().check(z.int()),
        issue_number: meta(z.string(), { example: 'APL-7' }),
        project_id: z.number().check(z.int()),
      }),
      { description: 'The other issue (GET /issues/{issue_key} for the rest of it).' },
    ),
    created_at: dateTime(),
  }),
  { id: 'Relation' },
);
export type Relation = z.infer<typeof Relation>;

export const RelationCreateBody = wrapped('relation', RelationCreateFields, Relation);

export const RelationList = meta(z.array(Relation), { id: 'RelationList' });

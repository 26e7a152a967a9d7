import * as z from 'zod/mini';
import { meta } from './zod.ts';
import {
  activityIdPattern,
  deliveryIdPattern,
  issueKeyPattern,
  jobIdPattern,
  relationIdPattern,
  trashIdPattern,
} from '../vocabulary/ids.ts';

/**
 * The path parameters of the route table, by name: what the service takes. Anything else names
 * nothing (404): the handlers check the patterns of lib/vocabulary/ids.ts, which the OpenAPI document
 * states from here.
 */

const integerId = (name: string) =>
  meta(z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(Number.MAX_SAFE_INTEGER)), {
    param: { description: `\`${name}\`: a positive integer id.` },
  });

const text = (name: string, pattern: RegExp, description: string, format?: string) =>
  meta(z.string().check(z.regex(pattern)), {
    ...(format ? { format } : {}),
    param: { description: `\`${name}\`: ${description}` },
  });

/** The schema of a path parameter, by its name in the route table. */
export function pathParam(name: string): z.ZodMiniType {
  switch (name) {
    case 'issue_key':
      return text(name, issueKeyPattern, 'an issue key such as APL-42, in any case.');
    case 'relation_id':
      return text(name, relationIdPattern, 'a relation as issues show it, such as `65-blocks-66` (issue 65 blocks issue 66).');
    case 'job_id':
      return text(name, jobIdPattern, 'the id of an import job (a UUID), as its creation answered it.', 'uuid');
    case 'activity_id':
      return text(name, activityIdPattern, 'an activity entry as the activity lists show it, such as `12-345-49602745…`.');
    case 'delivery_id':
      return text(name, deliveryIdPattern, 'the id of a delivery (`msg_…`), as the list of deliveries shows it.');
    case 'trash_id':
      return text(name, trashIdPattern, 'a trash item, as the trash lists it, such as `webhook-12`.');
    default:
      return integerId(name);
  }
}

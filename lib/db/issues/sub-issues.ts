import type { IssueStatus } from '../../schemas/issues.ts';
import { attribute, itemKind, type Fields } from '../core/item.ts';
import { pointedIssue } from './issue-lookup.ts';
import { keys, orgPk, subIssuesPrefix } from '../core/keys.ts';
import { queryPages } from '../core/query.ts';
import { batchGet } from '../core/transactions.ts';
import type { IssueItem } from './issue-item.ts';

/**
 * The children index of `GET /issues/{key}/sub_issues` (the `sub-issue-index` derivation,
 * lib/model/derivations.ts): one record per child, `ISSUEKEY#<parent number>#SUB#<child id>` in
 * the organisation's partition, right after the parent's number pointer (`ISSUEKEY#<number>`), so
 * one consistent Query reads the pointer and every child in child-id order. A parent has at most
 * 100 children: the whole list is one Query call.
 *
 * A number may have records of an issue deleted before a new project took the prefix (its cascade
 * pending): each record names its parent's project and id, and only those of the issue the pointer
 * names are its children.
 */

/** A child's record in its parent's index, declared once (lib/db/core/item.ts). */
export const subIssueItem = itemKind({
  type: 'sub_issue',
  key: keys.subIssue.placement,
  about: 'child i of issue X-n (its sub-issues list)',
  attributes: {
    parentId: attribute.number('parent_id'),
    projectId: attribute.number('project_id'),
    issueId: attribute.number('issue_id'),
    issueNumber: attribute.string('issue_number'),
    title: attribute.string('title'),
    sprintId: attribute.nullableNumber('sprint_id'),
    status: attribute.oneOf<IssueStatus>('status'),
    storyPoints: attribute.nullableNumber('story_points'),
    assigneeId: attribute.nullableNumber('assignee_id'),
  },
});

/** A child as its record shows it. */
export type SubIssueRecord = Fields<typeof subIssueItem.attributes>;

const recordOf = (item: object): SubIssueRecord => subIssueItem.decode(item);

/**
 * The number's pointer and the children of the issue it points to, in child-id order: one
 * consistent Query (the pointer's key sorts just before its children's).
 */
export async function pointerWithChildren(
  orgId: number,
  number: string,
): Promise<{ pointer: { projectId: number; issueId: number } | undefined; children: SubIssueRecord[] }> {
  const pointerSk = keys.issueKey(orgId, number).SK;
  const found: Record<string, unknown>[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':from': pointerSk, ':to': `${subIssuesPrefix(number)}\uffff` },
    },
    {},
    (page) => {
      found.push(...page);
    },
  );
  const head = found.find((item) => item.SK === pointerSk);
  const pointer = head && pointedIssue(head);
  const children = pointer
    ? found
        .filter((item) => item.type === subIssueItem.type)
        .map(recordOf)
        .filter((r) => r.projectId === pointer.projectId && r.parentId === pointer.issueId)
    : [];
  return { pointer, children };
}

/** The children of one issue (by its number and id), in child-id order: one Query. */
export async function childrenOf(
  orgId: number,
  parent: { projectId: number; issueId: number; number: string },
): Promise<SubIssueRecord[]> {
  const out: SubIssueRecord[] = [];
  await queryPages(
    {
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': orgPk(orgId), ':prefix': subIssuesPrefix(parent.number) },
    },
    {},
    (page) => {
      for (const item of page) {
        const r = recordOf(item);
        if (r.projectId === parent.projectId && r.parentId === parent.issueId) out.push(r);
      }
    },
  );
  return out;
}

/** Issues of one project by id, consistently (one BatchGet; over 100 keys, parallel calls); missing ones left out. */
export async function issuesById(orgId: number, projectId: number, ids: number[]): Promise<IssueItem[]> {
  if (ids.length === 0) return [];
  const found = await batchGet(ids.map((id) => keys.issue(orgId, projectId, id)));
  return found.filter((item): item is Record<string, unknown> => item !== undefined) as unknown as IssueItem[];
}

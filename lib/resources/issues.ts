import type { Issue } from '../schemas/issues.ts';
import type { Label } from '../schemas/labels.ts';
import { declaredAttachmentOf, type StoredAttachment } from '../db/attachments/attachments.ts';
import { issueItem } from '../db/issues/issue-item.ts';
import { catalogueOf, issueLabels, labelItem } from '../db/issues/labels.ts';
import { fieldsOf } from '../db/projects/custom-fields.ts';
import { workflowOf } from '../db/projects/workflow.ts';
import { shownValues } from '../model/custom-fields.ts';
import type { ProjectRules } from '../model/issue-plans.ts';
import { withVersion } from '../db/core/versions.ts';
import { statusAnswer } from '../model/workflow.ts';
import { linkStates } from '../vocabulary/github.ts';

/**
 * The REST API's issues, labels and attachments, made from
 * stored items as their declarations decode them (lib/db): lib/db answers what is stored, and the
 * use cases, the change feed and the export show it through these.
 */

const linkState = (state: string | null): Issue['links']['pull_request_state'] =>
  (linkStates as readonly string[]).includes(state ?? '') ? (state as Issue['links']['pull_request_state']) : null;

/** What an issue's answer reads of its project item: its label catalogue, its workflow, its custom fields. */
export const rulesOf = (project: object | undefined): ProjectRules => ({
  catalogue: catalogueOf(project),
  workflow: workflowOf(project),
  fields: fieldsOf(project),
});

/**
 * The resource from a stored issue; `position` is its place in its list (the stored key is not
 * shown). Its labels are shown through `catalogue`, the one on its project item (lib/db/issues/labels.ts),
 * and its state through `workflow`, also on its project item (lib/db/projects/states.ts; none: its category).
 */
export const toIssue = (record: object, position: number, rules: Partial<ProjectRules> = {}): Issue => {
  const { catalogue = new Map(), workflow, fields = [] } = rules;
  const i = issueItem.decode(record);
  return withVersion(
    {
      id: i.id,
      project_id: i.projectId,
      sprint_id: i.sprintId,
      issue_number: i.number,
      source_key: i.sourceKey,
      title: String(i.title),
      description: i.description,
      ...statusAnswer(workflow, i.stateId, i.status, i.openBlockers > 0),
      story_points: i.storyPoints,
      position,
      assignee_id: i.assigneeId,
      priority: i.priority,
      type: i.type,
      due_date: i.dueDate,
      parent_id: i.parentId,
      sub_issues_summary: {
        total: i.subIssuesTotal,
        done: i.subIssuesDone,
        story_points: i.subIssuesPoints,
        completed_story_points: i.subIssuesDonePoints,
      },
      labels: issueLabels(i.labelIds, catalogue),
      custom_fields: shownValues(i.customFields, fields),
      started_at: i.startedAt,
      completed_at: i.completedAt,
      created_at: String(i.createdAt),
      updated_at: i.updatedAt,
      blocked: i.openBlockers > 0,
      links: {
        count: i.linkCount,
        pull_request_state: linkState(i.prState),
        pull_requests: { open: i.prsOpen, draft: i.prsDraft, merged: i.prsMerged, closed: i.prsClosed },
      },
      watchers: { count: i.watcherIds.length, account_ids: i.watcherIds },
    },
    record,
  );
};

export const toLabel = (record: object): Label => {
  const l = labelItem.decode(record);
  return withVersion(
    {
      id: l.id,
      project_id: l.projectId,
      name: l.name,
      color: l.color,
      description: l.description,
      created_at: l.createdAt,
      updated_at: l.updatedAt,
    },
    record,
  );
};

/**
 * An attachment as the REST API shows it, from a stream image, without a download URL (an event
 * outlives any URL: GET the attachment for a fresh one); undefined for an image that is no
 * attachment a client declared.
 */
export function attachmentOfImage(img: Record<string, unknown>) {
  const a = declaredAttachmentOf(img);
  return a && attachmentAnswer(a);
}

/** An attachment as the REST API shows it, with the download URL given (a ready one's, signed per answer) or none. */
export function attachmentAnswer(a: StoredAttachment, download?: { url: string; expiresAt: string }) {
  return {
    id: a.id,
    issue_id: a.issueId,
    comment_id: a.commentId,
    name: a.name,
    content_type: a.contentType,
    size: a.size,
    sha256: a.sha256,
    status: a.status,
    uploader_id: a.uploaderId,
    uploader_name: a.uploaderName,
    created_at: a.createdAt,
    download_url: download?.url ?? null,
    download_expires_at: download?.expiresAt ?? null,
  };
}

import { deleteNote, forgetNotified, moveNote, notesAbout, notifiedAccounts } from '../db/organisation/inbox.ts';

/**
 * An issue's notifications on its trips (docs/notifications.md): hidden while it is in the trash (on
 * its own, or with its sprint or project), shown again on its restore, deleted with its purge. The
 * accounts notified about it are read from the record kept beside it; each inbox's notifications
 * of the issue are then moved (or deleted) one by one, each on condition, so a stream record or a
 * cascade page worked again moves nothing twice.
 */

type IssueRef = { projectId: number; issueId: number };

/** Hides (or shows) an issue's notifications in the inboxes of `accountIds`. */
export async function setIssueNotificationsHidden(orgId: number, issue: IssueRef, accountIds: number[], hidden: boolean) {
  await Promise.all(
    accountIds.map(async (accountId) => {
      for (const item of await notesAbout(orgId, accountId, issue)) await moveNote(orgId, accountId, item, hidden);
    }),
  );
}

/**
 * The notifications of a page of a sprint's or project's issues, hidden as it goes to the trash or
 * shown as it comes back (lib/jobs/container-trash.ts): one BatchGetItem of who was notified about them.
 */
export async function setNotificationsHiddenOf(orgId: number, issues: IssueRef[], hidden: boolean) {
  const notified = await notifiedAccounts(orgId, issues);
  await Promise.all(issues.map((issue, i) => setIssueNotificationsHidden(orgId, issue, notified[i]!, hidden)));
}

/** Deletes an issue's notifications for good (its purge, or a cascade's removal), then the record of who was notified. */
export async function deleteIssueNotifications(orgId: number, issue: IssueRef, accountIds: number[]): Promise<void> {
  await Promise.all(
    accountIds.map(async (accountId) => {
      for (const item of await notesAbout(orgId, accountId, issue)) await deleteNote(orgId, accountId, item);
    }),
  );
  await forgetNotified(orgId, issue);
}

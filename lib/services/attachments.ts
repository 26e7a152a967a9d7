/**
 * Attachments (docs/attachments.md): a file is declared (`createAttachment`: a pending attachment
 * and a pre-signed upload form), posted by the client straight to S3, then checked
 * (`completeAttachment`: its size, type and checksum as S3 holds them) and `ready`. Reads hand out
 * short-lived pre-signed download URLs. Every read and write finds the issue by its key in the
 * caller's organisation first: another organisation's attachment is 404 everywhere.
 */
import { createHash, randomBytes } from 'node:crypto';

import { config } from '../config.ts';

import { getAccountItem } from '../db/organisation/accounts.ts';

import * as store from '../db/attachments/attachments.ts';
import type { Readable } from 'node:stream';
import {
  attachmentObjectKey,
  copyObject,
  deleteObjects,
  headObject,
  postUploadForm,
  putObject,
  readObject,
  signDownloadUrl,
  signUploadForm,
  stagingObjectKey,
} from '../aws/objects.ts';

import type { AttachmentRefusal } from '../db/core/refusals.ts';
import { nextId } from '../db/core/sequences.ts';

import { isRefused, STALE_ATTEMPTS, type GuardedItem } from '../db/core/transactions.ts';

import { issueItem } from '../db/issues/issue-item.ts';

import { commentAuthorOf, issueSprintNow, sprintExists } from '../db/comments/comments.ts';

import { getTrashed } from '../db/core/trash.ts';

import { issueOfNumber } from '../db/issues/issue-lookup.ts';

import { getIssueFamily } from '../db/issues/issues.ts';

import { dispositionOf, isShown, mcpKindOf, sha256Base64, sha256Hex } from '../model/attachments.ts';

import { ATTACHMENT_LIMITS } from '../vocabulary/attachments.ts';

import type { Principal } from '../model/principal.ts';
import type { Attachment, AttachmentCreate, AttachmentWithUpload } from '../schemas/attachments.ts';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  TransitionError,
  UnauthorizedError,
  ValidationError,
} from '../vocabulary/errors.ts';

import { explainRefusal, projectNotThere, type Meanings } from './refusals.ts';
import { attachmentAnswer } from '../../lib/resources/issues.ts';

/** An attachment as answered: with a fresh download URL once ready. */
async function toAttachment(a: store.StoredAttachment): Promise<Attachment> {
  const download =
    a.status === 'ready'
      ? await signDownloadUrl(a.objectKey, {
          seconds: config().attachments.downloadSeconds,
          disposition: dispositionOf(a.name, a.contentType),
        })
      : undefined;
  return attachmentAnswer(a, download);
}

async function uploaderNameOf(caller: Principal): Promise<string> {
  if (caller.name !== undefined) return caller.name;
  const account = await getAccountItem(caller.orgId, caller.accountId);
  if (!account) throw new UnauthorizedError('The account of this token no longer exists');
  return account.name;
}

/**
 * The issue of `issueKey` in the caller's organisation, while its project and its sprint (if it is
 * in one) exist: 404 naming the key otherwise. The key's pointer, then the project and the issue
 * in one BatchGet, then, for an issue in a sprint, the sprint. With `alongside` (what the caller
 * reads of the issue: its attachments, a comment's author) read in the same round trip as the
 * issue: the key's pointer names where both live.
 */
async function visibleIssueWith<T>(
  caller: Principal,
  issueKey: string,
  alongside: (projectId: number, issueId: number) => Promise<T>,
): Promise<{
  issue: { project_id: number; id: number; sprint_id: number | null };
  found: T;
  shown: (a: store.StoredAttachment) => boolean;
}> {
  const number = issueKey.toUpperCase();
  const missing = () => new NotFoundError(`Issue ${number}`);
  const pointer = await issueOfNumber(caller.orgId, number);
  if (!pointer) throw missing();
  const [{ project, issue }, found] = await Promise.all([
    getIssueFamily(caller.orgId, pointer.projectId, [], pointer.issueId),
    alongside(pointer.projectId, pointer.issueId),
  ]);
  if (!project || !issue || issue.issue_number !== number) throw missing();
  const sprintId = issue.sprint_id ?? null;
  if (sprintId !== null && !(await sprintExists(caller.orgId, pointer.projectId, sprintId))) throw missing();
  // The attachments of its comments in the trash are kept for their restore, in no answer.
  const inTrash = issueItem.field(issue, 'commentsWithFilesInTrash');
  return {
    issue: { project_id: pointer.projectId, id: pointer.issueId, sprint_id: sprintId },
    found,
    shown: (a) => isShown(a, inTrash),
  };
}

/** Declares a file on an issue (or on one of its comments: `comment_id`), answered with its upload form. */
export async function createAttachment(
  caller: Principal,
  issueKey: string,
  input: AttachmentCreate,
): Promise<AttachmentWithUpload> {
  const limits = config().attachments;
  if (input.size > limits.maxFileBytes) {
    throw new ValidationError([`size must be at most ${limits.maxFileBytes} bytes (the largest file an attachment may have)`]);
  }
  // The id and the uploader's name beside the issue's lookup: none depends on another.
  const [issue, id, uploaderName] = await Promise.all([
    issueToAttachTo(caller, issueKey, input.comment_id ?? undefined),
    nextId(caller.orgId, 'attachment'),
    uploaderNameOf(caller),
  ]);
  const stored: store.StoredAttachment = {
    id,
    orgId: caller.orgId,
    projectId: issue.project_id,
    issueId: issue.id,
    commentId: input.comment_id ?? null,
    name: input.name,
    contentType: input.content_type,
    size: input.size,
    sha256: input.sha256 ?? null,
    status: 'pending',
    objectKey: attachmentObjectKey(caller.orgId, issue.project_id, issue.id, id),
    // This declaration's own key for its form (docs/attachments.md: a form posted late lands where nothing counts it).
    stagingKey: stagingObjectKey(caller.orgId, id, randomBytes(16).toString('hex')),
    uploaderId: caller.accountId,
    uploaderName,
    createdAt: new Date().toISOString(),
    inTrash: false,
    trashedAt: null,
    trashedInSprint: null,
    reserved: true,
  };
  try {
    await store.insertAttachment(stored, limitsOf(limits));
  } catch (err) {
    throw await createRefusal(err, stored);
  }
  const form = await signUploadForm({
    key: stored.stagingKey!,
    contentType: stored.contentType,
    size: stored.size,
    sha256Base64: stored.sha256 && sha256Base64(stored.sha256),
    seconds: limits.uploadSeconds,
  });
  return {
    ...(await toAttachment(stored)),
    upload: { method: 'POST', url: form.url, fields: form.fields, expires_at: form.expiresAt },
  };
}

/**
 * `visibleIssueWith`, for a file to attach to it (or to its comment `commentId`): a comment's files are
 * added by its author or an admin (403 for anyone else), so a member's comment is read beside the
 * issue (its author). A comment that is not there is refused by the write (404).
 */
async function issueToAttachTo(caller: Principal, issueKey: string, commentId: number | undefined) {
  const byAuthorOnly = commentId !== undefined && caller.role !== 'admin';
  const { issue, found: authorId } = await visibleIssueWith(caller, issueKey, (projectId, issueId) =>
    byAuthorOnly ? commentAuthorOf(caller.orgId, projectId, issueId, commentId) : Promise.resolve(undefined),
  );
  if (authorId !== undefined && authorId !== caller.accountId) {
    throw new ForbiddenError(`Only the author of comment ${commentId} or an admin may attach files to it`);
  }
  return issue;
}

/**
 * Attaches a small file given whole (an MCP client's inline file): declared with its size and
 * SHA-256, posted to S3 with its own upload form as any client's file is, then completed. If the
 * post or the check fails, the pending attachment is deleted again: nothing half-made stays.
 */
export async function attachFile(
  caller: Principal,
  issueKey: string,
  input: Omit<AttachmentCreate, 'size' | 'sha256'>,
  bytes: Uint8Array,
): Promise<Attachment> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const declared = await createAttachment(caller, issueKey, { ...input, size: bytes.length, sha256 });
  try {
    await postUploadForm(declared.upload, { name: input.name, contentType: input.content_type, bytes });
    return await completeAttachment(caller, issueKey, declared.id);
  } catch (err) {
    await deleteAttachment(caller, issueKey, declared.id).catch(() => undefined);
    throw err;
  }
}

/** The limits a declaration is written within (lib/db/attachments/attachments.ts, `insertAttachment`). */
const limitsOf = (limits: ReturnType<typeof config>['attachments']) => ({
  maxFiles: limits.maxFilesPerIssue,
  maxBytes: limits.maxOrganisationBytes,
  pending: limits.pendingCaps,
});

/**
 * What a refused create means; the issue's count refusal is a 404 only when the issue is gone. A
 * refusal on the organisation's item is its bytes or its pending attachments: its counters say which.
 */
async function createRefusal(err: unknown, a: store.StoredAttachment): Promise<unknown> {
  const { maxFilesPerIssue: maxFiles, maxOrganisationBytes: maxBytes, pendingCaps } = config().attachments;
  const meanings = {
    project: () => new NotFoundError('Project'),
    issue: () => new ValidationError([`issue already has ${maxFiles} attachments, the most it may have`]),
    comment: () => new NotFoundError(`Comment ${a.commentId} on this issue`),
    bytes_limit: () =>
      new ValidationError([`size would take the organisation's attachments past ${maxBytes} bytes, the most it may keep`]),
    pending_limit: () => pendingRefusal('you have', pendingCaps.account),
  } satisfies Partial<Meanings<AttachmentRefusal>>;
  const meaning = explainRefusal(err, meanings);
  if (isRefused(err, 'bytes_limit')) {
    const { organisation } = await store.pendingCounts(a.orgId, a.uploaderId);
    const { files, bytes } = pendingCaps.organisation;
    if (organisation.files >= files || organisation.bytes + a.size > bytes)
      return pendingRefusal('your organisation has', pendingCaps.organisation);
  }
  if (meaning instanceof ValidationError && !(await store.issueExists(a.orgId, a.projectId, a.issueId))) {
    return new NotFoundError('Issue');
  }
  return meaning;
}

/** 429: too many declarations waiting for their files (a cap of a count and bytes), until some complete or expire. */
const pendingRefusal = (who: string, cap: { files: number; bytes: number }) =>
  new RateLimitedError(
    ATTACHMENT_LIMITS.pendingSeconds,
    `Too many uploads pending: ${who} ${cap.files} attachments (or ${cap.bytes} bytes) declared and not completed, the most allowed at once; complete or delete them, or wait until they expire (${ATTACHMENT_LIMITS.pendingSeconds / 60} minutes after their declaration)`,
  );

/**
 * The attachment `id` of the issue of `issueKey` (404 when either is not the caller's organisation's,
 * and while its comment is in the trash).
 */
async function visibleAttachment(caller: Principal, issueKey: string, id: number) {
  const { found, shown } = await visibleIssueWith(caller, issueKey, (projectId, issueId) =>
    store.getAttachment(caller.orgId, projectId, issueId, id),
  );
  if (!found || !shown(found)) throw new NotFoundError('Attachment');
  return found;
}

/**
 * An issue's attachments (its comments' included, but those of its comments in the trash), oldest
 * first, each ready one with a fresh download URL.
 */
export async function listAttachments(caller: Principal, issueKey: string): Promise<Attachment[]> {
  const { found, shown } = await visibleIssueWith(caller, issueKey, (projectId, issueId) =>
    store.listAttachments(caller.orgId, projectId, issueId),
  );
  return Promise.all(found.filter(shown).map(toAttachment));
}

export async function getAttachment(caller: Principal, issueKey: string, id: number): Promise<Attachment> {
  return toAttachment(await visibleAttachment(caller, issueKey, id));
}

/** A fresh download URL of a ready attachment (`GET …/attachments/{id}` redirects to it). */
export async function downloadUrl(caller: Principal, issueKey: string, id: number): Promise<string> {
  const found = await visibleAttachment(caller, issueKey, id);
  if (found.status !== 'ready')
    throw new TransitionError('The attachment is pending: its file has not been uploaded and completed yet');
  return (await toAttachment(found)).download_url!;
}

/**
 * Checks the uploaded file against what was declared, as S3 holds it at the form's key
 * (HeadObject): there, the right size and type, and the declared SHA-256 (S3's checksum of the
 * upload; where the store keeps none, the local server, the bytes are read and hashed). Then the
 * file is copied to the attachment's own key (`promote`) and the attachment is `ready`. Completing
 * a ready attachment answers it as it is. A mismatch is 422 and leaves it pending: upload the right file.
 */
export async function completeAttachment(caller: Principal, issueKey: string, id: number): Promise<Attachment> {
  const found = await visibleAttachment(caller, issueKey, id);
  if (found.status === 'ready') return toAttachment(found);
  // One declared before forms posted to their own key: its file is at the attachment's key already.
  const posted = found.stagingKey ?? found.objectKey;
  const checked = await uploadProblems(found, found.sha256, posted);
  if (!checked) throw new TransitionError('The file has not been uploaded yet: post it with the upload form, then complete');
  if (checked.problems.length > 0) throw new ValidationError(checked.problems.map((p) => `${p}; upload the file again`));
  if (posted !== found.objectKey && !(await copyObject(posted, found.objectKey, checked.etag))) {
    throw new ConflictError(['file: it was posted again while it was being checked; complete again']);
  }
  try {
    await store.markReady(found);
  } catch (err) {
    if (!isRefused(err, 'not_pending')) throw err;
    // Completed by a concurrent call meanwhile, or deleted: answered as it is now.
    const now = await store.getAttachment(found.orgId, found.projectId, found.issueId, found.id);
    // Deleted meanwhile: the copy just made is no attachment's file (its delete may have removed the key before it came).
    if (!now) throw await deletedWhileCompleting(found);
    return toAttachment(now);
  }
  // What the form posted is no one's now; a later post of the same form lands there too, and the lifecycle rule removes it.
  if (posted !== found.objectKey) await deleteObjects([posted]).catch(() => undefined);
  return toAttachment({ ...found, status: 'ready' });
}

/** The 404 of an attachment deleted while it was completed, once the file copied for it is removed again. */
async function deletedWhileCompleting(a: store.StoredAttachment): Promise<NotFoundError> {
  await deleteObjects([a.objectKey]);
  return new NotFoundError('Attachment');
}

/**
 * What differs between the object S3 holds at `key` (the form's, or the attachment's own) and what
 * `a` declares: its size, its content type and, given `sha256`, its SHA-256 (S3's checksum of the
 * upload; where the store keeps none, the local server, the bytes are read and hashed), with the
 * object's ETag (what a copy of it is made on). Undefined when there is no object.
 */
async function uploadProblems(
  a: store.StoredAttachment,
  sha256: string | null,
  key: string,
): Promise<{ problems: string[]; etag: string } | undefined> {
  const object = await headObject(key);
  if (!object) return undefined;
  const problems: string[] = [];
  if (object.size !== a.size) problems.push(`size: the uploaded file has ${object.size} bytes, not the ${a.size} declared`);
  if (object.contentType !== a.contentType) {
    problems.push(`content_type: the uploaded file is ${object.contentType}, not the ${a.contentType} declared`);
  }
  if (problems.length === 0 && sha256) {
    const actual = object.sha256Base64 ? sha256Hex(object.sha256Base64) : await hashOf(key);
    if (actual !== sha256) problems.push('sha256: the uploaded file does not have the SHA-256 declared');
  }
  return { problems, etag: object.etag };
}

/**
 * Restores an export's attachment (lib/services/import-export/import-export.ts) with its own name,
 * type, size, SHA-256, uploader and creation time: written pending (or, `resume`, the pending one an
 * earlier run left), in one transaction with its place in the limits as any create; its file put
 * in the bucket from `file` (a stream of the file beside the export, whose SHA-256 is `sha256`);
 * then checked as `complete` checks an upload (the object's size, type and that SHA-256) and only
 * then `ready`. A refusal (a limit, its comment gone) writes nothing; a file that does not check
 * out is removed again with its counts. Both are a ValidationError (or NotFoundError) saying why.
 */
export async function restoreAttachment(
  a: store.StoredAttachment,
  file: { open(): Readable; sha256: string },
  resume: boolean,
): Promise<void> {
  const limits = config().attachments;
  if (!resume) {
    if (a.size > limits.maxFileBytes) {
      throw new ValidationError([`size: ${a.size} bytes is more than the ${limits.maxFileBytes} a file may have here`]);
    }
    try {
      await store.insertAttachment(a, limitsOf(limits), new Date().toISOString());
    } catch (err) {
      throw await createRefusal(err, a);
    }
  }
  let problems: string[] | undefined;
  try {
    await putObject(a.objectKey, file.open(), {
      size: a.size,
      contentType: a.contentType,
      sha256Base64: sha256Base64(file.sha256),
    });
    problems = (await uploadProblems(a, file.sha256, a.objectKey))?.problems;
  } catch (err) {
    problems = [`the file could not be put in the bucket (${(err as Error).message})`];
  }
  if (!problems || problems.length > 0) {
    // Removed with its counts; should that fail too, it stays pending and expires (its counts given back then).
    await store.removeAttachment(a).catch(() => undefined);
    throw new ValidationError(problems ?? ['the file is not in the bucket after its upload']);
  }
  await store.markReady(a);
}

async function hashOf(objectKey: string): Promise<string | undefined> {
  const bytes = await readObject(objectKey);
  return bytes && createHash('sha256').update(bytes).digest('hex');
}

/**
 * Deletes an attachment (its uploader, an admin, or the author of its comment: 403 for anyone
 * else): a ready one into the organisation's trash, its file kept until its purge
 * (docs/trash.md); a pending one, which has no file to keep, for good, its file (if one was posted)
 * removed through the cascade. Either gives its place in its issue's count back at once. One whose
 * place moved since it was read (its comment just back from the trash,
 * `settleCommentAttachments`), or that became ready meanwhile, is read again.
 */
export async function deleteAttachment(caller: Principal, issueKey: string, id: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const { found, sprintId, retentionDays } = await attachmentToDelete(caller, issueKey, id);
    const guard = deleteGuard(caller, found);
    try {
      if (found.status === 'ready') await store.trashAttachment(found, caller.accountId, retentionDays, sprintId, guard);
      else await store.removeAttachment(found, guard);
      return;
    } catch (err) {
      if (isRefused(err, 'attachment') && attempt < STALE_ATTEMPTS) continue;
      throw explainRefusal(err, {
        attachment: () => new NotFoundError('Attachment'),
        issue: () => new NotFoundError('Issue'),
        not_author: () => notAllowedToDelete(found.id),
      });
    }
  }
}

const notAllowedToDelete = (id: number) =>
  new ForbiddenError(`Only its uploader, the author of its comment or an admin may delete attachment ${id}`);

/**
 * Who may delete attachment `a`: its uploader and admins; for a comment's file, also the comment's
 * author, whom the delete's write checks (`commentAuthorCheck`: no read). Anyone else: 403.
 */
function deleteGuard(caller: Principal, a: store.StoredAttachment): GuardedItem[] {
  if (caller.role === 'admin' || a.uploaderId === caller.accountId) return [];
  if (a.commentId === null) throw notAllowedToDelete(a.id);
  return [store.commentAuthorCheck({ ...a, commentId: a.commentId }, caller.accountId)];
}

/**
 * `visibleAttachment` for its delete, with what the trash needs: its issue's sprint, and its
 * organisation's retention, read with the attachment (one BatchGetItem, in the place of its GetItem).
 */
async function attachmentToDelete(caller: Principal, issueKey: string, id: number) {
  const { issue, found, shown } = await visibleIssueWith(caller, issueKey, (projectId, issueId) =>
    store.readAttachmentToDelete(caller.orgId, projectId, issueId, id),
  );
  if (!found.attachment || !shown(found.attachment)) throw new NotFoundError('Attachment');
  return { found: found.attachment, sprintId: issue.sprint_id, retentionDays: found.retentionDays };
}

/**
 * Brings a trashed attachment back (`stored`: as its trash item holds it), with its id, its file
 * and its place in its issue's count, answered as its `GET` answers it. Refused (422, nothing
 * written) when its issue, its sprint, its project or its comment is not there (in the trash: the
 * error says to restore that first), or its issue already has the most files it may have. An issue
 * moved to another sprint since is checked where it is now (one read more).
 */
export async function restoreTrashedAttachment(
  caller: Principal,
  stored: Record<string, unknown>,
  deletedAt: string,
): Promise<Attachment> {
  const a = store.attachmentItem.decode(stored);
  const maxFiles = config().attachments.maxFilesPerIssue;
  const restore = (sprintId: number | null) => store.restoreTrashedAttachment(a, deletedAt, sprintId, maxFiles);
  try {
    await restore(a.trashedInSprint);
  } catch (err) {
    if (!isRefused(err, 'issue')) throw await restoreRefusal(caller.orgId, a, a.trashedInSprint, err);
    // Moved to another sprint since, gone, or at its limit of files: one read tells which.
    const now = await issueSprintNow(caller.orgId, a.projectId, a.issueId);
    if (now === undefined || now === a.trashedInSprint) throw await restoreRefusal(caller.orgId, a, a.trashedInSprint, err);
    await restore(now).catch(async (again: unknown) => {
      throw await restoreRefusal(caller.orgId, a, now, again);
    });
  }
  return toAttachment({ ...a, inTrash: false, trashedAt: null, trashedInSprint: null });
}

/**
 * What a refused restore of attachment `a` (checked in sprint `sprintId`) means: 422 saying why, or
 * 404 when its trash item went meanwhile.
 */
async function restoreRefusal(orgId: number, a: store.StoredAttachment, sprintId: number | null, err: unknown): Promise<unknown> {
  const cannot = (why: string) => new TransitionError(`Attachment ${a.id} cannot come back: ${why}`);
  const inTrash = async (kind: 'sprint' | 'issue' | 'comment', id: number, what: string) =>
    cannot((await getTrashed(orgId, kind, id)) ? `${what} is in the trash (restore it first)` : `${what} no longer exists`);
  if (isRefused(err, 'project')) return cannot(await projectNotThere(orgId, a.projectId));
  if (isRefused(err, 'sprint')) return inTrash('sprint', sprintId ?? 0, `sprint ${sprintId}, which its issue is in,`);
  if (isRefused(err, 'issue')) {
    if ((await issueSprintNow(orgId, a.projectId, a.issueId)) === undefined)
      return inTrash('issue', a.issueId, `its issue ${a.issueId}`);
    const max = config().attachments.maxFilesPerIssue;
    return cannot(`its issue ${a.issueId} already has ${max} attachments, the most it may have (delete one first)`);
  }
  if (isRefused(err, 'comment') && a.commentId !== null) return inTrash('comment', a.commentId, `its comment ${a.commentId}`);
  if (isRefused(err, 'attachment')) return cannot('it went with its comment or its issue');
  if (isRefused(err, 'trashed')) return new NotFoundError('Trash item');
  return err;
}

/**
 * What an agent is handed of a ready attachment: an image or a text of at most 1 MB as its content
 * (so that it sees the screenshot, reads the log), anything else as a link (a download URL).
 */
export async function attachmentContent(
  caller: Principal,
  issueKey: string,
  id: number,
): Promise<{ attachment: Attachment; kind: 'image' | 'text' | 'link'; bytes?: Buffer }> {
  const found = await visibleAttachment(caller, issueKey, id);
  if (found.status !== 'ready')
    throw new TransitionError('The attachment is pending: its file has not been uploaded and completed yet');
  const attachment = await toAttachment(found);
  const kind = mcpKindOf(found.contentType, found.size, ATTACHMENT_LIMITS.inlineBytes);
  if (kind === 'link') return { attachment, kind };
  const bytes = await readObject(found.objectKey);
  if (!bytes) throw new NotFoundError('Attachment file');
  return { attachment, kind, bytes };
}

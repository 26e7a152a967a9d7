/** Pure rules of attachments (docs/attachments.md). */

/**
 * Types a browser would run or render as a page when opened from the bucket's origin (HTML, SVG,
 * JavaScript, XML): always downloaded (`Content-Disposition: attachment`), never shown inline.
 */
const RUNNABLE = new Set(['text/html', 'image/svg+xml', 'text/javascript', 'application/javascript', 'application/xml']);

/** Whether a file of this type is only ever handed out as a download. */
export const mustDownload = (contentType: string): boolean => RUNNABLE.has(contentType);

/**
 * The `Content-Disposition` a download answers with: `attachment` for what a browser would run,
 * `inline` for the rest (a screenshot opens in the tab), with the file name in both forms (ASCII
 * with anything else replaced, and RFC 5987 UTF-8).
 */
export function dispositionOf(name: string, contentType: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${mustDownload(contentType) ? 'attachment' : 'inline'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** A SHA-256 as S3 states it (base64 of the digest) from its hex form, and back. */
export const sha256Base64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');
export const sha256Hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

/**
 * Where an export's attachment file lies, relative to the folder of files beside the JSON Lines
 * file (docs/import-export.md): `<id>-<name>`, the name kept to letters, digits, `.`, `_` and `-`
 * (anything else `_`, no leading dot, at most 100 characters), so that it is one plain file name
 * on any system and two attachments never share one.
 */
export function exportedFileName(id: number, name: string): string {
  const safe = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 100);
  return `${id}-${safe || 'file'}`;
}

/**
 * Whether `path` (an export line's `file`) names a file directly in the folder of files: a plain
 * name, never a path out of it (`../`, `/etc/passwd`, a drive or a folder).
 */
export const isPlainFileName = (path: string): boolean =>
  /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/.test(path) && path !== '.' && path !== '..';

/** What an MCP client is handed for a file: an image or a text it can read, or a link. */
export function mcpKindOf(contentType: string, size: number, inlineBytes: number): 'image' | 'text' | 'link' {
  if (size > inlineBytes) return 'link';
  if (contentType.startsWith('image/') && contentType !== 'image/svg+xml') return 'image';
  if (
    contentType.startsWith('text/') ||
    ['application/json', 'application/x-ndjson', 'application/xml', 'image/svg+xml'].includes(contentType)
  )
    return 'text';
  return 'link';
}

/**
 * Whether an attachment is in the answers about its issue: not while it is in the trash on its own
 * (`trashedAt`), nor while its comment is (`commentsWithFilesInTrash`, on the issue: written with
 * the comment's delete and restore), when it is kept, whole, for a restore (docs/trash.md).
 */
export const isShown = (
  a: { commentId: number | null; trashedAt: string | null },
  commentsWithFilesInTrash: readonly number[],
): boolean => a.trashedAt === null && (a.commentId === null || !commentsWithFilesInTrash.includes(a.commentId));

/** What an attachment counts for: its organisation's bytes and its issue's files. */
export interface CountedAttachment {
  orgId: number;
  projectId: number;
  issueId: number;
  size: number;
  /**
   * It (or its comment) is in the trash and its issue's count was given back (`in_trash`,
   * lib/db/attachments/attachments.ts): it still holds its bytes, but not its place among its issue's files.
   */
  inTrash: boolean;
  /** Declared and not completed: it counts among its uploader's and its organisation's pending uploads. */
  pending: boolean;
  uploaderId: number;
}

/** A count of pending uploads and their bytes. */
export interface PendingCount {
  files: number;
  bytes: number;
}

/**
 * The attachment counters (lib/db/attachments/attachments.ts): each organisation's bytes, each issue's files
 * (keyed `org/project/issue`), and the pending uploads of each organisation and of each account
 * (keyed `org/account`), which the caps are held to.
 */
export interface AttachmentCounters {
  organisationBytes: Map<number, number>;
  issueFiles: Map<string, number>;
  organisationPending: Map<number, PendingCount>;
  accountPending: Map<string, PendingCount>;
}

/**
 * The counters rebuilt from the attachments, for the holders of `holders` (an organisation or an
 * issue with no attachment counts 0): an organisation counts the bytes of every attachment it
 * holds, pending or ready, and an issue its attachments (its comments' included) but those marked
 * in the trash (on their own or with their comment). An attachment of an issue already deleted
 * (its cascade to come) still counts for its organisation, and so does one in the trash.
 */
export function attachmentCounts(attachments: CountedAttachment[], holders: AttachmentCounters): AttachmentCounters {
  const none = (): PendingCount => ({ files: 0, bytes: 0 });
  const out: AttachmentCounters = {
    organisationBytes: new Map([...holders.organisationBytes.keys()].map((org) => [org, 0])),
    issueFiles: new Map([...holders.issueFiles.keys()].map((issue) => [issue, 0])),
    organisationPending: new Map([...holders.organisationPending.keys()].map((org) => [org, none()])),
    accountPending: new Map([...holders.accountPending.keys()].map((account) => [account, none()])),
  };
  for (const a of attachments) {
    const issue = `${a.orgId}/${a.projectId}/${a.issueId}`;
    if (out.organisationBytes.has(a.orgId))
      out.organisationBytes.set(a.orgId, (out.organisationBytes.get(a.orgId) ?? 0) + a.size);
    if (out.issueFiles.has(issue) && !a.inTrash) out.issueFiles.set(issue, (out.issueFiles.get(issue) ?? 0) + 1);
    if (!a.pending || !out.organisationPending.has(a.orgId)) continue;
    const org = out.organisationPending.get(a.orgId) ?? none();
    out.organisationPending.set(a.orgId, { files: org.files + 1, bytes: org.bytes + a.size });
    // An uploader's count is on an item of its own, made by its first declaration (or by the rebuild).
    const account = out.accountPending.get(`${a.orgId}/${a.uploaderId}`) ?? none();
    out.accountPending.set(`${a.orgId}/${a.uploaderId}`, { files: account.files + 1, bytes: account.bytes + a.size });
  }
  return out;
}

/** Each counter of `stored` that differs from `rebuilt`, named and with both values. */
export function counterDifferences(stored: AttachmentCounters, rebuilt: AttachmentCounters): string[] {
  const out: string[] = [];
  for (const [org, bytes] of rebuilt.organisationBytes) {
    const has = stored.organisationBytes.get(org) ?? 0;
    if (has !== bytes) out.push(`attachment-bytes: organisation ${org} counts ${has}, its attachments hold ${bytes}`);
  }
  for (const [issue, files] of rebuilt.issueFiles) {
    const has = stored.issueFiles.get(issue) ?? 0;
    if (has !== files) out.push(`attachments-count: issue ${issue} counts ${has}, has ${files}`);
  }
  const pending = (what: string, has: PendingCount | undefined, is: PendingCount) => {
    const was = has ?? { files: 0, bytes: 0 };
    if (was.files !== is.files || was.bytes !== is.bytes)
      out.push(`pending-uploads: ${what} counts ${was.files} (${was.bytes} bytes), has ${is.files} (${is.bytes} bytes)`);
  };
  for (const [org, count] of rebuilt.organisationPending)
    pending(`organisation ${org}`, stored.organisationPending.get(org), count);
  for (const [account, count] of rebuilt.accountPending) pending(`account ${account}`, stored.accountPending.get(account), count);
  return out;
}

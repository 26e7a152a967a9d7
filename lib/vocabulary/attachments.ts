/**
 * Attachments' words and limits (docs/attachments.md): the file types accepted, the statuses of an
 * attachment, and the default bounds (each configurable: lib/config.ts).
 */

/** Until its file has arrived and been checked an attachment is `pending`; then `ready`. */
export const ATTACHMENT_STATUSES = ['pending', 'ready'] as const;
export type AttachmentStatus = (typeof ATTACHMENT_STATUSES)[number];

export const ATTACHMENT_LIMITS = {
  /** 25 MB per file (`ATTACHMENT_MAX_BYTES`). */
  fileBytes: 25 * 1024 * 1024,
  /** Files on one issue, its comments' included (`ATTACHMENT_MAX_PER_ISSUE`). */
  filesPerIssue: 100,
  /** Bytes one organisation keeps (`ATTACHMENT_MAX_ORGANISATION_BYTES`): 10 GiB. */
  organisationBytes: 10 * 1024 * 1024 * 1024,
  /** An upload form is valid for 2 minutes (`ATTACHMENT_UPLOAD_SECONDS`). */
  uploadSeconds: 120,
  /**
   * A pending attachment never completed expires 10 minutes after it was declared (its item's TTL):
   * its place in the limits and its reservation come back.
   */
  pendingSeconds: 600,
  /** Pending attachments one account may hold at once, and their bytes (`ATTACHMENT_MAX_PENDING_PER_ACCOUNT`, `…_BYTES_PER_ACCOUNT`). */
  pendingPerAccount: 20,
  pendingBytesPerAccount: 256 * 1024 * 1024,
  /** Pending attachments one organisation may hold at once, and their bytes (`ATTACHMENT_MAX_PENDING_PER_ORGANISATION`, `…_BYTES_PER_ORGANISATION`). */
  pendingPerOrganisation: 100,
  pendingBytesPerOrganisation: 1024 * 1024 * 1024,
  /** A posted file nothing took (under `staging/`) is removed a day after it was posted (the bucket's lifecycle rule). */
  stagingDays: 1,
  /** A download URL is valid for 5 minutes (`ATTACHMENT_DOWNLOAD_SECONDS`). */
  downloadSeconds: 300,
  /** A file name's length, in characters. */
  nameLength: 255,
  /** What an MCP client may read back as content: 1 MB. */
  inlineBytes: 1024 * 1024,
} as const;

/**
 * The content types an attachment may have: screenshots and designs, logs and data, documents and
 * archives. Anything else is 422 (a client may always send `application/octet-stream`).
 */
export const ATTACHMENT_CONTENT_TYPES = [
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/svg+xml',
  'text/plain',
  'text/csv',
  'text/markdown',
  'text/html',
  'text/javascript',
  'application/json',
  'application/x-ndjson',
  'application/xml',
  'application/pdf',
  'application/zip',
  'application/gzip',
  'application/javascript',
  'application/octet-stream',
  'video/mp4',
  'video/webm',
] as const;
export type AttachmentContentType = (typeof ATTACHMENT_CONTENT_TYPES)[number];

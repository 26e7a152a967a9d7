import * as z from 'zod/mini';
import { meta } from './zod.ts';
import { ATTACHMENT_CONTENT_TYPES, ATTACHMENT_LIMITS, ATTACHMENT_STATUSES } from '../vocabulary/attachments.ts';
import { dateTime, idField, plainText, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

/** The largest object one POST may put in S3 (5 GB); the configured limit (25 MB by default) is checked on create. */
const POST_OBJECT_MAX = 5 * 1024 ** 3;

const fileName = () =>
  plainText(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .check(z.trim())
      .check(z.minLength(1, { error: "can't be blank", abort: true }))
      .check(
        z.maxLength(ATTACHMENT_LIMITS.nameLength, {
          error: `is too long (maximum is ${ATTACHMENT_LIMITS.nameLength} characters)`,
        }),
      )
      .check(z.refine((v) => !/[/\\]/.test(v), { error: 'must be a file name, without / or \\' })),
    'line',
  );

export const AttachmentCreateFields = meta(
  z.object(
    {
      name: meta(fileName(), { description: 'The file name, shown and used on download ("screenshot.png").' }),
      content_type: z.enum(ATTACHMENT_CONTENT_TYPES, { error: `must be one of ${ATTACHMENT_CONTENT_TYPES.join(', ')}` }),
      size: meta(
        z
          .number({ error: 'must be a number of bytes' })
          .check(z.int({ error: 'must be a whole number of bytes' }))
          .check(z.minimum(1, { error: 'must be at least 1 byte' }))
          .check(z.maximum(POST_OBJECT_MAX, { error: `must be at most ${POST_OBJECT_MAX} bytes` })),
        { description: 'The exact size of the file in bytes; the upload must match it.' },
      ),
      sha256: meta(
        z.optional(
          z.nullable(
            z.pipe(
              z
                .string({ error: 'must be a string' })
                .check(z.regex(/^[0-9a-fA-F]{64}$/, { error: 'must be the SHA-256 of the file, 64 hexadecimal digits' })),
              z.transform((v) => v.toLowerCase()),
            ),
          ),
        ),
        { description: 'The SHA-256 of the file (hex): S3 refuses an upload whose bytes do not match it.' },
      ),
      comment_id: meta(z.optional(z.nullable(idField())), {
        description: 'A comment of the issue to attach the file to; absent: the issue itself.',
      }),
    },
    objectError,
  ),
  { id: 'AttachmentCreate' },
);
export type AttachmentCreate = z.output<typeof AttachmentCreateFields>;

export const Attachment = meta(
  z.object({
    id: z.number().check(z.int()),
    issue_id: z.number().check(z.int()),
    comment_id: meta(z.nullable(z.number().check(z.int())), {
      description: 'The comment it is attached to, or null (the issue).',
    }),
    name: z.string(),
    content_type: z.string(),
    size: z.number().check(z.int()),
    sha256: z.nullable(z.string()),
    status: meta(z.enum(ATTACHMENT_STATUSES), { description: '`pending` until its file is uploaded and checked, then `ready`.' }),
    uploader_id: z.number().check(z.int()),
    uploader_name: z.string(),
    created_at: dateTime(),
    download_url: meta(z.nullable(z.string()), { description: 'A short-lived pre-signed URL of the file (null while pending).' }),
    download_expires_at: z.nullable(dateTime()),
  }),
  { id: 'Attachment' },
);
export type Attachment = z.infer<typeof Attachment>;

export const AttachmentUpload = meta(
  z.object({
    method: z.literal('POST'),
    url: meta(z.string(), { description: 'Where to POST the form (multipart/form-data).' }),
    fields: meta(z.record(z.string(), z.string()), {
      description: 'The form fields to send as they are, before the file, which goes last, as the field `file`.',
    }),
    expires_at: dateTime(),
  }),
  { id: 'AttachmentUpload' },
);

export const AttachmentWithUpload = meta(z.extend(Attachment, { upload: AttachmentUpload }), { id: 'AttachmentWithUpload' });
export type AttachmentWithUpload = z.infer<typeof AttachmentWithUpload>;

export const AttachmentList = meta(z.array(Attachment), { id: 'AttachmentList' });

export const AttachmentCreateBody = wrapped('attachment', AttachmentCreateFields, AttachmentWithUpload);

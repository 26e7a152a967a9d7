import * as z from 'zod';
import { ATTACHMENT_CONTENT_TYPES, ATTACHMENT_LIMITS, ATTACHMENT_STATUSES } from '../vocabulary/attachments.ts';
import { dateTime, idField, plainText, wrapped } from './common.ts';

const objectError = { error: (iss: { input?: unknown }) => (iss.input === undefined ? 'is required' : 'must be an object') };

/** The largest object one POST may put in S3 (5 GB); the configured limit (25 MB by default) is checked on create. */
const POST_OBJECT_MAX = 5 * 1024 ** 3;

const fileName = () =>
  plainText(
    z
      .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
      .trim()
      .min(1, { error: "can't be blank", abort: true })
      .max(ATTACHMENT_LIMITS.nameLength, { error: `is too long (maximum is ${ATTACHMENT_LIMITS.nameLength} characters)` })
      .refine((v) => !/[/\\]/.test(v), { error: 'must be a file name, without / or \\' }),
    'line',
  );

export const AttachmentCreateFields = z
  .object(
    {
      name: fileName().meta({ description: 'The file name, shown and used on download ("screenshot.png").' }),
      content_type: z.enum(ATTACHMENT_CONTENT_TYPES, { error: `must be one of ${ATTACHMENT_CONTENT_TYPES.join(', ')}` }),
      size: z
        .number({ error: 'must be a number of bytes' })
        .int({ error: 'must be a whole number of bytes' })
        .min(1, { error: 'must be at least 1 byte' })
        .max(POST_OBJECT_MAX, { error: `must be at most ${POST_OBJECT_MAX} bytes` })
        .meta({ description: 'The exact size of the file in bytes; the upload must match it.' }),
      sha256: z
        .string({ error: 'must be a string' })
        .regex(/^[0-9a-fA-F]{64}$/, { error: 'must be the SHA-256 of the file, 64 hexadecimal digits' })
        .transform((v) => v.toLowerCase())
        .nullable()
        .optional()
        .meta({ description: 'The SHA-256 of the file (hex): S3 refuses an upload whose bytes do not match it.' }),
      comment_id: idField()
        .nullable()
        .optional()
        .meta({ description: 'A comment of the issue to attach the file to; absent: the issue itself.' }),
    },
    objectError,
  )
  .meta({ id: 'AttachmentCreate' });
export type AttachmentCreate = z.output<typeof AttachmentCreateFields>;

export const Attachment = z
  .object({
    id: z.number().int(),
    issue_id: z.number().int(),
    comment_id: z.number().int().nullable().meta({ description: 'The comment it is attached to, or null (the issue).' }),
    name: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string().nullable(),
    status: z.enum(ATTACHMENT_STATUSES).meta({ description: '`pending` until its file is uploaded and checked, then `ready`.' }),
    uploader_id: z.number().int(),
    uploader_name: z.string(),
    created_at: dateTime(),
    download_url: z.string().nullable().meta({ description: 'A short-lived pre-signed URL of the file (null while pending).' }),
    download_expires_at: dateTime().nullable(),
  })
  .meta({ id: 'Attachment' });
export type Attachment = z.infer<typeof Attachment>;

export const AttachmentUpload = z
  .object({
    method: z.literal('POST'),
    url: z.string().meta({ description: 'Where to POST the form (multipart/form-data).' }),
    fields: z
      .record(z.string(), z.string())
      .meta({ description: 'The form fields to send as they are, before the file, which goes last, as the field `file`.' }),
    expires_at: dateTime(),
  })
  .meta({ id: 'AttachmentUpload' });

export const AttachmentWithUpload = Attachment.extend({ upload: AttachmentUpload }).meta({ id: 'AttachmentWithUpload' });
export type AttachmentWithUpload = z.infer<typeof AttachmentWithUpload>;

export const AttachmentList = z.array(Attachment).meta({ id: 'AttachmentList' });

export const AttachmentCreateBody = wrapped('attachment', AttachmentCreateFields, AttachmentWithUpload);

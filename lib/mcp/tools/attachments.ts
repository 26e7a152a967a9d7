import * as z from 'zod';
import { attachFile, attachmentContent, completeAttachment, createAttachment } from '../../services/attachments.ts';
import { Attachment, AttachmentCreateFields, AttachmentUpload } from '../../schemas/attachments.ts';
import { parseOrThrow } from '../../schemas/validate.ts';
import { ValidationError } from '../../vocabulary/errors.ts';
import { annotations, defineTool, id, WithContent, type Tool } from '../tool.ts';

/** Base64 as RFC 4648 writes it (padding optional); whitespace between lines is allowed. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The file of `data`, or the 422 saying why it is not one. */
function decoded(data: string): Buffer {
  const text = data.replace(/\s+/g, '');
  if (!BASE64.test(text) || text.length % 4 === 1) throw new ValidationError(['data must be the file in base64']);
  return Buffer.from(text, 'base64');
}

/**
 * Attachments (docs/attachments.md) for an agent: a small file given inline is uploaded and checked
 * here, in one call (the request's 1 MiB bounds it: base64 of a file up to about 750 KB); a larger
 * one gets an upload form, and a second call with its `attachment_id` completes it.
 * `get_attachment` hands a file back as content an agent sees (as the `attachment://` resource
 * does, lib/mcp/resources.ts, for clients that read resources).
 */
export const attachmentTools: Tool[] = [
  defineTool(
    'get_attachment',
    {
      description: "An attachment's file: an image or text up to 1 MB as content, else a link.",
      input: z.object({ issue_number: z.string(), attachment_id: id() }),
      output: { attachment: Attachment },
      annotations: annotations.read,
    },
    async (caller, { issue_number, attachment_id }) => {
      const { attachment, kind, bytes } = await attachmentContent(caller, issue_number, attachment_id);
      const mimeType = attachment.content_type;
      const block =
        kind === 'image'
          ? { type: 'image' as const, data: bytes!.toString('base64'), mimeType }
          : kind === 'text'
            ? { type: 'text' as const, text: bytes!.toString('utf8') }
            : {
                type: 'resource_link' as const,
                uri: `attachment://${issue_number.toUpperCase()}/${attachment.id}`,
                name: attachment.name,
                mimeType,
              };
      return new WithContent({ attachment }, [block]);
    },
  ),

  defineTool(
    'add_attachment',
    {
      description: 'Attach a file: data (base64, ≤ 1 MB) uploads it; size gets an upload form, then call with attachment_id.',
      input: z.object({
        issue_number: z.string(),
        name: z.string().optional(),
        content_type: z.string().optional(),
        data: z.string().optional(),
        size: z.number().int().optional(),
        comment_id: id().optional(),
        attachment_id: id().optional(),
      }),
      output: { attachment: Attachment, upload: z.optional(AttachmentUpload) },
      annotations: annotations.create,
    },
    async (caller, { issue_number, attachment_id, data, ...declared }) => {
      if (attachment_id !== undefined) {
        const extra = Object.keys(declared).filter((k) => declared[k as keyof typeof declared] !== undefined);
        if (data !== undefined || extra.length > 0) {
          throw new ValidationError(['attachment_id completes an upload: give it with issue_number alone']);
        }
        return { attachment: await completeAttachment(caller, issue_number, attachment_id) };
      }
      if (data === undefined) {
        const input = parseOrThrow(AttachmentCreateFields, declared, false);
        const { upload, ...attachment } = await createAttachment(caller, issue_number, input);
        return { attachment, upload };
      }
      const bytes = decoded(data);
      if (declared.size !== undefined && declared.size !== bytes.length) {
        throw new ValidationError([`size: data has ${bytes.length} bytes, not the ${declared.size} given`]);
      }
      const file = parseOrThrow(AttachmentCreateFields, { ...declared, size: bytes.length }, false);
      const input = { name: file.name, content_type: file.content_type, comment_id: file.comment_id };
      return { attachment: await attachFile(caller, issue_number, input, bytes) };
    },
  ),
];

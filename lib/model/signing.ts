import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com/): the secret is `whsec_` + base64
 * of random bytes; the signature is `v1,` + base64(HMAC-SHA256(secret bytes, `id.timestamp.body`)),
 * sent in `webhook-signature` (several, space-separated, while a rotated secret is still honoured),
 * beside `webhook-id` and `webhook-timestamp` (seconds). Receivers verify with the published
 * libraries (e.g. the `standardwebhooks` npm package).
 */

const PREFIX = 'whsec_';

/** A new signing secret: 24 random bytes (192 bits), within the spec's 24..64. */
export function generateSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

/** The `v1,<base64>` signature of one message under one secret. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of a message, signed with every secret given. */
export function signedHeaders(secrets: string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signature(s, id, timestampSeconds, body)).join(' '),
  };
}

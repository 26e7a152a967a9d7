import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { config, ConfigurationError, onLambda } from '../config.ts';

/**
 * Webhook signing secrets at rest (docs/change-feed.md: Signing secrets). A secret is stored
 * sealed, as an envelope string `enc:<kind>:v1:<base64>`:
 *
 * - `kms`: the ciphertext of a direct KMS Encrypt under the stack's webhook secret key (a secret
 *   is ~40 bytes, far under KMS's 4 KB: no data key needed). Only the functions that make secrets
 *   (create, rotate-secret) may Encrypt, only the delivery function may Decrypt (infra/grants.ts).
 * - `local`: AES-256-GCM under a local key (`npm start`, tests, `npm run invoke`, the admin CLI on
 *   DynamoDB Local), where there is no KMS; the same code path seals and opens.
 *
 * Both bind the ciphertext to its endpoint (the encryption context, or the GCM additional data:
 * organisation id and webhook id), so a sealed secret copied onto another item does not open.
 * A stored value that is not an envelope is a plaintext secret written before secrets were sealed:
 * it is read as it is (and sealed at the next rotation, or by `webhooks:encrypt-secrets`).
 */

/** The endpoint a secret belongs to: what its ciphertext is bound to. */
export type SecretOwner = { orgId: number; webhookId: number } | { orgId: number; githubProjectId: number };

export interface SecretBox {
  /** The envelope of `secret`, bound to `owner`. */
  seal(secret: string, owner: SecretOwner): Promise<string>;
  /** The secret in `stored` (an envelope bound to `owner`, or a legacy plaintext secret). */
  open(stored: string, owner: SecretOwner): Promise<string>;
}

const ENVELOPE = /^enc:(kms|local):v1:([A-Za-z0-9+/]+=*)$/;

/** True when `stored` is a sealed secret, false for a plaintext one (written before sealing). */
export function isSealed(stored: string): boolean {
  return stored.startsWith('enc:');
}

/** The binding of a ciphertext to its endpoint, as KMS takes it (string to string). */
export function encryptionContext(owner: SecretOwner): Record<string, string> {
  return 'webhookId' in owner
    ? { org_id: String(owner.orgId), webhook_id: String(owner.webhookId) }
    : { org_id: String(owner.orgId), github_project_id: String(owner.githubProjectId) };
}

function envelopeOf(stored: string, kind: 'kms' | 'local'): Buffer {
  const match = ENVELOPE.exec(stored);
  if (!match) throw new Error('the stored webhook secret is not a well-formed envelope');
  if (match[1] !== kind) throw new Error(`the stored webhook secret is sealed with ${match[1]}, this function opens ${kind}`);
  return Buffer.from(match[2]!, 'base64');
}

/** The local box: AES-256-GCM under a 32-byte key; the envelope is base64(iv ‖ tag ‖ ciphertext). */
export function localSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the local webhook secret key must be 32 bytes (base64 of 32 random bytes)');
  const aad = (owner: SecretOwner) => Buffer.from(new URLSearchParams(encryptionContext(owner)).toString());
  return {
    async seal(secret, owner) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(aad(owner));
      const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `enc:local:v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
    },
    async open(stored, owner) {
      if (!isSealed(stored)) return stored;
      const raw = envelopeOf(stored, 'local');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12)).setAAD(aad(owner));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** The KMS box: direct Encrypt/Decrypt under `keyId`, with the endpoint as encryption context. */
export function kmsSecretBox(keyId: string, client: Pick<KMSClient, 'send'> = new KMSClient({})): SecretBox {
  return {
    async seal(secret, owner) {
      const out = await client.send(
        new EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(secret, 'utf8'), EncryptionContext: encryptionContext(owner) }),
      );
      return `enc:kms:v1:${Buffer.from(out.CiphertextBlob!).toString('base64')}`;
    },
    async open(stored, owner) {
      if (!isSealed(stored)) return stored;
      // KeyId pins the key: a ciphertext under any other key is refused, not decrypted.
      const out = await client.send(
        new DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: envelopeOf(stored, 'kms'),
          EncryptionContext: encryptionContext(owner),
        }),
      );
      return Buffer.from(out.Plaintext!).toString('utf8');
    },
  };
}

let box: SecretBox | undefined;

/**
 * The box this process seals and opens with, chosen from the configuration: KMS when
 * `WEBHOOK_SECRET_KMS_KEY_ID` is set (on Lambda, only the three functions that may use the key have
 * it), else the local key `WEBHOOK_SECRET_LOCAL_KEY`. Never a local key on Lambda.
 */
export function secretBox(): SecretBox {
  if (box) return box;
  const { kmsKeyId, localKey } = config().webhookSecrets;
  if (kmsKeyId) box = kmsSecretBox(kmsKeyId);
  else if (onLambda)
    throw new ConfigurationError(
      'WEBHOOK_SECRET_KMS_KEY_ID must be set in the environment of a function that uses webhook secrets',
    );
  else if (localKey) box = localSecretBox(Buffer.from(localKey, 'base64'));
  else
    throw new ConfigurationError(
      'WEBHOOK_SECRET_LOCAL_KEY (base64 of 32 random bytes) or WEBHOOK_SECRET_KMS_KEY_ID must be set to seal or open webhook secrets',
    );
  return box;
}

/** How long the delivery function keeps an opened secret, and how many it keeps. */
export const OPENED_SECRET_TTL_MS = 5 * 60_000;
export const OPENED_SECRET_CAPACITY = 500;

/** Opened secrets by endpoint and envelope, least recently used first (a Map keeps insertion order). */
const opened = new Map<string, { secret: string; until: number }>();

/**
 * Opens a stored secret for signing, keeping it for `OPENED_SECRET_TTL_MS` (at most
 * `OPENED_SECRET_CAPACITY` of them) so that every attempt to a busy endpoint does not call KMS. The
 * key includes the envelope itself: a rotation stores a new envelope, which is opened afresh.
 */
export async function openForSigning(stored: string, owner: SecretOwner, now = Date.now()): Promise<string> {
  if (!isSealed(stored)) return stored;
  const key = `${new URLSearchParams(encryptionContext(owner)).toString()}/${stored}`;
  const hit = opened.get(key);
  opened.delete(key);
  if (hit && hit.until > now) {
    opened.set(key, hit);
    return hit.secret;
  }
  const secret = await secretBox().open(stored, owner);
  opened.set(key, { secret, until: now + OPENED_SECRET_TTL_MS });
  if (opened.size > OPENED_SECRET_CAPACITY) opened.delete(opened.keys().next().value as string);
  return secret;
}

/** Test hook: replaces the configured box (undefined: back to the configuration) and empties the cache. */
export function useSecretBox(replacement: SecretBox | undefined): void {
  box = replacement;
  opened.clear();
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { localSecretBox, useSecretBox } from '../../lib/aws/secret-box.ts';

/** The file in the data folder that holds the local webhook secret key (base64 of 32 bytes). */
export const secretKeyFile = 'webhook-secret.key';

/**
 * Where there is no KMS (`npm start`, `npm run invoke`, the admin CLI on DynamoDB Local), webhook
 * secrets are sealed with a local AES key kept beside the data, made on first use (readable by
 * this user only), so secrets sealed by one run open in the next. An environment that names a key
 * already (`WEBHOOK_SECRET_LOCAL_KEY`, as the tests do, or `WEBHOOK_SECRET_KMS_KEY_ID`) keeps it.
 * Returns the key file used, if any.
 */
export function useLocalSecretKey(dataDir: string): string | undefined {
  if (process.env.WEBHOOK_SECRET_LOCAL_KEY || process.env.WEBHOOK_SECRET_KMS_KEY_ID) return undefined;
  const file = join(dataDir, secretKeyFile);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // `wx`: never overwrite a key another process made meanwhile (its secrets would no longer open).
    try {
      writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const key = readFileSync(file, 'utf8').trim();
  // For configuration read after this (on first use) and child processes...
  process.env.WEBHOOK_SECRET_LOCAL_KEY = key;
  // ...and for those loaded already.
  useSecretBox(localSecretBox(Buffer.from(key, 'base64')));
  return file;
}

import { DecryptCommand, EncryptCommand } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import { isSealed, kmsSecretBox, localSecretBox } from '../../lib/aws/secret-box.ts';
import { generateSecret } from '../../lib/model/signing.ts';

const owner = { orgId: 12, webhookId: 3 };
const box = localSecretBox(Buffer.alloc(32, 1));

describe('the local secret box', () => {
  it('opens what it sealed, for the same endpoint; two seals of one secret differ', async () => {
    const secret = generateSecret();
    const sealed = await box.seal(secret, owner);
    expect(sealed).toMatch(/^enc:local:v1:[A-Za-z0-9+/]+=*$/);
    expect(sealed).not.toContain(secret.slice('whsec_'.length));
    expect(await box.seal(secret, owner)).not.toBe(sealed);
    expect(await box.open(sealed, owner)).toBe(secret);
  });

  it('refuses a sealed secret for another endpoint or organisation, under another key, or altered', async () => {
    const sealed = await box.seal(generateSecret(), owner);
    await expect(box.open(sealed, { ...owner, webhookId: 4 })).rejects.toThrow();
    await expect(box.open(sealed, { ...owner, orgId: 13 })).rejects.toThrow();
    await expect(localSecretBox(Buffer.alloc(32, 2)).open(sealed, owner)).rejects.toThrow();
    const raw = Buffer.from(sealed.slice('enc:local:v1:'.length), 'base64');
    raw[raw.length - 1]! ^= 1;
    await expect(box.open(`enc:local:v1:${raw.toString('base64')}`, owner)).rejects.toThrow();
    await expect(box.open(sealed.replace('enc:local:', 'enc:kms:'), owner)).rejects.toThrow(/sealed with kms/);
  });

  it('reads a secret stored in plaintext (written before sealing) as it is', async () => {
    const legacy = generateSecret();
    expect(isSealed(legacy)).toBe(false);
    expect(await box.open(legacy, owner)).toBe(legacy);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => localSecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('the KMS secret box', () => {
  it('encrypts and decrypts directly under its key, the endpoint as encryption context', async () => {
    const sent: unknown[] = [];
    const client = {
      send: async (command: EncryptCommand | DecryptCommand) => {
        sent.push(command);
        if (command instanceof EncryptCommand)
          return { CiphertextBlob: Buffer.concat([Buffer.from('ct:'), Buffer.from(command.input.Plaintext!)]) };
        return { Plaintext: Buffer.from(command.input.CiphertextBlob!).subarray(3) };
      },
    } as never;
    const kms = kmsSecretBox('arn:aws:kms:eu-west-1:111122223333:key/k', client);
    const secret = generateSecret();
    const sealed = await kms.seal(secret, owner);
    expect(sealed).toMatch(/^enc:kms:v1:/);
    expect(await kms.open(sealed, owner)).toBe(secret);
    const context = { org_id: '12', webhook_id: '3' };
    expect(sent[0]).toBeInstanceOf(EncryptCommand);
    expect((sent[0] as EncryptCommand).input).toMatchObject({
      KeyId: 'arn:aws:kms:eu-west-1:111122223333:key/k',
      EncryptionContext: context,
    });
    expect(sent[1]).toBeInstanceOf(DecryptCommand);
    expect((sent[1] as DecryptCommand).input).toMatchObject({
      KeyId: 'arn:aws:kms:eu-west-1:111122223333:key/k',
      EncryptionContext: context,
    });
    // A plaintext secret (written before sealing) needs no KMS call; a local envelope is refused.
    expect(await kms.open(secret, owner)).toBe(secret);
    expect(sent).toHaveLength(2);
    await expect(kms.open(await box.seal(secret, owner), owner)).rejects.toThrow(/sealed with local/);
  });
});

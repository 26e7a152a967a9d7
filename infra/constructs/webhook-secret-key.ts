import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { encryptionContext } from '../../lib/aws/secret-box.ts';
import type { SecretKeyUse } from '../grants.ts';
import type { ServiceFunction } from './service-function.ts';

/** The environment variable that tells a function the key (lib/config.ts: webhookSecrets). */
export const secretKeyVariable = 'WEBHOOK_SECRET_KMS_KEY_ID';

/**
 * The names of the encryption context that binds a ciphertext to its owner, as the secret box
 * writes it (lib/aws/secret-box.ts): a webhook endpoint's, or a GitHub-connected project's.
 */
export const secretContextKeys: Record<SecretKeyUse['owner'], string[]> = {
  webhook: Object.keys(encryptionContext({ orgId: 0, webhookId: 0 })),
  github: Object.keys(encryptionContext({ orgId: 0, githubProjectId: 0 })),
};

/**
 * The customer-managed KMS key that webhook signing secrets, and the secrets of connected GitHub
 * repositories, are sealed under (lib/aws/secret-box.ts), rotated yearly by KMS. Its key policy is
 * CDK's default (the account may delegate through IAM); the stack delegates to exactly the
 * functions of infra/grants.ts (`secretKeyUse`), each for its one action, and only with an
 * encryption context naming an owner of its kind.
 */
export class WebhookSecretKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description:
        'Seals webhook signing secrets at rest (Encrypt: webhook and GitHub create/rotate; Decrypt: delivery, GitHub receiver)',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      // A key scheduled for deletion can be cancelled within this window; after it, every sealed secret is lost.
      pendingWindow: Duration.days(30),
    });
  }

  /**
   * Lets `fn` Encrypt (seal) or Decrypt (open) with the key the secrets of `owner`'s kind, and names
   * the key in its environment.
   */
  allow(fn: ServiceFunction, use: SecretKeyUse['use'], owner: SecretKeyUse['owner']): void {
    fn.addEnvironment(secretKeyVariable, this.key.keyArn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [use === 'encrypt' ? 'kms:Encrypt' : 'kms:Decrypt'],
        resources: [this.key.keyArn],
        // Every use binds the ciphertext to its owner (organisation and webhook id, or organisation
        // and project id): a call without that context is refused.
        conditions: {
          Null: Object.fromEntries(secretContextKeys[owner].map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
        },
      }),
    );
  }
}

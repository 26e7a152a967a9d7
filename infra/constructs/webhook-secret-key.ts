import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function.ts';

/** The environment variable that tells a function the key (lib/config.ts: webhookSecrets). */
export const secretKeyVariable = 'WEBHOOK_SECRET_KMS_KEY_ID';

/**
 * The customer-managed KMS key that webhook signing secrets are sealed under
 * (lib/aws/secret-box.ts), rotated yearly by KMS. Its key policy is CDK's default (the account
 * may delegate through IAM); the stack delegates to exactly the functions of infra/grants.ts
 * (`secretKeyUse`), each for its one action, and only with an encryption context naming an endpoint.
 */
export class WebhookSecretKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: 'Seals webhook signing secrets at rest (Encrypt: webhook create/rotate; Decrypt: delivery)',
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy,
      // A key scheduled for deletion can be cancelled within this window; after it, every sealed secret is lost.
      pendingWindow: Duration.days(30),
    });
  }

  /** Lets `fn` Encrypt (seal) or Decrypt (open) with the key, and names the key in its environment. */
  allow(fn: ServiceFunction, use: 'encrypt' | 'decrypt'): void {
    fn.addEnvironment(secretKeyVariable, this.key.keyArn);
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: [use === 'encrypt' ? 'kms:Encrypt' : 'kms:Decrypt'],
        resources: [this.key.keyArn],
        // Every use binds the ciphertext to an endpoint (organisation and webhook id).
        conditions: { Null: { 'kms:EncryptionContext:org_id': 'false', 'kms:EncryptionContext:webhook_id': 'false' } },
      }),
    );
  }
}

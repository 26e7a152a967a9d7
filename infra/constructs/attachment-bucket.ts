import { Duration, Names, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, type CfnBucket, HttpMethods, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Validations } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ATTACHMENT_LIMITS } from '../../lib/vocabulary/attachments.ts';
import type { ObjectUse } from '../grants.ts';
import type { ServiceFunction } from './service-function.ts';

/** The environment variable that names the bucket to a function (lib/config.ts: attachments). */
export const bucketVariable = 'ATTACHMENTS_BUCKET';

/** Where the attachments' files live, and where their forms post (lib/aws/objects.ts). */
const FILES = 'o/';
const STAGING = 'staging/';

/** What each use of the bucket may do, and where (infra/grants.ts, `ObjectUse`). */
const actionsOf: Record<ObjectUse, { prefix: string; actions: string[] }[]> = {
  stage: [{ prefix: STAGING, actions: ['s3:PutObject'] }],
  promote: [
    // CopyObject reads its source and puts its copy.
    { prefix: STAGING, actions: ['s3:GetObject', 's3:DeleteObject'] },
    { prefix: FILES, actions: ['s3:PutObject', 's3:DeleteObject'] },
  ],
  get: [{ prefix: FILES, actions: ['s3:GetObject'] }],
  delete: [{ prefix: FILES, actions: ['s3:DeleteObject'] }],
};

/**
 * The private bucket of the attachments' files (docs/attachments.md). Nothing in it is public:
 * every upload and download is a request pre-signed by a function for one object and a few
 * minutes, so only the functions of infra/grants.ts (`objectUse`) hold any right on its objects,
 * each for its one action. Encrypted (S3-managed keys), TLS only, unversioned (a deleted
 * attachment is gone), incomplete multipart uploads removed after a day; CORS lets the configured
 * web origins post upload forms and read downloads.
 */
export class AttachmentBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; corsOrigins: readonly string[] }) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Files', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: false,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: props.removalPolicy,
      lifecycleRules: [
        // A multipart upload never completed.
        { id: 'incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // A file posted with an upload form that nothing took (never completed, or posted again
        // after its attachment was completed or deleted): no attachment refers to it, none counts it.
        { id: 'staged-uploads', prefix: STAGING, expiration: Duration.days(ATTACHMENT_LIMITS.stagingDays) },
      ],
      cors: props.corsOrigins.length
        ? [
            {
              allowedOrigins: [...props.corsOrigins],
              allowedMethods: [HttpMethods.POST, HttpMethods.GET, HttpMethods.HEAD],
              allowedHeaders: ['*'],
              maxAge: 3000,
            },
          ]
        : [],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'No server access logs: every request on the bucket is pre-signed by the API for one object and a few minutes, ' +
        "and the API's own access logs record who asked for each form and URL; a log bucket would add resources to a stack near its limit",
    });
  }

  /** Lets `fn` use the bucket's objects for `uses` (each its actions under its prefix), and names the bucket in its environment. */
  allow(fn: ServiceFunction, uses: readonly ObjectUse[]): void {
    fn.addEnvironment(bucketVariable, this.bucket.bucketName);
    const byPrefix = new Map<string, Set<string>>();
    for (const { prefix, actions } of uses.flatMap((use) => actionsOf[use])) {
      for (const action of actions) byPrefix.set(prefix, (byPrefix.get(prefix) ?? new Set()).add(action));
    }
    for (const [prefix, actions] of byPrefix) {
      fn.addToRolePolicy(
        new PolicyStatement({ actions: [...actions].sort(), resources: [this.bucket.arnForObjects(`${prefix}*`)] }),
      );
    }
    // cdk-nag names the bucket by its logical id in the same stack, by the nested stack's parameter elsewhere.
    const cfn = this.bucket.node.defaultChild as CfnBucket;
    const names =
      Stack.of(fn) === Stack.of(this)
        ? [`${Stack.of(this).getLogicalId(cfn)}.Arn`]
        : [`referenceto${Names.nodeUniqueId(cfn.node)}Arn`];
    for (const name of names) {
      for (const prefix of byPrefix.keys()) {
        Validations.of(fn.role!).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${name}>/${prefix}*]`,
          reason:
            "Attachments' objects are created per upload under o/ (keyed by organisation), their posted files under staging/: the action is on them all, in this one bucket",
        });
      }
    }
  }
}

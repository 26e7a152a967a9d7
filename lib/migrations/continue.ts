/**
 * Invokes a Lambda function asynchronously (`InvocationType: Event`), signed with Signature V4 by
 * the SDK's own signer and the execution role's credentials from the environment: the migration
 * function continues its run with it (functions/migrate.ts). One HTTPS request; the bundle carries
 * no Lambda client for it.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../aws/sha256.ts';

/**
 * Queues an invocation of `functionArn` with `payload` (Lambda answers 202 at once); throws when
 * Lambda refuses it. `endpoint` replaces Lambda's regional endpoint (tests: a loopback server).
 */
export async function invokeAsync(functionArn: string, payload: unknown, endpoint?: string): Promise<void> {
  const region = functionArn.split(':')[3] ?? process.env.AWS_REGION ?? 'us-east-1';
  const url = new URL(
    `/2015-03-31/functions/${encodeURIComponent(functionArn)}/invocations`,
    endpoint ?? `https://lambda.${region}.amazonaws.com`,
  );
  const body = JSON.stringify(payload);
  const signer = new SignatureV4({ service: 'lambda', region, credentials: fromEnv(), sha256: Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/json', 'x-amz-invocation-type': 'Event' },
    body,
  });
  const res = await fetch(url, { method: 'POST', headers: signed.headers, body });
  if (res.status !== 202) throw new Error(`Lambda refused the invocation of ${functionArn}: ${res.status} ${await res.text()}`);
}

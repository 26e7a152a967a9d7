/**
 * Invokes a Lambda function asynchronously (`InvocationType: Event`), signed with Signature V4 by
 * the SDK's own signer and the execution role's credentials from the environment: the migration
 * function continues its run with it (functions/migrate.ts). One HTTPS request; the bundle carries
 * no Lambda client for it.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import { SignatureV4 } from '@smithy/signature-v4';

/** SHA-256 (or its HMAC under `secret`) in the shape the signer takes. */
class Sha256 {
  private hash: Hash | Hmac;
  private readonly secret: string | Uint8Array | undefined;
  constructor(secret?: string | Uint8Array | ArrayBuffer | ArrayBufferView) {
    this.secret = secret === undefined ? undefined : typeof secret === 'string' ? secret : toBytes(secret);
    this.hash = this.fresh();
  }
  private fresh() {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', this.secret);
  }
  update(data: string | Uint8Array | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : toBytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const toBytes = (data: ArrayBuffer | ArrayBufferView): Uint8Array =>
  data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

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

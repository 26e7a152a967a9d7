/**
 * The local S3-compatible server holding the attachments' bucket, as `npm start` and the test
 * suite run it: on 127.0.0.1 only, path-style URLs, its own account (`S3RVER`, or
 * S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY), data under `dataDir` (kept across starts) or in a
 * temporary folder removed on stop (tests). `s3rver` stores the objects, on a loopback port of its
 * own; in front of it, on the server's address, a guard checks each request as S3 does
 * (tools/local/s3-guard.ts: signatures, expiry, POST policies, bucket names and keys), since s3rver
 * checks none of that (docs/attachments.md#locally).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { SignatureV4 } from '@smithy/signature-v4';
import S3rver from 's3rver';
import { readConfig } from '../../lib/config.ts';
import { Sha256 } from '../../lib/aws/sha256.ts';
import { createS3Guard } from './s3-guard.ts';

export interface RunningS3 {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

/** CORS for browser uploads and downloads from `origins` (the bucket's own rule in AWS: infra/constructs/attachment-bucket.ts). */
function corsConfiguration(origins: readonly string[]): string {
  const rules = origins
    .map(
      (origin) =>
        `<CORSRule><AllowedOrigin>${origin}</AllowedOrigin><AllowedMethod>POST</AllowedMethod><AllowedMethod>GET</AllowedMethod>` +
        '<AllowedHeader>*</AllowedHeader><MaxAgeSeconds>3000</MaxAgeSeconds></CORSRule>',
    )
    .join('');
  return `<CORSConfiguration>${rules}</CORSConfiguration>`;
}

export async function startLocalS3(options: {
  bucket: string;
  port?: number;
  dataDir?: string;
  origins?: readonly string[];
}): Promise<RunningS3> {
  const temporary = options.dataDir === undefined;
  const directory = temporary ? mkdtempSync(join(tmpdir(), 'sprint-ticketing-s3-')) : resolve(options.dataDir!, 's3');
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: options.bucket, configs: options.origins?.length ? [corsConfiguration(options.origins)] : [] }],
  });
  const { port: upstreamPort } = await server.run();
  const guard = createS3Guard({ upstreamPort, credentials: localS3Credentials() });
  try {
    await new Promise<void>((resolve, reject) => {
      guard.once('error', reject);
      guard.listen(options.port ?? 0, '127.0.0.1', resolve);
    });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    endpoint: `http://127.0.0.1:${(guard.address() as AddressInfo).port}`,
    bucket: options.bucket,
    async stop() {
      guard.closeAllConnections();
      await new Promise((resolve) => guard.close(resolve));
      await server.close();
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** The account the local server accepts signatures of: the one the service signs with (lib/config.ts). */
export const localS3Credentials = () => readConfig(process.env, false).attachments.localCredentials;

/** Creates a bucket on the local server at `endpoint` (CreateBucket, signed as S3 requires): its HTTP status. */
export async function createLocalBucket(endpoint: string, name: string): Promise<number> {
  const url = new URL(`${endpoint.replace(/\/+$/, '')}/${name}`);
  const signer = new SignatureV4({
    service: 's3',
    region: readConfig(process.env, false).attachments.region,
    credentials: localS3Credentials(),
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = await signer.sign({
    method: 'PUT',
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  });
  const res = await fetch(url, { method: 'PUT', headers: signed.headers });
  await res.body?.cancel();
  return res.status;
}

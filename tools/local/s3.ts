/**
 * The local S3-compatible server (`s3rver`, in this process) holding the attachments' bucket, as
 * `npm start` and the test suite run it: on 127.0.0.1 only, path-style URLs, its own account
 * (`S3RVER`), data under `dataDir` (kept across starts) or in a temporary folder removed on stop
 * (tests). It checks a pre-signed URL's expiry but neither Signature V4 signatures nor a POST
 * policy's conditions: docs/attachments.md says what the service checks itself on `complete`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import S3rver from 's3rver';

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
    port: options.port ?? 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: options.bucket, configs: options.origins?.length ? [corsConfiguration(options.origins)] : [] }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: options.bucket,
    async stop() {
      await server.close();
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * What the `/mcp` bundle holds in place of `@smithy/core/event-streams` (an esbuild alias scoped to
 * that function, infra/bundling.ts): the AWS SDK's protocol layer loads it with `import()` only to
 * read or write an event stream, and no DynamoDB operation has one. Bundled into one file, the
 * `import()` still brings the whole event-stream codec (about 13 KB) into the bundle.
 *
 * Should an SDK version reach it after all, the call fails loudly here; the names are the ones
 * `HttpProtocol.loadEventStreamCapability` takes, and a module importing another name fails the
 * bundle's build (esbuild: "No matching export"). Code run locally (tsx, tests) keeps the real module.
 */
function unused() {
  throw new Error('The SDK reached for event streams, which this bundle leaves out (infra/shims/no-event-streams.js)');
}

export class EventStreamSerde {
  constructor() {
    unused();
  }
}

export const eventStreamSerdeProvider = unused;

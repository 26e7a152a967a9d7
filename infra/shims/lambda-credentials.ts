/**
 * What Lambda bundles use instead of the SDK's default credential chain: an esbuild alias
 * (infra/bundling.ts) puts this module in place of `@aws-sdk/credential-provider-node`.
 *
 * On Lambda the default chain always stops at its first link, the environment, where Lambda puts
 * the execution role's credentials; the links after it (SSO, profiles, processes, web identity,
 * container and instance metadata) and the STS/SSO clients they carry are never reached, yet they
 * made up about 135 KB of every bundle. Code run locally (tsx, tests) is not bundled and keeps the
 * full chain.
 */
import { fromEnv, type FromEnvInit } from '@aws-sdk/credential-provider-env';

/** Same name and shape as the SDK's `defaultProvider`, which the clients' runtime config imports. */
export const defaultProvider = (init: FromEnvInit = {}) => fromEnv(init);

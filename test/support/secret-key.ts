/**
 * The local webhook secret key of the test run (lib/aws/secret-box.ts): fixed, so that the
 * delivery function of the run (test/support/global-setup.ts) opens what the test files sealed.
 * Test-only; `npm start` makes a random one of its own (tools/local/secret-key.ts).
 */
export const testSecretKey = Buffer.alloc(32, 7).toString('base64');

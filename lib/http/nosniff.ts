/**
 * On every answer (docs/api.md#security-headers): a browser takes the Content-Type as given and
 * never sniffs a JSON error or a document into HTML or script. The stack's responses, the
 * handlers outside it, API Gateway's own answers (infra) and the local gateway all carry it.
 */
export const NOSNIFF = { 'X-Content-Type-Options': 'nosniff' } as const;

/** The result with `NOSNIFF` among its headers. */
export const withNosniff = <R extends { headers?: Record<string, string | number | boolean> | undefined }>(result: R): R => ({
  ...result,
  headers: { ...result.headers, ...NOSNIFF },
});

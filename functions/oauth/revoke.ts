import { revokeToken } from '../../lib/domain/oauth-grants.ts';
import { formBody, oauthHandler } from '../../lib/oauth/http.ts';

/**
 * `POST /oauth/revoke` (RFC 7009): an access or refresh token ends its grant, both tokens at once.
 * 200 whether or not the token was known, so that the answer tells nothing about it.
 */
export const handler = oauthHandler(async (event) => {
  await revokeToken(formBody(event));
  return { statusCode: 200, headers: { 'Cache-Control': 'no-store' }, body: '' };
});

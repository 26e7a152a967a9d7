/**
 * The API key by which API Gateway's usage plan throttles an organisation (`org-` and the id
 * padded to 16 digits: API Gateway wants key values of 20 to 128 characters). The authorizer
 * returns it as `usageIdentifierKey`; the admin CLI creates it, once per organisation (never one
 * per token: API keys are capped at 10,000 per region). It is no secret: clients never send it,
 * the API takes its keys from the authorizer.
 */
export function usageKeyFor(orgId: number): string {
  return `org-${String(orgId).padStart(16, '0')}`;
}

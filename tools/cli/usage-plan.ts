/**
 * An organisation's API key in the deployed API's usage plan (the stack's `UsagePlanId` output).
 *
 * The REST API takes API keys from the authorizer (`usageIdentifierKey`), so clients never see
 * one, and a method that requires a key refuses (403) a caller whose key is not in the plan. Each
 * organisation therefore needs its key in the plan before its first request: `org:create` adds it,
 * `org:api-key` adds it for an organisation that lacks it (created before the stack was deployed,
 * or with USAGE_PLAN_ID unset). One key per organisation, never one per token: API Gateway allows
 * 10,000 API keys per region.
 */
import {
  type APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { usageKeyFor } from '../../lib/http/usage-key.ts';

export interface UsagePlanKey {
  api_key_id: string;
  usage_plan_id: string;
  /** False when the key already existed (it may already have been in the plan too). */
  created: boolean;
}

/** Name of the organisation's API key (the value is `usageKeyFor(orgId)`). */
export const apiKeyName = (orgId: number) => `sprint-ticketing-${usageKeyFor(orgId)}`;

/** Finds or creates the organisation's API key and puts it in the usage plan. Safe to run again. */
export async function ensureUsagePlanKey(client: APIGatewayClient, usagePlanId: string, orgId: number): Promise<UsagePlanKey> {
  const value = usageKeyFor(orgId);
  const name = apiKeyName(orgId);
  const find = async () => {
    const out = await client.send(new GetApiKeysCommand({ nameQuery: name, includeValues: true, limit: 500 }));
    return out.items?.find((k) => k.value === value);
  };
  let key = await find();
  let created = false;
  if (!key) {
    try {
      key = await client.send(
        new CreateApiKeyCommand({ name, value, enabled: true, description: `Usage plan key of organisation ${orgId}` }),
      );
      created = true;
    } catch (err) {
      // Created by a concurrent run in between: use that one.
      if (!(err instanceof ConflictException)) throw err;
      key = await find();
    }
  }
  if (!key?.id) throw new Error(`API key ${name} could not be created or found`);
  try {
    await client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
  } catch (err) {
    // Already in the plan.
    if (!(err instanceof ConflictException)) throw err;
  }
  return { api_key_id: key.id, usage_plan_id: usagePlanId, created };
}

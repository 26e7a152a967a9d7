import {
  type APIGatewayClient,
  ConflictException,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import { describe, expect, it } from 'vitest';
import { ensureUsagePlanKey } from '../../tools/cli/usage-plan.ts';
import { usageKeyFor } from '../../lib/http/usage-key.ts';

/** API Gateway's API keys and one usage plan, in memory (there is no local API Gateway to run). */
function fakeApiGateway(options: { failAttach?: Error } = {}) {
  const keys: { id: string; name: string; value: string }[] = [];
  const plan = new Set<string>();
  const client = {
    async send(command: unknown) {
      if (command instanceof GetApiKeysCommand) {
        const { nameQuery } = command.input;
        return { items: keys.filter((k) => !nameQuery || k.name.startsWith(nameQuery)) };
      }
      if (command instanceof CreateApiKeyCommand) {
        const { name, value } = command.input;
        if (keys.some((k) => k.value === value)) throw new ConflictException({ message: 'exists', $metadata: {} });
        const key = { id: `key${keys.length + 1}`, name: name!, value: value! };
        keys.push(key);
        return key;
      }
      if (command instanceof CreateUsagePlanKeyCommand) {
        if (options.failAttach) throw options.failAttach;
        if (plan.has(command.input.keyId!)) throw new ConflictException({ message: 'in plan', $metadata: {} });
        plan.add(command.input.keyId!);
        return {};
      }
      throw new Error(`unexpected command ${String(command)}`);
    },
  };
  return { client: client as unknown as APIGatewayClient, keys, plan };
}

describe('usage plan keys', () => {
  it('are valid API Gateway key values (20 to 128 characters) for every organisation id', () => {
    for (const id of [1, 42, 10_000, Number.MAX_SAFE_INTEGER]) {
      const key = usageKeyFor(id);
      expect(key.length).toBeGreaterThanOrEqual(20);
      expect(key.length).toBeLessThanOrEqual(128);
      expect(key.startsWith('org-')).toBe(true);
    }
    expect(usageKeyFor(42)).toBe('org-0000000000000042');
    expect(usageKeyFor(42)).not.toBe(usageKeyFor(420));
  });

  it('creates the organisation’s key with the value the authorizer returns and puts it in the plan', async () => {
    const api = fakeApiGateway();
    const result = await ensureUsagePlanKey(api.client, 'plan1', 42);
    expect(result).toEqual({ api_key_id: 'key1', usage_plan_id: 'plan1', created: true });
    expect(api.keys).toEqual([{ id: 'key1', name: 'sprint-ticketing-org-0000000000000042', value: usageKeyFor(42) }]);
    expect([...api.plan]).toEqual(['key1']);
  });

  it('is safe to run again: the existing key is reused and one already in the plan is fine', async () => {
    const api = fakeApiGateway();
    await ensureUsagePlanKey(api.client, 'plan1', 7);
    const again = await ensureUsagePlanKey(api.client, 'plan1', 7);
    expect(again).toEqual({ api_key_id: 'key1', usage_plan_id: 'plan1', created: false });
    expect(api.keys).toHaveLength(1);
  });

  it('keeps one key per organisation', async () => {
    const api = fakeApiGateway();
    await ensureUsagePlanKey(api.client, 'plan1', 1);
    await ensureUsagePlanKey(api.client, 'plan1', 2);
    expect(api.keys.map((k) => k.value)).toEqual([usageKeyFor(1), usageKeyFor(2)]);
    expect(api.plan.size).toBe(2);
  });

  it('reports any other failure', async () => {
    const api = fakeApiGateway({ failAttach: new Error('AccessDenied') });
    await expect(ensureUsagePlanKey(api.client, 'plan1', 3)).rejects.toThrow('AccessDenied');
  });
});

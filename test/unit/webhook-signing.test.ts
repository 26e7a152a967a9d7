import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { classifyAddress, refusalFor } from '../../lib/model/address-guard.ts';
import { backoffMs } from '../../lib/webhooks/deliver.ts';
import { generateSecret, signedHeaders } from '../../lib/model/signing.ts';

describe('webhook signatures', () => {
  it('verify with the standardwebhooks package, and fail for another body or secret', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: 'issue.created', data: { id: 1 } });
    const headers = signedHeaders([secret], 'msg_1', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
  });

  it('carry one signature per secret while a rotated secret is honoured: either verifies', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{}';
    const headers = signedHeaders([current, previous], 'msg_2', Math.floor(Date.now() / 1000), body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });
});

describe('the private-address guard', () => {
  it.each([
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['127.0.0.1', 'loopback'],
    ['127.5.5.5', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['2001:4860:4860::8888', 'public'],
  ])('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('allows loopback only when told to (locally), and never anything private', () => {
    expect(refusalFor('127.0.0.1', false)).toMatch(/loopback/);
    expect(refusalFor('127.0.0.1', true)).toBeUndefined();
    expect(refusalFor('169.254.169.254', true)).toMatch(/metadata/);
    expect(refusalFor('10.0.0.1', true)).toMatch(/private/);
    expect(refusalFor('93.184.215.14', false)).toBeUndefined();
  });
});

describe('the retry schedule', () => {
  it('doubles from the base and stops growing at the maximum', () => {
    const s = { backoffBaseMs: 10_000, backoffMaxMs: 3_600_000 };
    expect([1, 2, 3, 4].map((n) => backoffMs(n, s))).toEqual([10_000, 20_000, 40_000, 80_000]);
    expect(backoffMs(30, s)).toBe(3_600_000);
  });

  it('keeps retrying for at least 24 hours with the defaults (attempts within the window)', () => {
    const s = { backoffBaseMs: 10_000, backoffMaxMs: 3_600_000 };
    let elapsed = 0;
    let attempts = 1;
    while (elapsed < 24 * 3_600_000) elapsed += backoffMs(attempts++, s);
    expect(attempts).toBeGreaterThan(20);
    expect(attempts).toBeLessThan(40);
  });
});

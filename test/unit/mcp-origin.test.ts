import { describe, expect, it } from 'vitest';
import { originRefusal, type OriginSettings } from '../../lib/mcp/http.ts';

/** Who may call /mcp, as a pure decision on the request's headers (nothing is sent anywhere). */
const local: OriginSettings = {
  publicUrl: 'http://localhost:3000',
  corsOrigins: ['http://localhost:5173'],
  allowedOrigins: ['http://localhost:6274'],
  allowedHosts: ['localhost:3000', '127.0.0.1:3000', '[::1]:3000'],
};
const deployed: OriginSettings = {
  publicUrl: 'https://api.example.com',
  corsOrigins: [],
  allowedOrigins: [],
  allowedHosts: [],
};

describe('the Origin and Host checks of /mcp', () => {
  it('lets a request without Origin through, as non-browser clients send it', () => {
    expect(originRefusal({ Host: 'localhost:3000' }, local)).toBeUndefined();
    expect(originRefusal({ host: 'api.example.com' }, deployed)).toBeUndefined();
  });

  it("allows the service's own origins and the configured ones, in any case", () => {
    for (const origin of [
      'http://localhost:3000',
      'http://127.0.0.1:3000',
      'http://[::1]:3000',
      'http://localhost:5173',
      'HTTP://LOCALHOST:6274',
    ]) {
      expect(originRefusal({ Host: 'localhost:3000', Origin: origin }, local), origin).toBeUndefined();
    }
    expect(originRefusal({ host: 'api.example.com', origin: 'https://api.example.com' }, deployed)).toBeUndefined();
  });

  it('refuses any other Origin, null included', () => {
    for (const origin of [
      'http://evil.example.com',
      'http://localhost:3001',
      'https://localhost:3000',
      'null',
      'http://api.example.com',
    ]) {
      expect(originRefusal({ Host: 'localhost:3000', Origin: origin }, local), origin).toMatch(
        /^Origin .* may not call this MCP server/,
      );
    }
    expect(originRefusal({ host: 'api.example.com', origin: 'http://api.example.com' }, deployed)).toMatch(/may not call/);
  });

  it('refuses a Host the deployment does not name (a DNS rebinding), with or without Origin', () => {
    expect(originRefusal({ Host: 'evil.example.com:3000' }, local)).toMatch(
      /^Host evil\.example\.com:3000 is not one this MCP server answers to/,
    );
    expect(originRefusal({ Host: 'evil.example.com:3000', Origin: 'http://evil.example.com:3000' }, local)).toMatch(/^Host /);
    expect(originRefusal({}, local)).toMatch(/^Host \(none\)/);
    expect(originRefusal({ Host: 'LOCALHOST:3000' }, local)).toBeUndefined();
  });

  it('checks no Host where the deployment names none (API Gateway serves only its own hosts)', () => {
    expect(originRefusal({ host: 'anything.example.com' }, deployed)).toBeUndefined();
    expect(originRefusal({ host: 'anything.example.com' }, { ...deployed, allowedHosts: ['other.example.com'] })).toMatch(
      /^Host /,
    );
    expect(originRefusal({ host: 'api.example.com' }, { ...deployed, allowedHosts: ['other.example.com'] })).toBeUndefined();
  });
});

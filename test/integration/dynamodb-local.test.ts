import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { compiledLauncher, dynamoDbLocalArgs } from '../../tools/local/dynamodb.ts';

/**
 * The addresses on which something listens on `port`, from the kernel's socket tables (no traffic
 * sent): `127.0.0.1`, `::ffff:127.0.0.1`, `0.0.0.0`, `::`...
 */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const found: string[] = [];
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // 0A: LISTEN
      if (!local || state !== '0A' || !local.endsWith(`:${hexPort}`)) continue;
      found.push(v6 ? ipv6Of(local.split(':')[0]!) : ipv4Of(local.split(':')[0]!));
    }
  }
  return found;
}

/** /proc/net writes each 32-bit word in host (little-endian) byte order. */
const wordBytes = (hex: string) => (hex.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16));
const ipv4Of = (hex: string) => wordBytes(hex).join('.');
function ipv6Of(hex: string): string {
  const bytes = (hex.match(/.{8}/g) ?? []).flatMap(wordBytes);
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) {
    return `::ffff:${bytes.slice(12).join('.')}`;
  }
  const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
  return groups
    .join(':')
    .replace(/^(0:)+0$/, '::')
    .replace(/^(0:)+1$/, '::1');
}

describe('DynamoDB Local', () => {
  it.skipIf(!existsSync('/proc/net/tcp'))('listens on 127.0.0.1 only, never on every interface', () => {
    const port = Number(new URL(inject('dynamodbEndpoint')).port);
    const addresses = listeningAddresses(port);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(['127.0.0.1', '::ffff:127.0.0.1', '::1']).toContain(address);
  });

  it('runs through the loopback launcher, with its own runner options and no telemetry', () => {
    const args = dynamoDbLocalArgs(8123, null);
    expect(args.find((a) => a.endsWith('DynamoDbLocalOnLoopback.java'))).toBeDefined();
    expect(args).toEqual(expect.arrayContaining(['-port', '8123', '-inMemory', '-sharedDb', '-disableTelemetry']));
    expect(dynamoDbLocalArgs(8123, '/data')).toEqual(expect.arrayContaining(['-dbPath', '/data']));
  });

  it('runs the launcher from its class, compiled once into node_modules/.cache, where javac is on the PATH', async () => {
    const folder = await compiledLauncher();
    expect(folder).toMatch(/node_modules\/\.cache\/dynamodb-local-launcher\/[0-9a-f]{16}$/);
    expect(existsSync(join(folder!, 'DynamoDbLocalOnLoopback.class'))).toBe(true);
    // Asked again, the same folder, not compiled again.
    const { mtimeMs } = statSync(folder!);
    expect(await compiledLauncher()).toBe(folder);
    expect(statSync(folder!).mtimeMs).toBe(mtimeMs);
    const args = dynamoDbLocalArgs(8123, null, [], folder);
    expect(args.slice(args.indexOf('-cp'), args.indexOf('-port'))).toEqual([
      '-cp',
      `DynamoDBLocal.jar${delimiter}${folder}`,
      'DynamoDbLocalOnLoopback',
    ]);
    // The run's DynamoDB Local (global setup) was started so.
    const port = new URL(inject('dynamodbEndpoint')).port;
    const commandLines = readdirSync('/proc')
      .filter((pid) => /^\d+$/.test(pid))
      .map((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        } catch {
          return [];
        }
      });
    const emulator = commandLines.find((argv) => argv[0] === 'java' && argv.includes(port));
    expect(emulator).toEqual(expect.arrayContaining([`DynamoDBLocal.jar${delimiter}${folder}`, 'DynamoDbLocalOnLoopback']));
  });
});

import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may never be sent to: the service must not become a way into private
 * networks or the instance metadata service (169.254.169.254, fd00:ec2::254). The host of an
 * endpoint is resolved at delivery time and every address it resolves to is checked; the request
 * then goes to the checked address (a second resolution could answer differently).
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'metadata' | 'reserved';

const ranges: [AddressKind, string, number, 'ipv4' | 'ipv6'][] = [
  ['metadata', '169.254.169.254', 32, 'ipv4'],
  ['metadata', 'fd00:ec2::254', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  // Carrier-grade NAT: private to whoever runs it.
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['reserved', '0.0.0.0', 8, 'ipv4'],
  ['reserved', '192.0.0.0', 24, 'ipv4'],
  ['reserved', '198.18.0.0', 15, 'ipv4'],
  ['reserved', '224.0.0.0', 4, 'ipv4'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
  ['reserved', '::', 128, 'ipv6'],
  ['reserved', 'ff00::', 8, 'ipv6'],
];

const lists = ranges.map(([kind, network, prefix, type]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { kind, list, type };
});

/** What kind of address this is (an IPv4-mapped IPv6 address is judged by its IPv4 address). */
export function classifyAddress(address: string): AddressKind {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return classifyAddress(mapped[1] as string);
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const { kind, list, type: t } of lists) if (t === type && list.check(address, type)) return kind;
  return 'public';
}

/**
 * Why a delivery to this address is refused, or undefined when it may go. `allowLoopback` is for
 * running locally (`npm start`, tests) only; nothing else is ever allowed.
 */
export function refusalFor(address: string, allowLoopback: boolean): string | undefined {
  const kind = classifyAddress(address);
  if (kind === 'public' || (kind === 'loopback' && allowLoopback)) return undefined;
  return `refused: ${address} is a ${kind} address`;
}

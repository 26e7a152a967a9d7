import { BlockList, isIP } from 'node:net';

/**
 * Which addresses and ports a webhook may never be sent to: the service must not become a way into
 * private networks or the instance metadata service (169.254.169.254, fd00:ec2::254). A literal
 * address is checked when the endpoint is registered; at delivery the host is resolved and every
 * address it resolves to is checked, and the request then goes to the checked address (a second
 * resolution could answer differently).
 *
 * An address is judged by what it reaches: an IPv6 address that carries an IPv4 address (mapped,
 * compatible, translated, NAT64, 6to4, Teredo) is judged by that IPv4 address, because that is
 * where the packets end up. The URL parser writes `[::ffff:127.0.0.1]` as `[::ffff:7f00:1]`, so the
 * embedded address is read from the bits, never from the text.
 */
export type AddressKind =
  'public' | 'loopback' | 'private' | 'link-local' | 'unique-local' | 'metadata' | 'documentation' | 'discard' | 'reserved';

/** How an IPv6 address carries an IPv4 address. */
export type EmbeddingForm =
  'IPv4-mapped' | 'IPv4-compatible' | 'IPv4-translated' | 'NAT64' | '6to4' | 'Teredo server' | 'Teredo client';

/** What an address is, and the IPv4 address it was judged by when it carries one. */
export interface AddressJudgement {
  kind: AddressKind;
  embedded?: { form: EmbeddingForm; ipv4: string };
}

// The most specific ranges first: the first match decides.
const ipv4Ranges: [AddressKind, string, number][] = [
  ['metadata', '169.254.169.254', 32],
  ['loopback', '127.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['private', '172.16.0.0', 12],
  ['private', '192.168.0.0', 16],
  // Carrier-grade NAT: private to whoever runs it.
  ['private', '100.64.0.0', 10],
  ['link-local', '169.254.0.0', 16],
  ['documentation', '192.0.2.0', 24],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['reserved', '0.0.0.0', 8],
  ['reserved', '192.0.0.0', 24],
  // The deprecated 6to4 relay anycast: whichever relay is nearest, nobody's endpoint.
  ['reserved', '192.88.99.0', 24],
  ['reserved', '198.18.0.0', 15],
  ['reserved', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
];

const ipv6Ranges: [AddressKind, string, number][] = [
  ['metadata', 'fd00:ec2::254', 128],
  ['loopback', '::1', 128],
  ['reserved', '::', 128],
  // NAT64 local use (RFC 8215): translates into the operator's own network.
  ['private', '64:ff9b:1::', 48],
  ['discard', '100::', 64],
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['link-local', 'fe80::', 10],
  ['reserved', 'fec0::', 10],
  ['unique-local', 'fc00::', 7],
  ['reserved', 'ff00::', 8],
];

function compile(ranges: [AddressKind, string, number][], type: 'ipv4' | 'ipv6') {
  return ranges.map(([kind, network, prefix]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return { kind, list };
  });
}
const ipv4Lists = compile(ipv4Ranges, 'ipv4');
const ipv6Lists = compile(ipv6Ranges, 'ipv6');

/** Global unicast (2000::/3): every public IPv6 address is in it; nothing outside it is anyone's endpoint. */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a trailing dotted quad and a zone allowed). */
function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const parse = (part: string) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const [head = '', tail] = text.split('::');
  if (tail === undefined) return parse(head);
  const [h, t] = [parse(head), parse(tail)];
  return [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');

/** The IPv4 addresses an IPv6 address carries, by the form that carries them. */
function embeddedIpv4(g: number[]): { form: EmbeddingForm; ipv4: string }[] {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const last = ipv4Of(g[6]!, g[7]!);
  if (zeros(0, 5) && g[5] === 0xffff) return [{ form: 'IPv4-mapped', ipv4: last }];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [{ form: 'IPv4-translated', ipv4: last }];
  if (zeros(0, 6)) return [{ form: 'IPv4-compatible', ipv4: last }];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [{ form: 'NAT64', ipv4: last }];
  if (g[0] === 0x2002) return [{ form: '6to4', ipv4: ipv4Of(g[1]!, g[2]!) }];
  if (g[0] === 0x2001 && g[1] === 0) {
    // Teredo (RFC 4380): the server's address in bits 32..63, the client's obfuscated (XOR) at the end.
    return [
      { form: 'Teredo server', ipv4: ipv4Of(g[2]!, g[3]!) },
      { form: 'Teredo client', ipv4: ipv4Of(g[6]! ^ 0xffff, g[7]! ^ 0xffff) },
    ];
  }
  return [];
}

function ipv4Kind(address: string): AddressKind {
  for (const { kind, list } of ipv4Lists) if (list.check(address, 'ipv4')) return kind;
  return 'public';
}

/**
 * What an address reaches: IPv4 by its ranges; IPv6 by its own ranges, then by any IPv4 address it
 * carries (Teredo's two: the one refused in more places decides), then public only within 2000::/3.
 * Anything that is not an address is `reserved`.
 */
export function judgeAddress(address: string): AddressJudgement {
  const family = isIP(address);
  if (family === 4) return { kind: ipv4Kind(address) };
  if (family !== 6) return { kind: 'reserved' };
  const bare = address.replace(/%.*$/, '');
  for (const { kind, list } of ipv6Lists) if (list.check(bare, 'ipv6')) return { kind };
  const carried = embeddedIpv4(ipv6Groups(bare)).map((embedded) => ({ kind: ipv4Kind(embedded.ipv4), embedded }));
  // Teredo carries two: a loopback one must not let a private one through where loopback is allowed.
  const worst =
    carried.find((c) => c.kind !== 'public' && c.kind !== 'loopback') ?? carried.find((c) => c.kind === 'loopback') ?? carried[0];
  if (worst) return worst;
  return { kind: globalUnicast.check(bare, 'ipv6') ? 'public' : 'reserved' };
}

/** What kind of address this is (see judgeAddress). */
export function classifyAddress(address: string): AddressKind {
  return judgeAddress(address).kind;
}

/**
 * The judgement of an address a webhook may not reach, or undefined when it may. `allowLoopback` is
 * for running locally (`npm start`, tests) only, and allows loopback addresses themselves
 * (127.0.0.0/8, ::1): an IPv6 address that carries 127.0.0.1 (mapped, NAT64, 6to4, Teredo...)
 * is still refused, since where it leads depends on a translator, not on this machine.
 */
export function refusedAddress(address: string, allowLoopback: boolean): AddressJudgement | undefined {
  const judgement = judgeAddress(address);
  if (judgement.kind === 'public') return undefined;
  if (judgement.kind === 'loopback' && allowLoopback && !judgement.embedded) return undefined;
  return judgement;
}

/** `a loopback address (IPv4-mapped 127.0.0.1)`: the kind, and the IPv4 address it was judged by. */
export function describeJudgement(judgement: AddressJudgement): string {
  const via = judgement.embedded ? ` (${judgement.embedded.form} ${judgement.embedded.ipv4})` : '';
  return `a ${judgement.kind} address${via}`;
}

/** Why a delivery to this address is refused, or undefined when it may go. */
export function refusalFor(address: string, allowLoopback: boolean): string | undefined {
  const judgement = refusedAddress(address, allowLoopback);
  return judgement && `refused: ${address} is ${describeJudgement(judgement)}`;
}

/** Ports a webhook may use: the web's two, and the unprivileged range (no probing of SSH, SMTP, databases...). */
export function portAllowed(port: number): boolean {
  return port === 80 || port === 443 || (port >= 1024 && port <= 65535);
}

/** The port a URL connects to: its own, or its scheme's default. */
export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The host of a URL without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Why an endpoint URL is refused before anything is resolved, or undefined: a port outside the
 * allowed ones, or a literal address the guard refuses. A host name passes here; its addresses are
 * checked at every delivery. The same decision is made when the endpoint is registered and when
 * it is delivered to.
 */
export function endpointRefusal(url: URL, allowLoopback: boolean): string | undefined {
  const port = portOf(url);
  if (!portAllowed(port)) return `port ${port} is not allowed (only 80, 443 and 1024-65535)`;
  const host = hostOf(url);
  if (isIP(host) === 0) return undefined;
  const judgement = refusedAddress(host, allowLoopback);
  return judgement && `${host} is ${describeJudgement(judgement)}`;
}

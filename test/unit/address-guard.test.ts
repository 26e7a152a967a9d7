import { describe, expect, it } from 'vitest';
import { endpointRefusal, refusalFor } from '../../lib/model/address-guard.ts';
import { failureWords } from '../../lib/webhooks/post.ts';

/**
 * The private-address guard as a pure decision: a URL string as an admin writes it goes through
 * `new URL()` (which rewrites `[::ffff:127.0.0.1]` to `[::ffff:7f00:1]`), and the guard refuses or
 * allows it. Nothing here is sent anywhere.
 */
const judge = (url: string, allowLoopback = false) => endpointRefusal(new URL(url), allowLoopback);

// Teredo: server IPv4 in bits 32..63, client IPv4 in the last 32 bits XOR 0xffffffff.
// 8.8.8.8 = 0808:0808 (client f7f7:f7f7); 127.0.0.1 = 7f00:0001 (client 80ff:fffe);
// 169.254.169.254 = a9fe:a9fe (client 5601:5601); 10.0.0.1 = 0a00:0001 (client f5ff:fffe).
const refused: [string, RegExp][] = [
  // IPv4-mapped, dotted as written and hex as the URL parser writes it
  ['http://[::ffff:127.0.0.1]:8080/', /^::ffff:7f00:1 is a loopback address \(IPv4-mapped 127\.0\.0\.1\)$/],
  ['http://[::ffff:7f00:1]:8080/', /loopback address \(IPv4-mapped 127\.0\.0\.1\)/],
  ['http://[::ffff:169.254.169.254]/', /metadata address \(IPv4-mapped 169\.254\.169\.254\)/],
  ['http://[::ffff:a9fe:a9fe]/', /metadata address \(IPv4-mapped 169\.254\.169\.254\)/],
  ['http://[::ffff:10.0.0.1]/', /private address \(IPv4-mapped 10\.0\.0\.1\)/],
  ['http://[::ffff:c0a8:101]/', /private address \(IPv4-mapped 192\.168\.1\.1\)/],
  ['http://[::ffff:169.254.1.1]/', /link-local address \(IPv4-mapped/],
  ['http://[::ffff:0:127.0.0.1]/', /loopback address \(IPv4-translated 127\.0\.0\.1\)/],
  // IPv4-compatible
  ['http://[::127.0.0.1]/', /loopback address \(IPv4-compatible 127\.0\.0\.1\)/],
  ['http://[::7f00:1]/', /loopback address \(IPv4-compatible 127\.0\.0\.1\)/],
  ['http://[::169.254.169.254]/', /metadata address \(IPv4-compatible 169\.254\.169\.254\)/],
  ['http://[::10.1.2.3]/', /private address \(IPv4-compatible 10\.1\.2\.3\)/],
  // NAT64 well-known prefix, judged by the IPv4 address it translates to
  ['http://[64:ff9b::127.0.0.1]/', /loopback address \(NAT64 127\.0\.0\.1\)/],
  ['http://[64:ff9b::7f00:1]/', /loopback address \(NAT64 127\.0\.0\.1\)/],
  ['http://[64:ff9b::a9fe:a9fe]/', /metadata address \(NAT64 169\.254\.169\.254\)/],
  ['http://[64:ff9b::192.168.0.10]/', /private address \(NAT64 192\.168\.0\.10\)/],
  // NAT64 local use: the operator's own network, whatever it embeds
  ['http://[64:ff9b:1::8.8.8.8]/', /private address$/],
  ['http://[64:ff9b:1:abcd::1]/', /private address$/],
  // 6to4
  ['http://[2002:7f00:1::1]/', /loopback address \(6to4 127\.0\.0\.1\)/],
  ['http://[2002:a9fe:a9fe::1]/', /metadata address \(6to4 169\.254\.169\.254\)/],
  ['http://[2002:a00:1::1]/', /private address \(6to4 10\.0\.0\.1\)/],
  // Teredo: the client's address and the server's, either refused refuses
  ['http://[2001:0:808:808:8000:f227:80ff:fffe]/', /loopback address \(Teredo client 127\.0\.0\.1\)/],
  ['http://[2001:0:808:808:8000:f227:5601:5601]/', /metadata address \(Teredo client 169\.254\.169\.254\)/],
  ['http://[2001:0:808:808:8000:f227:f5ff:fffe]/', /private address \(Teredo client 10\.0\.0\.1\)/],
  ['http://[2001:0:7f00:1:8000:f227:f7f7:f7f7]/', /loopback address \(Teredo server 127\.0\.0\.1\)/],
  ['http://[2001:0:a9fe:a9fe:8000:f227:f7f7:f7f7]/', /metadata address \(Teredo server 169\.254\.169\.254\)/],
  ['http://[2001:0:a00:1:8000:f227:f7f7:f7f7]/', /private address \(Teredo server 10\.0\.0\.1\)/],
  // discard, documentation
  ['http://[100::1]/', /discard address$/],
  ['http://[100::ffff:8.8.8.8]/', /discard address$/],
  ['http://[2001:db8::1]/', /documentation address$/],
  ['http://192.0.2.1/', /documentation address$/],
  ['http://198.51.100.7/', /documentation address$/],
  ['http://203.0.113.9/', /documentation address$/],
  ['http://[::ffff:203.0.113.9]/', /documentation address \(IPv4-mapped 203\.0\.113\.9\)/],
  // IPv4 as written and as the URL parser reads other spellings of it
  ['http://127.0.0.1:8080/', /^127\.0\.0\.1 is a loopback address$/],
  ['http://0x7f000001:8080/', /^127\.0\.0\.1 is a loopback address$/],
  ['http://2130706433:8080/', /^127\.0\.0\.1 is a loopback address$/],
  ['http://0177.0.0.1:8080/', /^127\.0\.0\.1 is a loopback address$/],
  ['http://169.254.169.254/latest/meta-data/', /metadata address$/],
  ['http://10.20.30.40/', /private address$/],
  ['http://100.64.0.1/', /private address$/],
  ['http://0.0.0.0/', /reserved address$/],
  // IPv6 by its own ranges
  ['http://[::1]/', /loopback address$/],
  ['http://[::]/', /reserved address$/],
  ['http://[fd00:ec2::254]/', /metadata address$/],
  ['http://[fe80::1]/', /link-local address$/],
  ['http://[fd12:3456::1]/', /unique-local address$/],
  ['http://[ff02::1]/', /reserved address$/],
  ['http://[4000::1]/', /reserved address$/],
  ['http://[64:ff9b::1:0:0:1]/', /reserved address$/],
];

describe('the private-address guard, URL in, decision out', () => {
  it.each(refused)('refuses %s', (url, why) => {
    expect(judge(url)).toMatch(why);
  });

  it.each([
    'https://[::ffff:8.8.8.8]/',
    'https://[::ffff:808:808]/',
    'https://[::8.8.8.8]/',
    'https://[64:ff9b::8.8.8.8]/',
    'https://[64:ff9b::808:808]/',
    'https://[2002:808:808::1]/',
    'https://[2001:0:808:808:8000:f227:f7f7:f7f7]/',
    'https://[2001:4860:4860::8888]/',
    'https://8.8.8.8/',
    'https://172.32.0.1/',
    'https://hooks.example.com/',
    'https://localhost/',
  ])('allows %s (a host name is checked at delivery, by what it resolves to)', (url) => {
    expect(judge(url)).toBeUndefined();
  });

  it('allows loopback addresses themselves where loopback is allowed (locally), and nothing else', () => {
    for (const url of ['http://127.0.0.1:8080/', 'http://127.1.2.3:8080/', 'http://[::1]:8080/', 'http://2130706433:8080/']) {
      expect(judge(url, true), url).toBeUndefined();
      expect(judge(url, false), url).toMatch(/loopback address/);
    }
    for (const [url, why] of refused.filter(([, why]) => !/loopback/.test(why.source))) {
      expect(judge(url, true), url).toMatch(why);
    }
  });

  it.each([
    ['http://[::ffff:127.0.0.1]:8080/', 'IPv4-mapped'],
    ['http://[::ffff:7f00:1]:8080/', 'IPv4-mapped'],
    ['http://[::ffff:0:127.0.0.1]:8080/', 'IPv4-translated'],
    ['http://[::127.0.0.1]:8080/', 'IPv4-compatible'],
    ['http://[64:ff9b::7f00:1]:8080/', 'NAT64'],
    ['http://[64:ff9b::127.0.0.1]:8080/', 'NAT64'],
    ['http://[2002:7f00:1::]:8080/', '6to4'],
    ['http://[2002:7f00:1::1]:8080/', '6to4'],
    ['http://[2001:0:808:808:8000:f227:80ff:fffe]:8080/', 'Teredo client'],
    ['http://[2001:0:7f00:1:8000:f227:f7f7:f7f7]:8080/', 'Teredo server'],
  ])('refuses %s even where loopback is allowed: it carries 127.0.0.1 (%s) but is no loopback address', (url, form) => {
    const why = new RegExp(`loopback address \\(${form} 127\\.0\\.0\\.1\\)$`);
    expect(judge(url, true), url).toMatch(why);
    expect(judge(url, false), url).toMatch(why);
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    expect(refusalFor(host, true), url).toMatch(/^refused: .* is a loopback address \(/);
  });

  it('judges Teredo by both its addresses: a loopback server does not let a private client through', () => {
    // server 127.0.0.1, client 10.0.0.1
    expect(judge('http://[2001:0:7f00:1:8000:f227:f5ff:fffe]/', true)).toMatch(/private address \(Teredo client 10\.0\.0\.1\)/);
    // server 10.0.0.1, client 127.0.0.1
    expect(judge('http://[2001:0:a00:1:8000:f227:80ff:fffe]/', true)).toMatch(/private address \(Teredo server 10\.0\.0\.1\)/);
  });

  it.each([
    ['http://hooks.example.com:22/', 22],
    ['https://hooks.example.com:25/', 25],
    ['http://hooks.example.com:0/', 0],
    ['http://hooks.example.com:1023/', 1023],
    ['https://8.8.8.8:6379/', null],
  ])('refuses %s for its port unless it is 80, 443 or 1024-65535', (url, port) => {
    if (port === null) expect(judge(url)).toBeUndefined();
    else expect(judge(url)).toBe(`port ${port} is not allowed (only 80, 443 and 1024-65535)`);
  });

  it.each([
    'http://hooks.example.com/',
    'https://hooks.example.com/',
    'http://hooks.example.com:80/',
    'https://hooks.example.com:443/',
    'http://hooks.example.com:443/',
    'https://hooks.example.com:80/',
    'https://hooks.example.com:1024/',
    'https://hooks.example.com:65535/',
  ])('allows the port of %s (no port is the scheme default)', (url) => {
    expect(judge(url)).toBeUndefined();
  });

  it('refuses a forbidden port even on a loopback receiver where loopback is allowed', () => {
    expect(judge('http://127.0.0.1:22/', true)).toMatch(/^port 22 is not allowed/);
  });
});

describe('the words of a failed delivery', () => {
  const failure = (code: string, message = `connect ${code} 10.1.2.3:5432`) => Object.assign(new Error(message), { code });

  it.each([
    [failure('ECONNREFUSED'), 'connection refused'],
    [failure('ECONNRESET', 'socket hang up'), 'connection closed before a response'],
    [failure('EHOSTUNREACH'), 'host unreachable'],
    [failure('ENOTFOUND', 'getaddrinfo ENOTFOUND db.internal.corp'), 'DNS failure: the host could not be resolved'],
    [failure('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'), 'TLS failure: no secure connection could be made'],
    [
      failure('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      'TLS failure: no secure connection could be made',
    ],
    [
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
      'timeout: no response within 2000 ms',
    ],
    [failure('EWHATEVER'), 'connection failed'],
  ])('are the service’s own, never the error text: %s', (err, words) => {
    expect(failureWords(err, 2000)).toBe(words);
  });
});

import { describe, expect, it } from 'vitest';
import { apiClient, newOrganisation, useGateway } from '../support/api.ts';
import { rawExchange } from '../support/raw-http.ts';

const targets = [
  '/',
  '//',
  '///api/v1/me',
  '/%',
  '/%zz',
  '/api/v1/%',
  '/api/v1/projects/%E0%A4%A',
  '/api/v1/issues/%00/attachments/%ff',
  '/../../etc/passwd',
  '/api/v1/projects/1/../../me',
  '/\\\\',
  '/api/v1/me?%=%&a=%zz&__proto__=1',
  '/mcp',
  '/api-docs/',
  '*',
  'http://elsewhere.example/api/v1/me',
  '/' + 'a'.repeat(6000),
];
const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND'];
const hosts = [undefined, '', '[', 'a b', 'localhost:99999', '%', '[::1', 'x'.repeat(3000)];

/** Every method on every target, with a Host that goes round the list (absent, empty, malformed, long). */
function hostileRequests(): string[] {
  const requests: string[] = [];
  let n = 0;
  for (const round of [0, 1])
    for (const target of targets)
      for (const method of methods) {
        const host = hosts[(n++ + round) % hosts.length];
        const body = method === 'GET' && n % 2 === 0 ? '{"a":' : '';
        const head = [`${method} ${target} HTTP/1.1`];
        if (host !== undefined) head.push(`Host: ${host}`);
        if (n % 3 === 0) head.push('Authorization: Bearer stk_not-a-token', 'X-API-Token: other');
        if (n % 5 === 0) head.push('Origin: null', 'Access-Control-Request-Method: DELETE');
        if (body) head.push('Content-Type: application/json', `Content-Length: ${body.length}`);
        requests.push(`${head.join('\r\n')}\r\n\r\n${body}`);
      }
  // What Node's parser refuses before any handler: the gateway answers these itself.
  requests.push(
    'BREW /api/v1/me HTTP/1.1\r\nHost: localhost\r\n\r\n',
    'G ET / HTTP/1.1\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'GET /\r\n\r\n',
    'GET / HTTP/1.1\r\nNo colon here\r\n\r\n',
    'GET / HTTP/1.1\r\nBad Name: x\r\n\r\n',
    'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
    'GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n',
    'GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n',
    'POST /api/v1/projects HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    `GET / HTTP/1.1\r\nX-Long: ${'y'.repeat(20_000)}\r\n\r\n`,
    `GET /api/v1/me HTTP/1.1\r\nAuthorization: Bearer ${'z'.repeat(12_000)}\r\n\r\n`,
    'GET /api/v1/me HTTP/1.1\r\nHost: \u00ff\u00fe\r\nAccept-Encoding: gzip;q=nan, *;q=2\r\n\r\n',
    '\r\n\r\nGET // HTTP/1.1\r\n\r\n',
    '\u0000\u0001\u0002 / HTTP/1.1\r\n\r\n',
  );
  return requests;
}

describe('the local gateway under hostile requests', () => {
  const gateway = useGateway();

  it('answers every one of a few hundred malformed requests, and still serves GET /me after', async () => {
    const { port } = new URL(gateway.baseUrl);
    const requests = hostileRequests();
    expect(requests.length).toBeGreaterThan(280);
    const heads: string[] = [];
    // A few connections at a time: each request on its own.
    for (let i = 0; i < requests.length; i += 16)
      heads.push(...(await Promise.all(requests.slice(i, i + 16).map((bytes) => rawExchange(Number(port), bytes)))));
    // An answer to each, and never the last resort's 500: each has a status of its own.
    heads.forEach((head, i) => expect(head, requests[i]!.slice(0, 80)).toMatch(/^HTTP\/1\.1 [1-4]\d\d /));
    // Each says what went wrong in JSON, as API Gateway does, but a preflight (204) and the API's reference page.
    const other = heads.filter(
      (head, i) =>
        !/^content-type: application\/json/im.test(head) &&
        !/^HTTP\/1\.1 204 /.test(head) &&
        !/ \/api-docs\/ /.test(requests[i]!.split('\r\n')[0]!),
    );
    expect(other).toEqual([]);
    const org = await newOrganisation();
    expect((await apiClient(gateway.baseUrl, org.admin.token).get('/api/v1/me')).status).toBe(200);
  }, 120_000);

  it('answers `GET //` without a token and a malformed Host in JSON', async () => {
    const { port } = new URL(gateway.baseUrl);
    expect(await rawExchange(Number(port), 'GET // HTTP/1.1\r\nHost: localhost\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 404 [^]*content-type: application\/json/i,
    );
    expect(await rawExchange(Number(port), 'GET /api/v1/me HTTP/1.1\r\nHost: [\r\n\r\n')).toMatch(/^HTTP\/1\.1 401 /);
    expect(await rawExchange(Number(port), 'BREW / HTTP/1.1\r\n\r\n')).toMatch(
      /^HTTP\/1\.1 400 [^]*content-type: application\/json/i,
    );
    expect(await rawExchange(Number(port), `GET / HTTP/1.1\r\nX: ${'y'.repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431 /);
  });
});

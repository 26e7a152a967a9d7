/** Local runtime configuration, read once (docs/configuration.md). */
export const localConfig = {
  port: Number(process.env.PORT ?? 3000),
  /**
   * The address the gateway listens on: this machine only, unless HOST says otherwise (`0.0.0.0`
   * or `::` to serve the network, e.g. inside a container). A first start prints an admin token.
   */
  host: process.env.HOST || '127.0.0.1',
  dynamodbPort: Number(process.env.DYNAMODB_PORT ?? 8000),
  /** When set, use this DynamoDB and launch nothing. */
  dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT,
  dataDir: process.env.DATA_DIR ?? '.data',
  /** The local S3-compatible server's port (`s3rver`; attachments' files). */
  s3Port: Number(process.env.S3_PORT ?? 4569),
  /** When set, use this S3-compatible server and launch none. */
  s3Endpoint: process.env.S3_ENDPOINT || undefined,
  bucket: process.env.ATTACHMENTS_BUCKET || 'sprint-ticketing-attachments',
  tableName: process.env.TABLE_NAME ?? 'sprint-ticketing',
};

/**
 * What the service calls itself when it listens on `host`:`port`: its base URL (`PUBLIC_URL`, the
 * address `npm start` prints and the issuer of its OAuth tokens) and the `Host` values `/mcp`
 * answers to (`MCP_ALLOWED_HOSTS`): the loopback names of the port, and the address itself when it
 * is a particular one. A name that only resolves here (DNS rebinding) is none of them.
 */
export function ownAddresses(host: string, port: number): { publicUrl: string; hosts: string[] } {
  const everywhere = ['0.0.0.0', '::'].includes(host);
  const loopback = ['127.0.0.1', '::1', 'localhost'].includes(host);
  const named = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const loopbackHosts = [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`];
  return {
    publicUrl: everywhere || loopback ? `http://localhost:${port}` : `http://${named}`,
    hosts: everywhere || loopback ? loopbackHosts : [named, ...loopbackHosts],
  };
}

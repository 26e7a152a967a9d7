/**
 * Background services the local runtime runs beside the gateway (in AWS these are managed:
 * e.g. the DynamoDB Streams event source mapping that feeds the cascade consumer).
 */
export interface LocalServices {
  stop(): Promise<void>;
}

export async function startLocalServices(_endpoint: string): Promise<LocalServices> {
  return { stop: async () => undefined };
}

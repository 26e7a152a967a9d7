/**
 * Puts `message` on the SQS queue at `queueUrl` (a given-up cascade's failure queue:
 * infra/constructs/cascade-consumer.ts). The SQS client loads only then.
 */
export async function sendToQueue(queueUrl: string, message: object): Promise<void> {
  const { SQSClient, SendMessageCommand } = await import('@aws-sdk/client-sqs');
  await new SQSClient({}).send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
}

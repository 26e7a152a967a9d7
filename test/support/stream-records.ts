import type { DynamoDBRecord } from 'aws-lambda';

let sequence = 0;

/** The next sequence number of the records made here (ordered as the stream orders them). */
export const nextSequence = () => ++sequence;

/** A REMOVE record as DynamoDB Streams delivers it to Lambda (NEW_AND_OLD_IMAGES), of an item's old image. */
export function removeRecord(old: Record<string, unknown>): DynamoDBRecord {
  const image: Record<string, { S: string } | { N: string } | { NULL: true }> = {};
  for (const [k, v] of Object.entries(old)) {
    if (typeof v === 'number') image[k] = { N: String(v) };
    else if (typeof v === 'string') image[k] = { S: v };
    else if (v === null) image[k] = { NULL: true };
  }
  const n = nextSequence();
  return {
    eventID: `e${n}`,
    eventName: 'REMOVE',
    eventSource: 'aws:dynamodb',
    eventVersion: '1.1',
    awsRegion: 'local',
    dynamodb: {
      Keys: { PK: { S: String(old.PK) }, SK: { S: String(old.SK) } },
      OldImage: image,
      SequenceNumber: String(n).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

import { DynamoDBClient, PutItemCommand, QueryCommand, BatchWriteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal, longRunJvmOptions } from '/work/main/tools/local/dynamodb.ts';
import { ensureTable } from '/work/main/tools/local/table.ts';
const ddb = await startDynamoDbLocal({ jvmOptions: longRunJvmOptions });
const endpoint = `http://127.0.0.1:${ddb.port}`;
await ensureTable(endpoint, 'tbl');
const c = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
async function round(tag: string, pk: string) {
  const t0 = ddb.cpuSeconds()!; const w0 = Date.now();
  for (let i = 0; i < 3000; i++) {
    await c.send(new PutItemCommand({ TableName: 'tbl', Item: { PK: { S: pk }, SK: { S: `I#${i}` }, v: { S: 'x'.repeat(200) } } }));
    await c.send(new UpdateItemCommand({ TableName: 'tbl', Key: { PK: { S: pk + 'tok' }, SK: { S: 'T' } }, UpdateExpression: 'SET n = if_not_exists(n, :z) + :o', ExpressionAttributeValues: { ':z': { N: '0' }, ':o': { N: '1' } } }));
    await c.send(new QueryCommand({ TableName: 'tbl', KeyConditionExpression: 'PK = :p', ExpressionAttributeValues: { ':p': { S: pk } }, Limit: 5 }));
  }
  console.log(tag, 'jvm cpu', (ddb.cpuSeconds()! - t0).toFixed(1), 'wall', ((Date.now() - w0) / 1000).toFixed(1));
}
await round('warm', 'A');
await round('fresh', 'B');
for (let b = 0; b < Number(process.argv[2] ?? 4000); b++) {
  await c.send(new BatchWriteItemCommand({ RequestItems: { tbl: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { PK: { S: `F#${b % 500}` }, SK: { S: `X#${b}#${j}` }, v: { S: 'y'.repeat(300) } } } })) } }));
}
console.log('filled');
await round('after fill', 'C');
await round('after fill 2', 'D');
await ddb.stop();

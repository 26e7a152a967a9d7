/**
 * A stream consumer run off the API's event loop, as Lambda runs it in a process of its own: its
 * module is loaded in a worker thread (node:worker_threads), within its grant (tools/local/permissions.ts),
 * and each batch is handed to it there. The local runtime runs the import jobs' consumer so: a job
 * reads and maps a whole file, and on the gateway's own thread one organisation's import held up
 * every organisation's requests.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

interface Call {
  id: number;
  event: DynamoDBStreamEvent;
  /** The consumer's remaining time when the batch was handed over. */
  remainingMs: number;
}

type Answer = { id: number; result: DynamoDBBatchResponse | undefined } | { id: number; error: string };

/**
 * The handler of `functionModule` in a worker thread of its own, started on first use and again
 * after it ends (a crash fails the batches in hand, which the mapping retries as Lambda does).
 */
export function workerConsumer(
  functionModule: string,
  /** The function whose grant its calls are held to (default: the module's own). */
  grantEntry = functionModule,
): StreamHandler & { stop(): Promise<void> } {
  let worker: Worker | undefined;
  let next = 0;
  const pending = new Map<number, { resolve: (r: DynamoDBBatchResponse | undefined) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error) => {
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    worker = undefined;
  };
  const start = () => {
    const started = new Worker(new URL(import.meta.url), { workerData: { functionModule, grantEntry } });
    started.on('message', (answer: Answer) => {
      const call = pending.get(answer.id);
      pending.delete(answer.id);
      if ('error' in answer) call?.reject(new Error(answer.error));
      else call?.resolve(answer.result);
    });
    started.on('error', (err) => failAll(err));
    started.on('exit', (code) => failAll(new Error(`the ${functionModule} worker exited (${code})`)));
    // The worker alone never keeps the process alive: it stops with the runtime.
    started.unref();
    return started;
  };
  const handler = (event: DynamoDBStreamEvent, context: Context) =>
    new Promise<DynamoDBBatchResponse | undefined>((resolve, reject) => {
      worker ??= start();
      const id = next++;
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, event, remainingMs: context.getRemainingTimeInMillis() } satisfies Call);
    });
  return Object.assign(handler, {
    async stop() {
      const running = worker;
      worker = undefined;
      if (running) await running.terminate();
    },
  });
}

/** In the worker: the consumer's module, loaded once, given each batch with its deadline. */
async function serve(functionModule: string, grantEntry: string) {
  const { lambdaContext, loadHandler } = await import('./gateway.ts');
  const { runAsFunction } = await import('./permissions.ts');
  const consume = await loadHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>(functionModule);
  parentPort?.on('message', (call: Call) => {
    const deadline = Date.now() + call.remainingMs;
    const context = { ...lambdaContext('import-jobs'), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    runAsFunction(grantEntry, [], () => consume(call.event, context)).then(
      (result) => parentPort?.postMessage({ id: call.id, result: result ?? undefined } satisfies Answer),
      (err: unknown) => parentPort?.postMessage({ id: call.id, error: (err as Error)?.stack ?? String(err) } satisfies Answer),
    );
  });
}

const data = workerData as { functionModule?: string; grantEntry?: string } | null;
if (!isMainThread && data?.functionModule) await serve(data.functionModule, data.grantEntry ?? data.functionModule);

/**
 * A stream consumer run off the API's event loop, as Lambda runs it in processes of its own: its
 * module is loaded in worker threads (node:worker_threads), within its grant (tools/local/permissions.ts),
 * and each batch is handed to a worker of its own. The local runtime runs the import jobs' consumer
 * so: a job reads and maps a whole file, and on the gateway's own thread one organisation's import
 * held up every organisation's requests; on one shared worker, every other organisation's import.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';

type StreamHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse | void>;

interface Call {
  event: DynamoDBStreamEvent;
  /** The consumer's remaining time when the batch was handed over. */
  remainingMs: number;
}

type Answer = { result: DynamoDBBatchResponse | undefined } | { error: string };

/** Workers at most: batches beyond wait for one to be free. */
const MAX_WORKERS = 4;

/** A worker thread and the batch it runs: one at a time, as a Lambda instance runs one invocation. */
interface Instance {
  worker: Worker;
  call?: { resolve: (r: DynamoDBBatchResponse | undefined) => void; reject: (e: Error) => void } | undefined;
}

/**
 * The handler of `functionModule` in worker threads of its own, one batch per worker at a time (at
 * most MAX_WORKERS at once), as Lambda runs concurrent batches in instances of their own: one
 * organisation's long job holds up no other's. A worker starts on first need and is kept for the
 * next batch; one that crashes fails its batch (which the mapping retries, as Lambda does), says
 * so, and is replaced.
 */
export function workerConsumer(
  functionModule: string,
  /** The function whose grant its calls are held to (default: the module's own). */
  grantEntry = functionModule,
): StreamHandler & { stop(): Promise<void> } {
  const all = new Set<Instance>();
  const idle: Instance[] = [];
  const waiting: (() => void)[] = [];
  let stopping = false;
  const free = (instance: Instance) => {
    idle.push(instance);
    waiting.shift()?.();
  };
  const start = (): Instance => {
    const instance: Instance = { worker: new Worker(new URL(import.meta.url), { workerData: { functionModule, grantEntry } }) };
    const end = (error: Error) => {
      if (!all.delete(instance)) return;
      const at = idle.indexOf(instance);
      if (at >= 0) idle.splice(at, 1);
      instance.call?.reject(error);
      instance.call = undefined;
      if (!stopping) console.error(`local ${functionModule} worker: ${error.message}`);
      waiting.shift()?.();
    };
    instance.worker.on('message', (answer: Answer) => {
      const call = instance.call;
      instance.call = undefined;
      free(instance);
      if ('error' in answer) call?.reject(new Error(answer.error));
      else call?.resolve(answer.result);
    });
    instance.worker.on('error', (err) => end(err));
    instance.worker.on('exit', (code) => end(new Error(`exited (${code})`)));
    // The workers alone never keep the process alive: they stop with the runtime.
    instance.worker.unref();
    all.add(instance);
    return instance;
  };
  const acquire = async (): Promise<Instance> => {
    for (;;) {
      const ready = idle.pop();
      if (ready) return ready;
      if (all.size < MAX_WORKERS) return start();
      await new Promise<void>((wake) => waiting.push(wake));
    }
  };
  const handler = async (event: DynamoDBStreamEvent, context: Context) => {
    // The batch's time counts from its hand-over, as an invocation's from its start.
    const remainingMs = context.getRemainingTimeInMillis();
    const instance = await acquire();
    return new Promise<DynamoDBBatchResponse | undefined>((resolve, reject) => {
      instance.call = { resolve, reject };
      instance.worker.postMessage({ event, remainingMs } satisfies Call);
    });
  };
  return Object.assign(handler, {
    async stop() {
      stopping = true;
      await Promise.all([...all].map((instance) => instance.worker.terminate()));
      all.clear();
      idle.length = 0;
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
      (result) => parentPort?.postMessage({ result: result ?? undefined } satisfies Answer),
      (err: unknown) => parentPort?.postMessage({ error: (err as Error)?.stack ?? String(err) } satisfies Answer),
    );
  });
}

const data = workerData as { functionModule?: string; grantEntry?: string } | null;
if (!isMainThread && data?.functionModule) await serve(data.functionModule, data.grantEntry ?? data.functionModule);

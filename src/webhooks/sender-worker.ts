/**
 * The sender thread's code (sender-thread.ts): posts what it is handed with one `Sender`, and
 * answers the outcomes ended in one turn of its event loop in one message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Sender } from './sender.ts';
import type { AttemptOutcome } from './deliveries.ts';
import type { OutcomeBatch, PostBatch, ThreadSenderOptions } from './sender-thread.ts';

const port = parentPort!;
const sender = new Sender(workerData as ThreadSenderOptions);
let ended: OutcomeBatch = [];
let answering: NodeJS.Immediate | null = null;

function answer(id: number, outcome: AttemptOutcome): void {
  ended.push([id, outcome]);
  answering ??= setImmediate(() => {
    answering = null;
    port.postMessage(ended);
    ended = [];
  });
}

port.on('message', ({ bodies, posts }: PostBatch) => {
  const buffers = bodies.map((b) => Buffer.from(b));
  for (const { id, url, headers, body } of posts)
    void sender.send({ url, headers, body: buffers[body]! }).then((outcome) => answer(id, outcome));
});

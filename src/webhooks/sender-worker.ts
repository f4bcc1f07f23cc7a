/**
 * The sender thread's code (sender-thread.ts): posts what it is handed with one `Sender`, and
 * answers the outcomes ended in one turn of its event loop in one message.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { Sender } from './sender.ts';
import type { AttemptOutcome } from './deliveries.ts';
import type { OutcomeBatch, PostBatch, ThreadSenderOptions } from './sender-thread.ts';

function serve(port: MessagePort, sender: Sender): void {
  let ended: OutcomeBatch = [];
  let answering = false;
  const answer = (id: number, outcome: AttemptOutcome) => {
    ended.push([id, outcome]);
    if (answering) return;
    answering = true;
    setImmediate(() => {
      answering = false;
      port.postMessage(ended);
      ended = [];
    });
  };
  port.on('message', ({ bodies, posts }: PostBatch) => {
    const buffers = bodies.map((b) => Buffer.from(b));
    for (const { id, url, headers, body } of posts)
      void sender.send({ url, headers, body: buffers[body]! }).then((outcome) => answer(id, outcome));
  });
}

serve(parentPort!, new Sender(workerData as ThreadSenderOptions));

// A prepare worker of prepare-pool.ts: prepares telegrams for the thread that started it, or only
// reads and converts them when that thread compresses them itself.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { transferable, type PrepareReply, type PrepareRequest } from './prepare-pool.ts';
import { convertReceived, readyToStore } from './prepare.ts';

/**
 * This thread's nice value. On Linux a nice value is a thread's own: when the cores are busy, the
 * event loop (an early warning being stored and sent) runs before a large telegram is parsed here,
 * and the parse takes what is left over (docs/telegrams.md, "Size").
 */
const NICE = 10;
try {
  setPriority(NICE);
} catch {
  // Not allowed or not supported here: the worker runs at the process's priority.
}

const port = parentPort!;
const post = (reply: PrepareReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

port.on('message', ({ seq, raw, hints, compress }: PrepareRequest) => {
  try {
    const converted = convertReceived(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), hints);
    const { outcome, transfer } = transferable(compress ? { ready: readyToStore(converted) } : { converted });
    post({ seq, ...outcome }, transfer);
  } catch (err) {
    post({ seq, error: (err as Error).message });
  }
});
post({ started: true });

// The prepare code of prepare-pool.ts, run by a runner (prepare-runners.ts): in a worker thread, or
// in a child process through its IPC channel. Prepares telegrams for the thread that started it, or
// only reads and converts them when that thread compresses them itself.
import { parentPort } from 'node:worker_threads';
import { transferable, type PrepareReply, type PrepareRequest } from './prepare-pool.ts';
import { convertReceived, readyToStore } from './prepare.ts';

const received = (listener: (request: PrepareRequest) => void) =>
  parentPort ? parentPort.on('message', listener) : process.on('message', listener);
// A thread transfers its byte arrays (no copy); a process's channel copies them whatever it is told.
const post = parentPort
  ? (reply: PrepareReply, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(reply, transfer)
  : (reply: PrepareReply) => void process.send!(reply);
// The channel to the process that started this one is gone: nothing is left to prepare for.
if (!parentPort) process.on('disconnect', () => process.exit(0));

received(({ seq, raw, hints, compress }) => {
  try {
    const converted = convertReceived(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), hints);
    const outcome = compress ? { ready: readyToStore(converted) } : { converted };
    if (parentPort) {
      const moved = transferable(outcome);
      post({ seq, ...moved.outcome }, moved.transfer);
    } else post({ seq, ...outcome });
  } catch (err) {
    post({ seq, error: (err as Error).message });
  }
});
post({ started: true });

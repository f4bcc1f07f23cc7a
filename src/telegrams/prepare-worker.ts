// A prepare worker of prepare-pool.ts: prepares telegrams for the thread that started it, or only
// reads and converts them when that thread compresses them itself.
import { parentPort } from 'node:worker_threads';
import { transferable, type PrepareReply, type PrepareRequest } from './prepare-pool.ts';
import { convertReceived, readyToStore } from './prepare.ts';

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

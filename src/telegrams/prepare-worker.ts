// A prepare worker of prepare-pool.ts: runs prepareForIngest for the thread that started it.
import { parentPort } from 'node:worker_threads';
import { transferableReady, type PrepareReply, type PrepareRequest } from './prepare-pool.ts';
import { prepareForIngest } from './ready.ts';

const port = parentPort!;
const post = (reply: PrepareReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

port.on('message', ({ seq, raw, hints }: PrepareRequest) => {
  try {
    const prepared = prepareForIngest(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength), hints);
    const { ready, transfer } = transferableReady(prepared);
    post({ seq, ready }, transfer);
  } catch (err) {
    post({ seq, error: (err as Error).message });
  }
});
post({ started: true });

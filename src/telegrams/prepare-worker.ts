// The prepare code of prepare-pool.ts, run by a runner (prepare-runners.ts): in a worker thread, or
// in a child process through its IPC channel and standard input. Prepares telegrams for the thread
// that started it, or only reads and converts them when that thread compresses them itself.
import { parentPort } from 'node:worker_threads';
import { transferable } from './prepare-pool.ts';
import type { PrepareReply, PrepareRequest, ProcessRequest } from './prepare-runners.ts';
import { convertReceived, prepareUnconverted, readyToStore } from './prepare.ts';

/** Posts a reply: a thread transfers the byte arrays listed; a process's channel copies them. */
const post = (reply: PrepareReply, transfer: ArrayBuffer[] = []) =>
  parentPort ? parentPort.postMessage(reply, transfer) : void process.send!(reply);

function prepare({ seq, raw, hints, compress, unconvertedBecause }: PrepareRequest): void {
  try {
    const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    const { outcome, transfer } = transferable(
      unconvertedBecause !== undefined
        ? { ready: prepareUnconverted(bytes, hints, unconvertedBecause) }
        : compress
          ? { ready: readyToStore(convertReceived(bytes, hints)) }
          : { converted: convertReceived(bytes, hints) },
    );
    post({ seq, ...outcome }, transfer);
  } catch (err) {
    post({ seq, error: (err as Error).message });
  }
}

if (parentPort) parentPort.on('message', prepare);
else {
  // Requests arrive on the channel and their bytes on standard input, both in the order they were
  // sent: each request takes its byte count off the front of what has arrived.
  const requests: ProcessRequest[] = [];
  let input: Buffer[] = [];
  let inputBytes = 0;
  const next = () => {
    while (requests.length > 0 && inputBytes >= requests[0]!.rawBytes) {
      const { rawBytes, ...request } = requests.shift()!;
      const all = input.length === 1 ? input[0]! : Buffer.concat(input);
      input = all.length > rawBytes ? [all.subarray(rawBytes)] : [];
      inputBytes -= rawBytes;
      prepare({ ...request, raw: all.subarray(0, rawBytes) });
    }
  };
  process.stdin.on('data', (chunk: Buffer) => {
    input.push(chunk);
    inputBytes += chunk.length;
    next();
  });
  process.on('message', (request: ProcessRequest) => {
    requests.push(request);
    next();
  });
  // The channel to the process that started this one is gone: nothing is left to prepare for.
  process.on('disconnect', () => process.exit(0));
}
post({ started: true });

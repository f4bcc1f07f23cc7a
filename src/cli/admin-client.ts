import { createConnection } from 'node:net';
import { adminSocketPath, type AdminRequest, type AdminResponse } from './admin-protocol.ts';
import type { CommandIo, DataDirServedError } from './database.ts';

/** Sends one admin command to the server that holds the data directory, over its admin channel. */
function request(path: string, req: AdminRequest, signal?: AbortSignal): Promise<AdminResponse> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    // Closing the channel is what stops the command in the server.
    const drop = () => {
      socket.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', drop, { once: true });
    socket.on('close', () => signal?.removeEventListener('abort', drop));
    const chunks: Buffer[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminResponse);
      } catch {
        reject(new Error('the server closed the channel without an answer'));
      }
    });
    socket.write(JSON.stringify(req) + '\n');
  });
}

/**
 * Runs the command on the server that holds the data directory and relays its output and exit
 * status. An unreachable channel is one line on stderr and status 1. `signal` drops the channel,
 * which stops the command in the server, and rejects with its reason.
 */
export async function callAdminChannel(
  served: DataDirServedError,
  req: AdminRequest,
  io: CommandIo,
  signal?: AbortSignal,
): Promise<number> {
  const path = adminSocketPath(served.dataDir);
  let res: AdminResponse;
  try {
    res = await request(path, req, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    io.stderr(
      `namazu ${req.command}: ${served.message}, and its admin channel ${path} cannot be reached ` +
        `(${reason})\n`,
    );
    return 1;
  }
  io.stdout(res.stdout);
  io.stderr(res.stderr);
  return res.code;
}

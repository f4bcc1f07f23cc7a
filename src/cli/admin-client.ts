import { createConnection } from 'node:net';
import { adminSocketPath, type AdminOutput, type AdminRequest } from './admin-protocol.ts';
import type { CommandIo, DataDirServedError } from './database.ts';
import { CodedError } from '../errors.ts';

/** Something went wrong after the server answered: its output so far was relayed already. */
class ChannelBroken extends CodedError {
  constructor(message: string) {
    super('ADMIN_CHANNEL_BROKEN', { message });
  }
}

/**
 * Sends one admin command to the server that holds the data directory, over its admin channel;
 * relays what it prints as it comes and resolves with its exit status.
 */
function request(path: string, req: AdminRequest, io: CommandIo, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    // Closing the channel is what stops the command in the server.
    const drop = () => {
      socket.destroy();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', drop, { once: true });
    socket.on('close', () => signal?.removeEventListener('abort', drop));
    let answered = false;
    let code: number | null = null;
    let pending = '';
    const relay = (line: string) => {
      const out = JSON.parse(line) as AdminOutput;
      if ('code' in out) code = out.code;
      else if ('stdout' in out) io.stdout(out.stdout);
      else io.stderr(out.stderr);
    };
    socket.setEncoding('utf8');
    socket.on('error', (err) => reject(answered ? new ChannelBroken(err.message) : err));
    socket.on('data', (chunk: string) => {
      answered = true;
      pending += chunk;
      let end;
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 1);
        try {
          relay(line);
        } catch {
          socket.destroy();
          reject(new ChannelBroken('the server answered something that is not its protocol'));
        }
      }
    });
    socket.on('end', () => {
      if (code === null) reject(new ChannelBroken('the server closed the channel without an answer'));
      else resolve(code);
    });
    socket.write(JSON.stringify(req) + '\n');
  });
}

/**
 * Runs the command on the server that holds the data directory and relays its output (as it comes)
 * and exit status. An unreachable channel is one line on stderr and status 1. `signal` drops the
 * channel, which stops the command in the server, and rejects with its reason.
 */
export async function callAdminChannel(
  served: DataDirServedError,
  req: AdminRequest,
  io: CommandIo,
  signal?: AbortSignal,
): Promise<number> {
  const path = adminSocketPath(served.dataDir);
  try {
    return await request(path, req, io, signal);
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    if (err instanceof ChannelBroken) {
      io.stderr(`namazu ${req.command}: ${err.message}\n`);
      return 1;
    }
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    io.stderr(
      `namazu ${req.command}: ${served.message}, and its admin channel ${path} cannot be reached ` +
        `(${reason})\n`,
    );
    return 1;
  }
}

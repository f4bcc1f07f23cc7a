import { chmodSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import type { AppContext } from '../context.ts';
import {
  adminSocketPath,
  MAX_REQUEST_BYTES,
  REQUEST_TIMEOUT_MS,
  type AdminOutput,
  type AdminRequest,
} from './admin-protocol.ts';
import { adminCommands, runCommand } from './commands.ts';
import type { CommandIo } from './database.ts';

function parseRequest(line: string): AdminRequest | null {
  try {
    const r = JSON.parse(line) as Partial<AdminRequest>;
    const valid =
      typeof r.command === 'string' &&
      Object.hasOwn(adminCommands, r.command) &&
      Array.isArray(r.argv) &&
      r.argv.every((a) => typeof a === 'string') &&
      typeof r.cwd === 'string';
    return valid ? (r as AdminRequest) : null;
  } catch {
    return null;
  }
}

/** Reads the request line: null when it is too long, too slow or the caller went away. */
function readRequestLine(socket: Socket): Promise<string | null> {
  return new Promise((resolve) => {
    let buffered = '';
    const settle = (line: string | null) => {
      socket.setTimeout(0);
      socket.removeAllListeners('data'); // nothing after the request line is read
      resolve(line);
    };
    socket.setEncoding('utf8');
    socket.setTimeout(REQUEST_TIMEOUT_MS, () => settle(null));
    socket.on('error', () => settle(null));
    socket.on('end', () => settle(null));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) settle(buffered.slice(0, end));
      else if (buffered.length > MAX_REQUEST_BYTES) settle(null);
    });
  });
}

/**
 * Aborted when the caller closes its end before the answer (its command was interrupted): the
 * caller writes nothing after its request line and half-closes nothing, so an end means it is gone.
 */
function callerGone(socket: Socket): AbortSignal {
  const gone = new AbortController();
  socket.once('close', () => gone.abort(new Error('the command was interrupted')));
  socket.once('end', () => gone.abort(new Error('the command was interrupted')));
  // Read on (and drop) what follows the request line, so that the end is seen.
  socket.resume();
  return gone.signal;
}

/**
 * Serves the admin channel (docs/architecture.md, "Admin commands beside a running server"):
 * admin commands of the data directory's owner run here against this server's database and bus,
 * so an ingested telegram is announced in-process. A command stops when its caller goes away or the
 * server stops (CommandIo.signal). Returns the function that stops the channel, which waits for
 * commands under way (they end at their next step once the server stops).
 */
export async function serveAdminChannel(ctx: AppContext): Promise<() => Promise<void>> {
  const path = adminSocketPath(ctx.config.dataDir);
  // This process holds the data directory's lock: a socket already there was left by a killed server.
  rmSync(path, { force: true });
  const running = new Set<Promise<void>>();

  const server = createServer((socket) => {
    const done = (async () => {
      const line = await readRequestLine(socket);
      const req = line === null ? null : parseRequest(line);
      // A caller gone has nobody to read its output; what the command does stands.
      const send = (out: AdminOutput) => {
        if (!socket.destroyed && socket.writable) socket.write(JSON.stringify(out) + '\n');
      };
      let code = 2;
      if (req === null) send({ stderr: 'namazu: bad admin channel request\n' });
      else {
        ctx.log.info({ command: req.command }, 'admin command started');
        const io: CommandIo = {
          signal: AbortSignal.any([ctx.stopping, callerGone(socket)]),
          cwd: req.cwd,
          withDatabase: (_values, fn) =>
            fn({
              config: ctx.config,
              db: ctx.db,
              pepper: ctx.pepper,
              bus: async () => ctx.bus,
              metrics: ctx.metrics,
              log: ctx.log,
            }),
          stdout: (text) => send({ stdout: text }),
          stderr: (text) => send({ stderr: text }),
        };
        code = await runCommand(req.command, adminCommands[req.command]!, req.argv, io);
        ctx.log.info({ command: req.command, code }, 'admin command');
      }
      if (!socket.destroyed && socket.writable) socket.end(JSON.stringify({ code }) + '\n');
    })();
    running.add(done);
    void done.finally(() => running.delete(done));
  });

  // Created owner-only (no moment with wider permissions), then made sure of.
  const umask = process.umask(0o177);
  try {
    server.listen(path);
  } finally {
    process.umask(umask);
  }
  try {
    await once(server, 'listening');
    chmodSync(path, 0o600);
  } catch (err) {
    // The server still serves; admin commands then say the channel cannot be reached.
    ctx.log.warn({ err, path }, 'admin channel unavailable');
    server.close();
    return async () => {};
  }

  return async () => {
    const closed = new Promise((resolve) => server.close(resolve));
    await Promise.all(running);
    await closed;
    rmSync(path, { force: true });
  };
}

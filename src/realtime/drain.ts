import type { Socket } from 'node:net';

/** Resolves at the socket's next `drain`, or its `close` (a closed socket never drains). */
export function drainOrClose(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.once('drain', done);
    socket.once('close', done);
  });
}

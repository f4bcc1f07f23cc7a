// The process of bench/fanout-clients.ts, forked by the benches that use it, and the one way they
// talk to it: each command sent is answered by one message, in order.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export type ClientsReply = Record<string, unknown>;

export function forkFanoutClients() {
  const process = fork(fileURLToPath(new URL('./fanout-clients.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
  });
  const waiters: ((m: ClientsReply) => void)[] = [];
  process.on('message', (m: ClientsReply) => {
    if (m.type === 'error') console.error('client error', m);
    else waiters.shift()?.(m);
  });
  /** The next message the clients send. */
  const reply = () => new Promise<ClientsReply>((resolve) => waiters.push(resolve));
  /** Sends a command; resolves with its answer. */
  const ask = (m: object) => {
    const replied = reply();
    process.send(m);
    return replied;
  };
  return { process, ask, reply };
}

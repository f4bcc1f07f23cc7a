// The parent's side of bench/webhook-receiver.ts, for bench/webhooks.ts, bench/webhook-client.ts
// and bench/webhook-outage.ts: the receivers started in a process of their own, the commands they
// answer, and the plain posting loop those benches compare the sender with.
import { fork } from 'node:child_process';
import http from 'node:http';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MAX_ATTEMPTS_IN_FLIGHT } from '../src/webhooks/service.ts';
import type { ReceiverCommand } from './webhook-receiver.ts';

export interface Receivers {
  /** The port every loopback address 127.0.0.1 … 127.0.0.<hosts> listens on. */
  port: number;
  /** Sends a command and waits for its answer (the receiver's message holding `key`). */
  ask<T>(command: ReceiverCommand, key: string): Promise<T>;
  /** The arrival times of the next `count` posts whose path starts with /`kind`. */
  arrivals(count: number, kind?: string): Promise<number[]>;
  stop(): void;
}

/** `nice`, when given, is the receivers' scheduling priority (as `nice -n`). */
export async function startReceivers(hosts: number, nice?: number): Promise<Receivers> {
  const child = fork(fileURLToPath(new URL('./webhook-receiver.ts', import.meta.url)), [String(hosts)], {
    execArgv: ['--import', 'tsx'],
  });
  if (nice !== undefined) setPriority(child.pid!, nice);
  const answer = <T>(key: string) =>
    new Promise<T>((resolve) => {
      const listener = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', listener);
        resolve(m[key] as T);
      };
      child.on('message', listener);
    });
  const ask = <T>(command: ReceiverCommand, key: string) => {
    const answered = answer<T>(key);
    child.send(command);
    return answered;
  };
  return {
    port: await answer<number>('port'),
    ask,
    arrivals: (count, kind = 'hook') => ask<number[]>({ take: count, kind }, 'arrivals'),
    stop: () => child.disconnect(),
  };
}

/** A POST of `body` with Node's http through `agent`, its response read to the end. */
export const httpPost = (agent: http.Agent, body: Buffer) => (url: string) =>
  new Promise<void>((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', resolve);
      },
    );
    req.on('error', reject);
    req.end(body);
  });

/** Posts `count` times to `urls` in turn, at most as many at once as the delivery workers make. */
export async function postAll(count: number, urls: readonly string[], post: (url: string) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: MAX_ATTEMPTS_IN_FLIGHT }, async () => {
      while (next < count) await post(urls[next++ % urls.length]!);
    }),
  );
}

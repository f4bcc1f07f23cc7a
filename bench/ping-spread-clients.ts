// The WebSocket clients of bench/ping-spread.ts, in their own process (forked by it with the port
// and the number of clients): opens the anonymous sockets of the public stream, answers every ping
// with its pong, and notes for each telegram id when it reached the last of them
// (performance.timeOrigin + performance.now(): comparable across processes) and how many it reached.
// Sends `ready` once every socket is open; answers any message with the `report`.
import { WebSocket } from 'ws';

const [port, count] = process.argv.slice(2).map(Number) as [number, number];
const URL = `ws://127.0.0.1:${port}/v2/public/websocket?classifications=eew.forecast,eew.warning`;
const OPENING_AT_ONCE = 256;
const D = 'd'.charCodeAt(0);
const ID_KEY = '"id":"';
const lastAt = new Map<string, number>();
const received = new Map<string, number>();
let pongs = 0;

function onMessage(ws: WebSocket, data: Buffer): void {
  // `{"type":"data"…`: the 10th byte tells data from the rest without parsing 2 KB of JSON.
  if (data[9] === D) {
    const head = data.toString('latin1', 0, 256);
    const at = head.indexOf(ID_KEY) + ID_KEY.length;
    const id = head.slice(at, head.indexOf('"', at));
    lastAt.set(id, performance.timeOrigin + performance.now());
    received.set(id, (received.get(id) ?? 0) + 1);
    return;
  }
  const message = JSON.parse(data.toString()) as { type: string; pingId?: string };
  if (message.type !== 'ping') return;
  ws.send(JSON.stringify({ type: 'pong', pingId: message.pingId }));
  pongs++;
}

function open(): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(URL, 'service.v2', { perMessageDeflate: false });
    ws.once('error', reject);
    ws.once('message', () => {
      ws.on('message', (d: Buffer) => onMessage(ws, d));
      ws.on('error', () => {});
      resolve();
    });
  });
}

let opened = 0;
await Promise.all(
  Array.from({ length: OPENING_AT_ONCE }, async () => {
    while (opened < count) {
      opened++;
      await open();
    }
  }),
);
process.send!({ type: 'ready' });
process.on('message', () =>
  process.send!({ type: 'report', lastAt: [...lastAt], received: [...received], pongs }),
);

// The WebSocket clients of bench/fanout.ts, in their own process (forked by it). Opens the
// connections it is sent, answers pings, and for each round reports when the first and the last
// `data` message arrived (performance.timeOrigin + performance.now(): comparable across processes);
// asked with `times`, also every arrival, by socket (bench/webhooks.ts: live delivery beside a burst).
import { WebSocket } from 'ws';

type Command =
  | { type: 'connect'; urls: string[]; bare?: boolean }
  | { type: 'expect'; count: number; times?: boolean }
  | { type: 'quit' };

const sockets: WebSocket[] = [];
let expected = 0;
let count = 0;
let first = 0;
let last = 0;
let bytes = 0;
let payload = '';
/** Every arrival of the round by socket, when asked for. */
let times: Map<WebSocket, number[]> | null = null;
const D = 'd'.charCodeAt(0);
const send = (m: object) => process.send!(m);

function onMessage(ws: WebSocket, data: Buffer) {
  // `{"type":"data"…`: the 10th byte tells data from the rest without parsing 2 KB of JSON.
  if (data[9] === D) {
    const t = performance.timeOrigin + performance.now();
    if (count === 0) {
      first = t;
      bytes = data.length;
      payload = data.toString('base64');
    }
    last = t;
    if (times) {
      const mine = times.get(ws);
      if (mine) mine.push(t);
      else times.set(ws, [t]);
    }
    if (++count === expected)
      send({ type: 'round', first, last, bytes, payload, times: times && [...times.values()] });
    return;
  }
  const msg = JSON.parse(data.toString()) as { type: string; pingId?: string; code?: number; error?: string };
  if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
  else if (msg.type === 'error') send({ type: 'error', code: msg.code, error: msg.error });
}

/** A client of the bare `ws` reference server: no subprotocol, no `start` message. */
function openBare(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    ws.once('open', () => {
      ws.on('message', (d: Buffer) => onMessage(ws, d));
      sockets.push(ws);
      resolve();
    });
    ws.once('error', reject);
  });
}

function open(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'service.v2', { perMessageDeflate: false });
    ws.once('message', (data: Buffer) => {
      const start = JSON.parse(data.toString()) as { type: string };
      if (start.type !== 'start') return reject(new Error(`expected start, got ${data.toString()}`));
      ws.on('message', (d: Buffer) => onMessage(ws, d));
      sockets.push(ws);
      resolve();
    });
    ws.once('error', reject);
    ws.on('close', (code) => {
      if (code !== 1000) send({ type: 'error', code, error: 'closed' });
    });
  });
}

process.on('message', async (m: Command) => {
  if (m.type === 'connect') {
    const batch = 200;
    for (let i = 0; i < m.urls.length; i += batch)
      await Promise.all(m.urls.slice(i, i + batch).map(m.bare ? openBare : open));
    send({ type: 'ready', total: sockets.length });
  } else if (m.type === 'expect') {
    expected = m.count;
    count = 0;
    times = m.times ? new Map() : null;
    send({ type: 'expecting' });
  } else if (m.type === 'quit') {
    for (const ws of sockets) ws.close(1000);
    setTimeout(() => process.exit(0), 500);
  }
});

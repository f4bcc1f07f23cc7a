// The clients of bench/resume-stream.ts, in their own process (forked by it): WebSocket clients and
// server-sent-event streams that count the `data` messages / events of each round and say when the
// first and the last arrived, and one resuming socket that records the ids it is caught up with.
// Times are performance.timeOrigin + performance.now(): comparable across processes.
//
// Lean on purpose: a WebSocket `data` message is told from the rest by its 10th byte, an event by
// the bytes at the start of its block; only the resuming socket reads ids, and only the first
// message of a round is kept whole, for the bench to check which telegram it was.
import { request, type IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

type Command =
  | { type: 'connect'; urls: string[] }
  | { type: 'stream'; requests: { url: string; authorization: string }[] }
  | { type: 'expect'; count: number }
  | { type: 'resume'; url: string; count: number }
  | { type: 'close-all' }
  | { type: 'quit' };

const now = () => performance.timeOrigin + performance.now();
const send = (m: object) => process.send!(m);
const D = 'd'.charCodeAt(0);
const E = 'e'.charCodeAt(0);
const NL = 10;

// The round of the many clients.
let expected = 0;
let count = 0;
let first = 0;
let last = 0;
let payload = '';
/** Messages beyond a round's count, over the whole run (a duplicate or a stray delivery). */
let extra = 0;

function received(kept: () => string): void {
  const t = now();
  if (count === expected) {
    extra++;
    return;
  }
  if (count === 0) {
    first = t;
    payload = kept();
  }
  last = t;
  if (++count === expected) send({ type: 'round', first, last, payload, extra });
}

const sockets = new Set<WebSocket>();
const streams = new Set<IncomingMessage>();

function onSocketMessage(ws: WebSocket, data: Buffer): void {
  // `{"type":"data"…`: the 10th byte tells data from the rest without parsing 2 KB of JSON.
  if (data[9] === D) return received(() => data.toString());
  const msg = JSON.parse(data.toString()) as { type: string; pingId?: string; code?: number; error?: string };
  if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
  else if (msg.type === 'error') send({ type: 'error', code: msg.code, error: msg.error });
}

/**
 * Opens a socket and waits for `start`; `onMessage` takes every later message, from the one right
 * after `start` (a catch-up's first telegrams can come in the same read).
 */
function openSocket(
  url: string,
  onMessage: (ws: WebSocket, data: Buffer) => void,
): Promise<{ ws: WebSocket; startAt: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'service.v2', { perMessageDeflate: false });
    ws.once('message', (data: Buffer) => {
      const start = JSON.parse(data.toString()) as { type: string };
      if (start.type !== 'start') return reject(new Error(`expected start, got ${data.toString()}`));
      ws.on('message', (d: Buffer) => onMessage(ws, d));
      resolve({ ws, startAt: now() });
    });
    ws.once('error', reject);
  });
}

async function connectSocket(url: string): Promise<void> {
  const { ws } = await openSocket(url, onSocketMessage);
  ws.on('close', (code) => {
    sockets.delete(ws);
    if (code !== 1000) send({ type: 'error', code, error: 'socket closed' });
  });
  sockets.add(ws);
}

/**
 * One event stream's reader: finds the end of each block ("\n\n") with indexOf, and tells a `data`
 * event (`event: d…`) from an `error` event and from comments by its first and 8th bytes.
 */
class StreamReader {
  private blockLength = 0;
  private firstByte = 0;
  private eighthByte = 0;
  private endsWithNewline = false;
  /** The start of the current block, while it may be the round's first event (for the check). */
  private head: Buffer | null = null;

  take(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      if (this.blockLength === 0) {
        this.firstByte = chunk[pos]!;
        this.head = count === 0 ? chunk.subarray(pos, pos + 128) : null;
      } else if (this.head && this.head.length < 128) {
        this.head = Buffer.concat([this.head, chunk.subarray(pos, pos + 128 - this.head.length)]);
      }
      if (this.blockLength <= 7 && pos + 7 - this.blockLength < chunk.length)
        this.eighthByte = chunk[pos + 7 - this.blockLength]!;
      const end =
        this.endsWithNewline && chunk[pos] === NL
          ? pos + 1
          : ((i) => (i < 0 ? -1 : i + 2))(chunk.indexOf('\n\n', pos));
      if (end < 0) {
        this.blockLength += chunk.length - pos;
        this.endsWithNewline = chunk[chunk.length - 1] === NL;
        return;
      }
      if (this.firstByte === E && this.eighthByte === D) {
        const head = this.head;
        received(() => head?.toString() ?? '');
      } else if (this.firstByte === E && this.eighthByte === E) {
        send({ type: 'error', error: chunk.subarray(pos, end).toString() });
      }
      this.blockLength = 0;
      this.endsWithNewline = false;
      pos = end;
    }
  }
}

function openStream(url: string, authorization: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization } }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (d: Buffer) => (body += d));
        res.on('end', () => reject(new Error(`GET /v2/stream: ${res.statusCode} ${body}`)));
        return;
      }
      const reader = new StreamReader();
      res.on('data', (d: Buffer) => reader.take(d));
      res.on('close', () => streams.delete(res));
      streams.add(res);
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
}

/** The resuming socket: every `data` message's id (the first "id" of the message) and times. */
async function resume(url: string, resumeCount: number): Promise<void> {
  const started = now();
  let opened = 0;
  const ids: string[] = [];
  const times: number[] = [];
  const socket = await openSocket(url, (ws, data) => {
    if (data[9] !== D) return onSocketMessage(ws, data);
    const t = now();
    const at = data.indexOf('"id":"') + 6;
    ids.push(data.toString('latin1', at, at + 96));
    times.push(t);
    if (ids.length === 1) send({ type: 'catching-up' });
    if (ids.length === resumeCount) {
      ws.once('close', () => send({ type: 'resumed', started, opened, ids, times }));
      ws.close(1000);
    }
  });
  // When `start` came: the ticket was redeemed (messages after it in the same read came later).
  opened = socket.startAt;
}

async function inBatches<T>(items: T[], open: (item: T) => Promise<void>): Promise<void> {
  const batch = 100;
  for (let i = 0; i < items.length; i += batch) await Promise.all(items.slice(i, i + batch).map(open));
}

process.on('message', (m: Command) => {
  void (async () => {
    if (m.type === 'connect') {
      await inBatches(m.urls, connectSocket);
      send({ type: 'ready', sockets: sockets.size, streams: streams.size });
    } else if (m.type === 'stream') {
      await inBatches(m.requests, (r) => openStream(r.url, r.authorization));
      send({ type: 'ready', sockets: sockets.size, streams: streams.size });
    } else if (m.type === 'expect') {
      expected = m.count;
      count = 0;
      send({ type: 'expecting' });
    } else if (m.type === 'resume') {
      await resume(m.url, m.count);
    } else if (m.type === 'close-all') {
      const closed = [...sockets].map((ws) => new Promise((r) => ws.once('close', r)));
      for (const ws of sockets) ws.close(1000);
      for (const res of streams) res.destroy();
      await Promise.all(closed);
      send({ type: 'closed' });
    } else if (m.type === 'quit') {
      for (const ws of sockets) ws.close(1000);
      for (const res of streams) res.destroy();
      setTimeout(() => process.exit(0), 500);
    }
  })().catch((err: unknown) => send({ type: 'error', error: String(err) }));
});

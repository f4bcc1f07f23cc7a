// One client process of bench/scale.ts (forked by it, up to ~15,000 sockets: the open-file limit of a
// process is 20,000 here). Lean on purpose, so that the clients cost less than the server: a `data`
// frame is recognised by its 10th byte and only its `id` is read; only pings and errors are parsed.
//
// Namazu clients are of two kinds: one in `ticketEvery` takes the real ticket flow (`POST /v2/socket`
// with its account's API key on the node it is given, then the WebSocket with that ticket), the
// others open the public socket (`/v2/public/websocket`, anonymous); pings are answered. A client whose
// connection drops (its node was killed) waits a random delay up to `jitterMs`, then asks another
// node, chosen at random as a load balancer spreads reconnects over the nodes left, for a ticket
// with `after` = the id of its last telegram, so that the catch-up gives it what it missed
// (docs/realtime.md "Resume"). Bare clients (the reference) open a plain WebSocket.
//
// For every telegram id and every client it keeps the number of receipts and the time of the first
// (performance.timeOrigin + performance.now(): one clock across processes), and reports per id the
// clients that got it once, never, or more than once, and the quantiles of the receipt times.
import { Agent, request } from 'node:http';
import { WebSocket } from 'ws';
import { startingNode } from './scale-placement.ts';

interface Connect {
  type: 'connect';
  mode: 'namazu' | 'bare';
  /** Namazu mode: every `ticketEvery`-th client takes the ticket flow, the others the public socket. */
  ticketEvery: number;
  /** host:port of each node, in order; client i starts on node `startingNode(offset, i, nodes)`. */
  nodes: string[];
  offset: number;
  count: number;
  /**
   * Source addresses: client i binds the (i mod length)-th, as clients of many homes would come from
   * many addresses (the public socket counts new connections per address in the database).
   */
  localAddresses: string[];
  /**
   * Basic authorization of each account (namazu mode): the ticket clients take them in turn, so
   * that concurrent connects are spread over the accounts (each start locks its account's row).
   */
  authorizations: string[];
  start: number;
  classifications: string[];
  concurrency: number;
  jitterMs: number;
}
type Command =
  | Connect
  | { type: 'report' }
  | { type: 'progress' }
  | { type: 'reset' }
  | { type: 'close' }
  | { type: 'quit' };

const MAX_TELEGRAMS = 64;
const D = 'd'.charCodeAt(0);
const ID_KEY = Buffer.from('"id":"');
const QUOTE = '"'.charCodeAt(0);
const send = (m: object) => process.send!(m);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let config: Connect | null = null;
let sockets: (WebSocket | null)[] = [];
let nodeOf = new Int32Array(0);
let lastId: string[] = [];
/** The socket id of each client's current (or last) session. */
let socketIds = new Float64Array(0);
let receipts = new Uint8Array(0);
let firstAt = new Float64Array(0);
let droppedAt = new Float64Array(0);
/** Per client that was dropped: time from the drop to its first telegram after it (ms). */
let recoveries: number[] = [];
/** The same split in two: drop → the new socket's `start` (its open, for bare), and → the telegram. */
let rejoins: number[] = [];
let firstAfterRejoin: number[] = [];
/** The recoveries of the clients that come back through the ticket flow (one in `ticketEvery`). */
let ticketRecoveries: number[] = [];
/** When each dropped client's new socket opened (0 until then). */
let rejoinedAt = new Float64Array(0);
/** Dropped clients whose socket is not back yet. */
let away = 0;
/** Dropped clients whose first attempt to come back failed (a refusal, a timeout, a reset). */
let retriedAfterDrop = new Uint8Array(0);
let recoveredAfterRetry = 0;
let reconnects = 0;
/** Receipts of a telegram by a client that had not received it yet, since the last reset. */
let firstReceipts = 0;
let failedAttempts = 0;
/** Time spent waiting for tickets, and from the WebSocket request to `start` (or open), summed. */
let ticketMs = 0;
let openMs = 0;
const errors = new Map<string, number>();
const idIndex = new Map<string, number>();
const payloads: string[] = [];
let closing = false;
let agent = new Agent({ keepAlive: true, maxSockets: 16 });

const noteError = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);

function onData(i: number, data: Buffer): void {
  const t = now();
  const at = data.indexOf(ID_KEY) + ID_KEY.length;
  const id = data.toString('latin1', at, data.indexOf(QUOTE, at));
  let k = idIndex.get(id);
  if (k === undefined) {
    k = idIndex.size;
    if (k >= MAX_TELEGRAMS) {
      noteError('too many telegrams');
      return;
    }
    idIndex.set(id, k);
    payloads.push(data.toString('base64'));
  }
  const slot = i * MAX_TELEGRAMS + k;
  if (receipts[slot]! < 255) receipts[slot]!++;
  if (receipts[slot] === 1) {
    firstAt[slot] = t;
    firstReceipts++;
  }
  lastId[i] = id;
  if (droppedAt[i]! > 0) {
    recoveries.push(t - droppedAt[i]!);
    if (byTicket(i)) ticketRecoveries.push(t - droppedAt[i]!);
    firstAfterRejoin.push(t - rejoinedAt[i]!);
    if (retriedAfterDrop[i]) recoveredAfterRetry++;
    droppedAt[i] = 0;
  }
}

function onMessage(i: number, ws: WebSocket, data: Buffer): void {
  if (data[9] === D) return onData(i, data);
  const msg = JSON.parse(data.toString()) as { type: string; pingId?: string; code?: number };
  if (msg.type === 'ping') ws.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
  else if (msg.type === 'error') noteError(`error ${msg.code}`);
}

/** The ticket clients, counted over every process, take the accounts in turn. */
const authorizationOf = (i: number) =>
  config!.authorizations[
    Math.floor((config!.start + i) / config!.ticketEvery) % config!.authorizations.length
  ]!;

class Refused extends Error {
  constructor(
    readonly status: number,
    text: string,
  ) {
    // The message without the answer's id and time, so that equal errors are counted together.
    super(`HTTP ${status} ${/"message":"([^"]*)"/.exec(text)?.[1] ?? ''}`);
  }
}

/** `POST /v2/socket` (a ticket) or `DELETE /v2/socket/{id}` on a node: the JSON answer. */
const addressOf = (i: number) => config!.localAddresses[i % config!.localAddresses.length]!;

function call(
  i: number,
  node: string,
  authorization: string,
  method: string,
  path: string,
  body?: object,
): Promise<unknown> {
  const [host, port] = node.split(':');
  const json = body ? JSON.stringify(body) : '';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host,
        port: Number(port),
        method,
        path,
        localAddress: addressOf(i),
        agent,
        headers: body
          ? { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }
          : { authorization },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          if (res.statusCode! >= 300) reject(new Refused(res.statusCode!, text));
          else resolve(text ? JSON.parse(text) : null);
        });
      },
    );
    req.on('error', reject);
    req.end(json);
  });
}

/**
 * A ticket for client i. After its node died, the account may still count the client's previous
 * session as live (for 5 s, docs/realtime.md "The connection limit"): on 409 the client closes that
 * session by id, as `DELETE /v2/socket/{id}` allows, and asks again.
 */
async function ticket(i: number, node: string, body: object): Promise<string> {
  const authorization = authorizationOf(i);
  try {
    return ((await call(i, node, authorization, 'POST', '/v2/socket', body)) as { ticket: string }).ticket;
  } catch (err) {
    if (!(err instanceof Refused) || err.status !== 409 || socketIds[i] === 0) throw err;
    await call(i, node, authorization, 'DELETE', `/v2/socket/${socketIds[i]}`);
    socketIds[i] = 0;
    return ((await call(i, node, authorization, 'POST', '/v2/socket', body)) as { ticket: string }).ticket;
  }
}

/** Whether client i opens its sessions through the ticket flow (the others: the public socket). */
const byTicket = (i: number) => config!.mode === 'namazu' && i % config!.ticketEvery === 0;

/** Opens client i on its node; resolves once it holds its socket (after `start` for namazu). */
async function open(i: number): Promise<void> {
  const c = config!;
  const node = c.nodes[nodeOf[i]!]!;
  let url = `ws://${node}/`;
  if (byTicket(i)) {
    const body: Record<string, unknown> = { classifications: c.classifications, appName: 'scale' };
    if (lastId[i]) body.after = lastId[i];
    const asked = now();
    url = `ws://${node}/v2/websocket?ticket=${encodeURIComponent(await ticket(i, node, body))}`;
    ticketMs += now() - asked;
  } else if (c.mode === 'namazu') {
    const query = new URLSearchParams({ classifications: c.classifications.join(',') });
    if (lastId[i]) query.set('after', lastId[i]!);
    url = `ws://${node}/v2/public/websocket?${query}`;
  }
  const opening = now();
  const ws = new WebSocket(url, c.mode === 'namazu' ? 'service.v2' : [], {
    perMessageDeflate: false,
    localAddress: addressOf(i),
  });
  await new Promise<void>((resolve, reject) => {
    const opened = () => {
      openMs += now() - opening;
      if (droppedAt[i]! > 0 && rejoinedAt[i] === 0) {
        rejoinedAt[i] = now();
        rejoins.push(rejoinedAt[i]! - droppedAt[i]!);
        away--;
      }
      sockets[i] = ws;
      ws.removeListener('error', reject);
      ws.on('error', () => {});
      ws.on('message', (d: Buffer) => onMessage(i, ws, d));
      ws.on('close', () => dropped(i, ws));
      resolve();
    };
    ws.once('error', reject);
    ws.once('close', (code) => reject(new Error(`closed ${code} before start`)));
    if (c.mode === 'bare') ws.once('open', opened);
    else
      ws.once('message', (d: Buffer) => {
        const start = d.toString();
        if (!start.startsWith('{"type":"start"'))
          return reject(new Error(`expected start, got ${start.slice(0, 120)}`));
        socketIds[i] = (JSON.parse(start) as { socketId: number }).socketId;
        opened();
      });
  });
}

/** Client i's socket closed: unless the bench closes them, it reconnects to another node. */
async function dropped(i: number, ws: WebSocket): Promise<void> {
  if (closing || sockets[i] !== ws) return;
  sockets[i] = null;
  droppedAt[i] = now();
  retriedAfterDrop[i] = 0;
  rejoinedAt[i] = 0;
  away++;
  reconnects++;
  await sleep(Math.random() * config!.jitterMs);
  for (let attempt = 1; !closing; attempt++) {
    const nodes = config!.nodes.length;
    nodeOf[i] = (nodeOf[i]! + 1 + Math.floor(Math.random() * (nodes - 1))) % nodes;
    try {
      return await open(i);
    } catch (err) {
      failedAttempts++;
      retriedAfterDrop[i] = 1;
      noteError(String((err as Error).message).slice(0, 100));
      await sleep(Math.min(5000, 250 * attempt));
    }
  }
}

async function connect(c: Connect): Promise<void> {
  config = c;
  closing = false;
  agent = new Agent({ keepAlive: true, maxSockets: Math.max(4, c.concurrency / c.nodes.length) });
  sockets = new Array<WebSocket | null>(c.count).fill(null);
  ticketMs = 0;
  openMs = 0;
  nodeOf = Int32Array.from({ length: c.count }, (_, i) => startingNode(c.offset, i, c.nodes.length));
  lastId = new Array<string>(c.count).fill('');
  socketIds = new Float64Array(c.count);
  droppedAt = new Float64Array(c.count);
  rejoinedAt = new Float64Array(c.count);
  retriedAfterDrop = new Uint8Array(c.count);
  away = 0;
  reset();
  const started = now();
  let next = 0;
  const worker = async () => {
    while (next < c.count) {
      const i = next++;
      for (let attempt = 1; ; attempt++) {
        try {
          await open(i);
          break;
        } catch (err) {
          failedAttempts++;
          noteError(String((err as Error).message).slice(0, 100));
          if (attempt >= 20) throw err;
          await sleep(100 * attempt);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: c.concurrency }, worker));
  send({
    type: 'connected',
    seconds: (now() - started) / 1000,
    failedAttempts,
    ticketMs: ticketMs / c.count,
    openMs: openMs / c.count,
  });
}

function reset(): void {
  const n = sockets.length;
  receipts = new Uint8Array(n * MAX_TELEGRAMS);
  firstAt = new Float64Array(n * MAX_TELEGRAMS);
  recoveries = [];
  rejoins = [];
  firstAfterRejoin = [];
  ticketRecoveries = [];
  recoveredAfterRetry = 0;
  reconnects = 0;
  firstReceipts = 0;
  failedAttempts = 0;
  errors.clear();
  idIndex.clear();
  payloads.length = 0;
}

/** p50, p99 and the largest of `values` (sorted in place); [] when there are none. */
function spread(values: number[]): number[] {
  values.sort((a, b) => a - b);
  return values.length
    ? [
        values[Math.floor(values.length * 0.5)]!,
        values[Math.min(values.length - 1, Math.ceil(values.length * 0.99) - 1)]!,
        values.at(-1)!,
      ]
    : [];
}

/** Per telegram id: clients that got it once / never / twice or more, and receipt-time quantiles. */
function report() {
  const n = sockets.length;
  const telegrams = [...idIndex].map(([id, k]) => {
    let once = 0;
    let lost = 0;
    let duplicated = 0;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const r = receipts[i * MAX_TELEGRAMS + k]!;
      if (r === 0) lost++;
      else {
        if (r === 1) once++;
        else duplicated++;
        times.push(firstAt[i * MAX_TELEGRAMS + k]!);
      }
    }
    times.sort((a, b) => a - b);
    // 101 points (every percentile) stand for this process's receipts when the bench merges them.
    const quantiles = times.length
      ? Array.from(
          { length: 101 },
          (_, p) => times[Math.min(times.length - 1, Math.round((p / 100) * (times.length - 1)))]!,
        )
      : [];
    return { id, payload: payloads[k], once, lost, duplicated, received: times.length, quantiles };
  });
  const open = sockets.filter((ws) => ws?.readyState === WebSocket.OPEN).length;
  return {
    type: 'report',
    clients: n,
    open,
    telegrams,
    reconnects,
    stillDropped: droppedAt.filter((t) => t > 0).length,
    recoveries: spread(recoveries),
    rejoins: spread(rejoins),
    firstAfterRejoin: spread(firstAfterRejoin),
    ticketRecoveries: spread(ticketRecoveries),
    recovered: recoveries.length,
    recoveredAfterRetry,
    failedAttempts,
    errors: Object.fromEntries(errors),
  };
}

async function closeAll(): Promise<void> {
  closing = true;
  const closed = sockets.map(
    (ws) =>
      new Promise<void>((resolve) => {
        if (!ws || ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close(1000);
        setTimeout(() => {
          ws.terminate();
          resolve();
        }, 5000).unref();
      }),
  );
  await Promise.all(closed);
  agent.destroy();
  sockets = [];
  send({ type: 'closed' });
}

process.on('message', (m: Command) => {
  if (m.type === 'connect') connect(m).catch((err: unknown) => send({ type: 'failed', error: String(err) }));
  else if (m.type === 'report') send(report());
  else if (m.type === 'progress') send({ type: 'progress', received: firstReceipts, away, reconnects });
  else if (m.type === 'reset') {
    reset();
    send({ type: 'reset' });
  } else if (m.type === 'close') void closeAll();
  else if (m.type === 'quit') process.exit(0);
});
// The bench went away (killed): so do its clients.
process.on('disconnect', () => process.exit(0));

// The clients of bench/public-catch-up.ts, in their own process (forked by it), so that reading
// the catch-ups costs the server's process nothing: one live reader of the public WebSocket, which
// says when each `data` message arrived, and anonymous server-sent-event streams resuming with a
// `Last-Event-ID`, which either read their catch-up to its end or never read at all (a botnet's
// clients that only hold a catch-up open). Times are performance.timeOrigin + performance.now():
// comparable across processes.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

type Command =
  | { type: 'live'; url: string }
  | { type: 'catch-up'; url: string; count: number; lastEventId: string; untilId: string; read: boolean }
  | { type: 'close-all' }
  | { type: 'quit' };

const now = () => performance.timeOrigin + performance.now();
const send = (m: object) => process.send!(m);

let live: WebSocket | undefined;
const open = new Set<ClientRequest>();

function openLive(url: string): void {
  live = new WebSocket(url, ['service.v2'], { perMessageDeflate: false });
  live.on('open', () => send({ type: 'live-open' }));
  live.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString()) as { type: string; id?: string; pingId?: string };
    if (msg.type === 'data') send({ type: 'arrival', id: msg.id, at: now() });
    else if (msg.type === 'ping') live!.send(JSON.stringify({ type: 'pong', pingId: msg.pingId }));
  });
  live.on('close', (code) => send({ type: 'error', where: 'live reader closed', code }));
}

/**
 * Opens `count` streams at once. Readers count the bytes and events until the event of `untilId`
 * (the newest telegram of the catch-up), then close; non-readers pause their socket once the
 * answer's head came, so that the server's writes back up into the kernel and then its own buffers.
 */
function catchUps(command: Extract<Command, { type: 'catch-up' }>): void {
  const started = now();
  const statuses = new Map<number, number>();
  const done: number[] = [];
  let bytes = 0;
  let events = 0;
  let answered = 0;
  const marker = `id: ${command.untilId}\n`;
  const finish = () => {
    if (done.length + (command.read ? 0 : answered) < command.count) return;
    send({
      type: command.read ? 'caught-up' : 'held',
      started,
      done,
      statuses: Object.fromEntries(statuses),
      bytes,
      events,
    });
  };
  for (let i = 0; i < command.count; i++) {
    const req = request(command.url, {
      headers: { accept: 'text/event-stream', 'last-event-id': command.lastEventId },
      agent: false,
    });
    open.add(req);
    req.on('error', () => {});
    req.on('response', (res: IncomingMessage) => {
      statuses.set(res.statusCode!, (statuses.get(res.statusCode!) ?? 0) + 1);
      answered++;
      if (!command.read) {
        res.pause();
        return finish();
      }
      let tail = '';
      let reached = false;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        // The last bytes of the previous chunk (longer than the marker), so that one split between two is found.
        const text = tail + chunk.toString('latin1');
        for (let at = text.indexOf('event: data\n'); at !== -1; at = text.indexOf('event: data\n', at + 1))
          if (at >= tail.length - 11) events++;
        if (!reached && text.includes(marker)) {
          reached = true;
          done.push(now());
          req.destroy();
          open.delete(req);
          finish();
        }
        tail = text.slice(-128);
      });
      res.on('end', () => {
        // Ended before the newest telegram: a refusal (an `error` event and a `retry:`), or a cut-off.
        if (!reached) {
          reached = true;
          done.push(Number.NaN);
          open.delete(req);
          finish();
        }
      });
    });
    req.end();
  }
}

process.on('message', (command: Command) => {
  if (command.type === 'live') openLive(command.url);
  else if (command.type === 'catch-up') catchUps(command);
  else if (command.type === 'close-all') {
    for (const req of open) req.destroy();
    open.clear();
    send({ type: 'closed' });
  } else {
    live?.close();
    process.exit(0);
  }
});
send({ type: 'ready' });

/**
 * A local stand-in for JMA's feed host: serves an Atom document that the test writes (with an ETag
 * and Last-Modified, answering conditional requests with 304) and the fixture XML it points at,
 * and can misbehave on demand.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { jmaXmlRoot } from '../support/fixtures.ts';

export const REAL = join(jmaXmlRoot, 'real-operational');

/** How a path is answered: normally, or one of the failures the source must survive. */
export type Behaviour =
  'normal' | 'error-500' | 'hang' | 'truncated' | 'huge' | 'malformed' | 'not-modified' | 'not-found';

export interface FeedServer {
  origin: string;
  feedUrl: string;
  /** The entries of the feed, oldest first (the document lists them newest first, as JMA does). */
  entries: string[];
  /** Answers for one path, by path; absent = normal. */
  behaviour: Map<string, Behaviour>;
  /** Every request: path and headers, in order. */
  requests: { path: string; headers: IncomingHttpHeaders }[];
  /** Requests of a path so far. */
  count(path: string): number;
  /** Connections dropped at a request (dropReused). */
  readonly dropped: number;
  close(): Promise<void>;
}

export function atom(origin: string, files: readonly string[]): string {
  const entries = [...files]
    .reverse()
    .map(
      (f) => `<entry>
<title>情報</title>
<id>${origin}/data/${f}</id>
<updated>2026-11-23T00:00:00+09:00</updated>
<author><name>気象庁</name></author>
<link type="application/xml" href="${origin}/data/${f}"/>
<content type="text">${f}</content>
</entry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" lang="ja">
<title>高頻度（地震火山）</title>
<id>${origin}/feed/eqvol.xml</id>
<updated>2026-11-23T00:00:00+09:00</updated>
${entries}
</feed>
`;
}

export interface FeedServerOptions {
  /** How long the host keeps an idle connection open (Node's default: 5 s). */
  keepAliveTimeoutMs?: number;
  /**
   * Drops a connection when a second request arrives on it, without a byte of answer: the race of a
   * host closing an idle connection just as the client sends on it. Dropped requests are not
   * recorded (the host never handled them).
   */
  dropReused?: boolean;
}

export async function startFeedServer(options: FeedServerOptions = {}): Promise<FeedServer> {
  const behaviour = new Map<string, Behaviour>();
  const requests: FeedServer['requests'] = [];
  const state = { entries: [] as string[], dropped: 0 };
  const perSocket = new WeakMap<object, number>();
  const server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (options.dropReused && n > 1) {
      state.dropped++;
      return req.socket.destroy();
    }
    requests.push({ path, headers: req.headers });
    const mode = behaviour.get(path) ?? 'normal';
    if (mode !== 'normal') return misbehave(res, mode);
    if (path.startsWith('/feed/')) {
      const body = atom(origin, state.entries);
      // The validators change exactly when the document does.
      const etag = `"${state.entries.length}-${state.entries.at(-1) ?? ''}"`;
      const lastModified = new Date(Date.UTC(2026, 10, 23, 0, state.entries.length)).toUTCString();
      if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
      res.writeHead(200, { 'content-type': 'application/atom+xml', etag, 'last-modified': lastModified });
      return res.end(body);
    }
    if (path.startsWith('/data/')) {
      try {
        const xml = readFileSync(join(REAL, path.slice('/data/'.length)));
        res.writeHead(200, { 'content-type': 'application/xml' });
        return res.end(xml);
      } catch {
        return res.writeHead(404).end();
      }
    }
    res.writeHead(404).end();
  });
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    feedUrl: `${origin}/feed/eqvol.xml`,
    get entries() {
      return state.entries;
    },
    set entries(files: string[]) {
      state.entries = files;
    },
    behaviour,
    requests,
    get dropped() {
      return state.dropped;
    },
    count: (path) => requests.filter((r) => r.path === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function misbehave(res: ServerResponse, mode: Exclude<Behaviour, 'normal'>): void {
  switch (mode) {
    case 'error-500':
      res.writeHead(500).end('internal error');
      return;
    case 'hang':
      // Headers never come; the client's time-out must end the request.
      return;
    case 'truncated':
      // Promises more than it sends, then drops the connection.
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': '100000' });
      res.write(
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>',
      );
      setTimeout(() => res.destroy(), 20);
      return;
    case 'huge': {
      // 50 MB, streamed without a Content-Length.
      res.writeHead(200, { 'content-type': 'application/xml' });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const push = () => {
        while (sent < 50 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', push);
        }
        res.end();
      };
      res.on('close', () => (sent = 50));
      push();
      return;
    }
    case 'not-found':
      // Listed before the file reached this server of the host.
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not Found</html>');
      return;
    case 'not-modified':
      // A cache in the way answers 304 even to a request that is not conditional.
      res.writeHead(304).end();
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/atom+xml' });
      res.end('<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><entry><id>x</id></feed>');
  }
}

/** A reader of server-sent events over a real HTTP request (fetch), for the tests of GET /v2/stream. */

export interface SseEvent {
  event: string;
  id: string | null;
  data: string;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  /** The last `id:` the stream gave, with an event or alone (a position): what a browser resumes from. */
  lastEventId: string | null = null;
  status = 0;
  /** Resolves with the response status once the headers arrived. */
  readonly opened: Promise<number>;
  /** Resolves when the stream ended (by the server, or by abort()). */
  readonly ended: Promise<void>;
  /** The answer of a refused request (not a stream). */
  body: unknown = null;
  private readonly controller = new AbortController();

  constructor(url: string, headers: Record<string, string> = {}) {
    let open: (status: number) => void = () => {};
    this.opened = new Promise((resolve) => (open = resolve));
    this.ended = this.read(url, headers, open).catch(() => open(0));
  }

  /** Drops the connection at once, as a network failure would. */
  abort(): void {
    this.controller.abort();
  }

  data<T = Record<string, unknown>>(): T[] {
    return this.events.filter((e) => e.event === 'data').map((e) => JSON.parse(e.data) as T);
  }

  private async read(url: string, headers: Record<string, string>, open: (status: number) => void) {
    const res = await fetch(url, { headers, signal: this.controller.signal });
    this.status = res.status;
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) {
      this.body = await res.json();
      open(res.status);
      return;
    }
    open(res.status);
    const decoder = new TextDecoder();
    let buffered = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffered += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        this.take(buffered.slice(0, end));
        buffered = buffered.slice(end + 2);
      }
    }
  }

  /** As a browser takes a block: an `id:` sets `lastEventId`; only a block with data is an event. */
  private take(block: string): void {
    const event: SseEvent = { event: 'message', id: null, data: '' };
    let dataLines = 0;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event.event = value;
      else if (name === 'id') event.id = this.lastEventId = value;
      else if (name === 'data') {
        event.data += value;
        dataLines++;
      }
    }
    if (dataLines > 0) this.events.push(event);
  }
}

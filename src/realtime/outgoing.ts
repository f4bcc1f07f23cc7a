/**
 * One message on its way to many connections (docs/realtime.md "Fan-out"): its JSON bytes, and each
 * transport's framing of them built once, on the first write that needs it, then written as the
 * same bytes to every connection of that transport — a WebSocket text frame, or a server-sent event.
 */
import { textFrame } from './frame.ts';

export class Outgoing {
  private ws: Buffer | null = null;
  private sse: Buffer | null = null;
  private sseChunked: Buffer | null = null;

  constructor(
    /** The message as JSON (a `data` message, a ping). */
    readonly payload: Buffer,
    /** The telegram id of a `data` message: its event's `id`, from which a stream resumes. */
    readonly eventId: string | null = null,
  ) {}

  /** The complete WebSocket text frame. */
  get wsFrame(): Buffer {
    return (this.ws ??= textFrame(this.payload));
  }

  /** The server-sent event: `event: data`, `id:` the telegram id, `data:` the same JSON. */
  get sseEvent(): Buffer {
    return (this.sse ??= sseEvent('data', this.payload, this.eventId));
  }

  /** The server-sent event as one HTTP/1.1 chunk, to be written as it is under a chunked response. */
  get sseChunk(): Buffer {
    return (this.sseChunked ??= httpChunk(this.sseEvent));
  }
}

/** `body` framed as one chunk of a chunked HTTP/1.1 body (RFC 9112 §7.1): size in hex, CRLF, bytes, CRLF. */
export function httpChunk(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]);
}

/** One server-sent event (the JSON holds no line break: one `data:` line). */
export function sseEvent(event: string, json: Buffer | string, id: string | null = null): Buffer {
  const idLine = id === null ? '' : `id: ${id}\n`;
  return Buffer.concat([
    Buffer.from(`event: ${event}\n${idLine}data: `),
    Buffer.from(json),
    Buffer.from('\n\n'),
  ]);
}

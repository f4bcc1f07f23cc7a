import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for response ids, drawn from the system in blocks: one `randomBytes(8)` per response
 * was a system call per request, several per cent of a list page's time. The ids are identifiers,
 * not secrets; the blocks still come from the operating system's generator.
 */
const ID_BYTES = 8;
const idPool = Buffer.alloc(ID_BYTES * 1024);
let idOffset = idPool.length;

function responseId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return idPool.toString('hex', idOffset - ID_BYTES, idOffset);
}

/** The common envelope fields of every data API response (docs/api-contract.md "Envelope"). */
export function envelope(now: number = Date.now()): { responseId: string; responseTime: string } {
  return { responseId: responseId(), responseTime: isoTime(now) };
}

/** The last time formatted: a busy server answers many requests within one millisecond. */
let lastTime = { at: NaN, iso: '' };

function isoTime(now: number): string {
  if (now !== lastTime.at) lastTime = { at: now, iso: new Date(now).toISOString() };
  return lastTime.iso;
}

/** A responseTime as `toISOString` writes it for years 0–9999; other years are built in full. */
const TIME_LENGTH = 24;
const HEAD = '{"responseId":"';
const ID_AT = HEAD.length;
const TIME_AT = ID_AT + ID_BYTES * 2 + '","responseTime":"'.length;

/**
 * An `ok` answer, as okBody would give it, around items already serialised as a UTF-8 JSON array,
 * then the page's cursors: made once per page, its bytes copied and stamped with a fresh
 * `responseId` and `responseTime` per request (`stamp`), the only parts that differ between two
 * answers of one page. Written as bytes: a response sent as text is measured and encoded again for
 * every request (its Content-Length, then the socket write). Everything but the items is ASCII (hex
 * ids, ISO times, base64url cursors).
 */
export class ItemsAnswer {
  private readonly bytes: Buffer;

  constructor(items: Buffer, cursors: object) {
    this.bytes = Buffer.concat([
      Buffer.from(
        `${HEAD}${'0'.repeat(ID_BYTES * 2)}","responseTime":"${'0'.repeat(TIME_LENGTH)}","status":"ok","items":`,
        'latin1',
      ),
      items,
      Buffer.from(`,${JSON.stringify(cursors).slice(1)}`, 'latin1'),
    ]);
  }

  /** The bytes the answer holds. */
  get byteLength(): number {
    return this.bytes.length;
  }

  /** The answer's bytes with a new responseId and `now` as responseTime; a new buffer each time. */
  stamp(now: number): Buffer {
    const time = isoTime(now);
    if (time.length !== TIME_LENGTH) {
      const tail = this.bytes.subarray(TIME_AT + TIME_LENGTH);
      return Buffer.concat([Buffer.from(`${HEAD}${responseId()}","responseTime":"${time}`, 'latin1'), tail]);
    }
    const out = Buffer.allocUnsafe(this.bytes.length);
    this.bytes.copy(out);
    out.write(responseId(), ID_AT, 'latin1');
    out.write(time, TIME_AT, 'latin1');
    return out;
  }
}

export function okBody<T extends object>(body: T, now?: number) {
  return { ...envelope(now), status: 'ok' as const, ...body };
}

export function errorBody(code: number, message: string, now?: number) {
  return { ...envelope(now), status: 'error' as const, error: { message, code } };
}

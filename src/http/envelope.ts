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
  return { responseId: responseId(), responseTime: new Date(now).toISOString() };
}

export function okBody<T extends object>(body: T, now?: number) {
  return { ...envelope(now), status: 'ok' as const, ...body };
}

export function errorBody(code: number, message: string, now?: number) {
  return { ...envelope(now), status: 'error' as const, error: { message, code } };
}

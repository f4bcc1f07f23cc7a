import { randomBytes } from 'node:crypto';

/** The common envelope fields of every data API response (docs/api-contract.md "Envelope"). */
export function envelope(now: number = Date.now()): { responseId: string; responseTime: string } {
  return { responseId: randomBytes(8).toString('hex'), responseTime: new Date(now).toISOString() };
}

export function okBody<T extends object>(body: T, now?: number) {
  return { ...envelope(now), status: 'ok' as const, ...body };
}

export function errorBody(code: number, message: string, now?: number) {
  return { ...envelope(now), status: 'error' as const, error: { message, code } };
}

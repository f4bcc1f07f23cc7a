import { badQuery } from '../http/errors.ts';

/**
 * Opaque list cursors of every paged list (docs/api-contract.md "Cursors"): base64url of
 * `<list>.<direction>.<position>`, the position being a serial or an id. They carry a position only;
 * the client repeats its filters. A token of another list, or one that does not decode, is a 400
 * naming the parameter it came in.
 */
export type CursorDirection = 'older' | 'newer';

const DIRECTIONS: Record<CursorDirection, string> = { older: 'o', newer: 'n' };
const MAX_TOKEN_LENGTH = 100;

export function encodeCursor(list: string, direction: CursorDirection, serial: number): string {
  return Buffer.from(`${list}.${DIRECTIONS[direction]}.${serial}`).toString('base64url');
}

/** Decodes a cursor of `list`; throws the 400 of `param` when it is not one. */
export function decodeCursor(
  list: string,
  token: string,
  param: string,
  allowed: readonly CursorDirection[] = ['older', 'newer'],
): { direction: CursorDirection; serial: number } {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token))
    throw badQuery(param);
  const m = /^([a-z0-9]+)\.([on])\.(\d{1,15})$/.exec(Buffer.from(token, 'base64url').toString('latin1'));
  if (!m || m[1] !== list) throw badQuery(param);
  const direction: CursorDirection = m[2] === 'o' ? 'older' : 'newer';
  if (!allowed.includes(direction)) throw badQuery(param);
  return { direction, serial: Number(m[3]) };
}

import { badQuery } from '../http/errors.ts';
import type { TelegramQuery } from '../telegrams/store.ts';
import { MAX_EXACT_TYPES } from './schemas.ts';

/** Codes are upper case except JMA's `ii` series placeholders (VXKOii). */
const normaliseType = (code: string) =>
  /ii$/i.test(code) ? code.slice(0, 4).toUpperCase() + 'ii' : code.toUpperCase();

/**
 * The type filter of a list request, whose codes the route schema has checked: one `type` code is
 * a prefix match; several, comma-separated, match exactly. The official SDK sends a list as
 * repeated `type[]` parameters, which count as the exact list (at most five codes in all).
 */
export function typeFilter(
  plain: string | undefined,
  bracketed: string[] | undefined,
): TelegramQuery['types'] {
  if (bracketed !== undefined) {
    if (plain !== undefined) throw badQuery('type');
    const codes = bracketed.flatMap((v) => v.split(','));
    if (codes.length > MAX_EXACT_TYPES) throw badQuery('type[]');
    return { exact: [...new Set(codes.map(normaliseType))] };
  }
  if (plain === undefined || plain === '') return undefined;
  const codes = plain.split(',');
  if (codes.length === 1) return { prefix: normaliseType(plain) };
  return { exact: [...new Set(codes.map(normaliseType))] };
}

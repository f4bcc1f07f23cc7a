import { invalidRequest } from './token-errors.ts';

/** Parameters of a form-encoded OAuth request; a name may occur several times. */
export type FormParams = Map<string, string[]>;

/** Most parameters any OAuth request needs; more is refused so parsing stays cheap. */
const MAX_PARAMS = 32;

/** Decodes an `application/x-www-form-urlencoded` body. */
export function parseForm(body: string): FormParams {
  const params: FormParams = new Map();
  let count = 0;
  for (const [name, value] of new URLSearchParams(body)) {
    if (++count > MAX_PARAMS) throw invalidRequest('too many parameters');
    const list = params.get(name);
    if (list) list.push(value);
    else params.set(name, [value]);
  }
  return params;
}

/**
 * A parameter's single value. Empty values count as absent (RFC 6749 §3.1); a repeated parameter
 * is `invalid_request` (§3.1: parameters MUST NOT be included more than once).
 */
export function param(params: FormParams, name: string): string | undefined {
  const values = params.get(name);
  if (!values) return undefined;
  if (values.length > 1) throw invalidRequest(`parameter ${name} repeated`);
  return values[0] === '' ? undefined : values[0];
}

export function requiredParam(params: FormParams, name: string): string {
  const value = param(params, name);
  if (value === undefined) throw invalidRequest(`parameter ${name} missing`);
  return value;
}

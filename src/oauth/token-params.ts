import { singleValue, type Params } from '../http/form.ts';
import { invalidRequest } from './token-errors.ts';

/**
 * A parameter's single value (empty values count as absent, RFC 6749 §3.1); a repeated parameter
 * is `invalid_request` (§3.1: parameters MUST NOT be included more than once).
 */
export function param(params: Params, name: string): string | undefined {
  const value = singleValue(params, name);
  if (value === null && params.has(name)) throw invalidRequest(`parameter ${name} repeated`);
  return value ?? undefined;
}

export function requiredParam(params: Params, name: string): string {
  const value = param(params, name);
  if (value === undefined) throw invalidRequest(`parameter ${name} missing`);
  return value;
}

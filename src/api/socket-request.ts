/**
 * Validation of the POST /v2/socket body (docs/realtime.md "Sessions and tickets",
 * docs/api-contract.md "Errors"). The body is parsed as JSON whatever its Content-Type (browser
 * samples send text/plain).
 */
import type { SessionSpec } from '../sessions/sessions.ts';

export const startErrors = {
  notJson: 'The body of the request is not json.',
  classifications: 'At least one element of `classifications` is required.',
  types: 'The `types` is not a string or has more than 30 elements.',
  appName: 'The `appName` is up to 24 bytes.',
  formatMode: 'You have entered a string that is not defined in `formatMode`.',
  test: 'The `test` is `no` or `including`.',
} as const;

const MAX_TYPES = 30;
const MAX_APP_NAME_BYTES = 24;
/** More classifications than exist are refused: the list is bounded like every input. */
const MAX_CLASSIFICATIONS = 32;
const MAX_NAME_LENGTH = 64;

const isName = (v: unknown): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= MAX_NAME_LENGTH;

export function parseStartRequest(raw: Buffer | string | undefined): SessionSpec | { error: string } {
  let body: unknown;
  try {
    body = JSON.parse(typeof raw === 'string' ? raw : (raw?.toString('utf8') ?? ''));
  } catch {
    return { error: startErrors.notJson };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: startErrors.notJson };
  const b = body as Record<string, unknown>;

  const cls = b.classifications;
  if (!Array.isArray(cls) || cls.length === 0 || cls.length > MAX_CLASSIFICATIONS || !cls.every(isName))
    return { error: startErrors.classifications };

  let types: string[] | null = null;
  if (b.types !== undefined && b.types !== null) {
    const t = b.types;
    if (!Array.isArray(t) || t.length > MAX_TYPES || !t.every(isName)) return { error: startErrors.types };
    types = t.length > 0 ? [...new Set(t)] : null;
  }

  let test: SessionSpec['test'] = 'no';
  if (b.test !== undefined && b.test !== null) {
    if (b.test !== 'no' && b.test !== 'including') return { error: startErrors.test };
    test = b.test;
  }

  let appName: string | null = null;
  if (b.appName !== undefined && b.appName !== null) {
    if (typeof b.appName !== 'string' || Buffer.byteLength(b.appName) > MAX_APP_NAME_BYTES)
      return { error: startErrors.appName };
    appName = b.appName;
  }

  let formatMode: SessionSpec['formatMode'] = 'raw';
  if (b.formatMode !== undefined && b.formatMode !== null) {
    if (b.formatMode !== 'raw' && b.formatMode !== 'json') return { error: startErrors.formatMode };
    formatMode = b.formatMode;
  }

  return { classifications: [...new Set(cls)], types, test, appName, formatMode };
}

/**
 * A webhook URL as given at creation (docs/webhooks.md "Safety"): absolute, https (http only where
 * the operator allows private addresses), no credentials in it, and no host that is a refused
 * address as written. Host names are judged again at every connection (address-guard.ts).
 */
import { refusedHost } from './address-guard.ts';

/** Longest webhook URL accepted. */
export const MAX_URL_LENGTH = 2048;

export type UrlCheck =
  | { ok: true; url: string; host: string }
  | { ok: false; why: 'malformed' | 'scheme' | 'credentials' | 'address' };

export function checkWebhookUrl(raw: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, why: 'malformed' };
  }
  if (raw.length > MAX_URL_LENGTH || url.hostname === '') return { ok: false, why: 'malformed' };
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    return { ok: false, why: 'scheme' };
  if (url.username !== '' || url.password !== '') return { ok: false, why: 'credentials' };
  if (!allowPrivate && refusedHost(url.hostname)) return { ok: false, why: 'address' };
  return { ok: true, url: url.href, host: url.hostname.toLowerCase() };
}

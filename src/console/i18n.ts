import type { FastifyRequest } from 'fastify';
import { parseCookies } from './signin/cookies.ts';

/**
 * The languages of the web pages. A page's language is the `lang` cookie when a person chose one
 * (the switch in the page header sets it), else the first supported language of `Accept-Language`
 * by quality, else English.
 */
export const languages = ['en', 'ja'] as const;
export type Lang = (typeof languages)[number];

export const LANG_COOKIE = 'lang';

const isLang = (value: string | undefined): value is Lang => languages.includes(value as Lang);

/** The supported language a person asked for in an `Accept-Language` header, if any. */
export function preferredLanguage(header: string | undefined): Lang | undefined {
  if (!header || header.length > 1024) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)).find(Boolean);
      return { primary: tag.trim().toLowerCase().split('-')[0], q: q ? Number(q[1]) : 1, index };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((r) => r.primary).find(isLang);
}

export function languageOf(request: FastifyRequest): Lang {
  const chosen = parseCookies(request.headers.cookie).get(LANG_COOKIE);
  if (isLang(chosen)) return chosen;
  return preferredLanguage(request.headers['accept-language']) ?? 'en';
}

/** A table of user-visible texts, one entry per language, the same keys in each. */
export type Messages<K extends string> = Record<Lang, Record<K, string>>;

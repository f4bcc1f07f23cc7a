import type { Lang, Messages } from './i18n.ts';
import { markup, page } from './html.ts';

export const authorizationHint =
  "Nothing was sent to the application. Return to it and start again; if this keeps happening, contact the application's maker.";

const text: Messages<'title' | 'heading' | 'serverFailure'> = {
  en: {
    title: 'Request failed',
    heading: 'This request cannot be completed',
    serverFailure: 'Something went wrong on the server.',
  },
  ja: {
    title: 'リクエストに失敗しました',
    heading: 'このリクエストは完了できません',
    serverFailure: 'サーバーで問題が発生しました。',
  },
};

/** What an error page says of a failure of the server (5xx), in the page's language. */
export const serverFailure = (lang: Lang): string => text[lang].serverFailure;

export interface ErrorPageOptions {
  /** What to do about it. */
  hint?: string;
  /**
   * The language of the message and hint when it is not the page's: a message that exists in one
   * language only (the framework's refusals, the authorization server's) is marked as such.
   */
  messageLang?: Lang;
}

/** A page for a request that cannot be completed, in `lang`: what went wrong, and optionally what to do. */
export function renderErrorPage(message: string, lang: Lang, options: ErrorPageOptions = {}): string {
  const { hint, messageLang } = options;
  const marked = messageLang && messageLang !== lang ? markup` lang="${messageLang}"` : null;
  return page(
    text[lang].title,
    markup`<h1>${text[lang].heading}</h1>
<p class="error" role="alert"${marked}>${message}</p>
${hint ? markup`<p class="muted"${marked}>${hint}</p>` : null}
<p><a href="/account">Namazu</a></p>`,
    { lang, narrow: true },
  );
}

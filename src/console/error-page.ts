import type { Lang, Messages } from './i18n.ts';
import { markup, page } from './html.ts';

export const authorizationHint =
  "Nothing was sent to the application. Return to it and start again; if this keeps happening, contact the application's maker.";

const text: Messages<'title' | 'heading'> = {
  en: { title: 'Request failed', heading: 'This request cannot be completed' },
  ja: { title: 'リクエストに失敗しました', heading: 'このリクエストは完了できません' },
};

/** A page for a request that cannot be completed: what went wrong, and optionally what to do. */
export function renderErrorPage(message: string, hint?: string, lang: Lang = 'en'): string {
  return page(
    text[lang].title,
    markup`<h1>${text[lang].heading}</h1>
<p class="error" role="alert">${message}</p>
${hint ? markup`<p class="muted">${hint}</p>` : null}
<p><a href="/account">Namazu</a></p>`,
    { lang, narrow: true },
  );
}

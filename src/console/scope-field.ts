import { knownScopes } from '../scopes.ts';
import type { Lang } from './i18n.ts';
import { markup, type SafeHtml } from './html.ts';
import { fieldError } from './layout.ts';
import { presetScopes, presetText, scopeDescription, scopeGroups, scopePresets } from './scope-text.ts';

/** The scopes a person of this account may pick: administrator scopes only for administrators. */
export function offeredScopes(isAdmin: boolean): string[] {
  return knownScopes.filter((s) => isAdmin || !s.startsWith('admin.'));
}

export interface ScopeFieldsetView {
  id: string;
  legend: string;
  lang: Lang;
  scopes: readonly string[];
  selected: ReadonlySet<string>;
  error: string | undefined;
  /**
   * Offer the presets (scope-text.ts) as submit buttons named `preset`: the server answers with the
   * form ticked (no script needed); the scope-presets script ticks them in place when it runs. Only
   * for a form whose Enter key cannot reach them (no text field before them).
   */
  presets?: boolean;
}

function presetButtons(v: ScopeFieldsetView): SafeHtml {
  const t = presetText[v.lang];
  const buttons = scopePresets.map(
    (p) =>
      markup`<button type="submit" class="secondary" name="preset" value="${p}" formnovalidate data-preset-scopes="${presetScopes(p, v.scopes).join(' ')}" aria-describedby="${v.id}-presets-hint">${t[p]}</button>`,
  );
  return markup`<div class="presets" role="group" aria-labelledby="${v.id}-presets-label"><p id="${v.id}-presets-label"><strong>${t.legend}</strong></p>
<p class="hint" id="${v.id}-presets-hint">${t.hint}</p>
${buttons}
<p class="muted" id="${v.id}-presets-status" role="status"></p></div>`;
}

/**
 * The scope checkboxes, grouped by what they serve, each labelled by what it allows in the page's
 * language with its code beside. A refused choice is reported beside the whole fieldset
 * (`${id}-error`).
 */
export function scopeFieldset(v: ScopeFieldsetView): SafeHtml {
  const { id } = v;
  let index = 0;
  const groups = scopeGroups(v.scopes, v.lang).map((g) => {
    const boxes = g.scopes.map((s) => {
      const i = index++;
      return markup`<label for="${id}-${i}"><input type="checkbox" id="${id}-${i}" name="scope" value="${s}"${
        v.selected.has(s) ? markup` checked` : null
      }> <span>${scopeDescription(s, v.lang)} <code>${s}</code></span></label>`;
    });
    return markup`<fieldset class="scope-group"><legend>${g.label}</legend>
${boxes}</fieldset>`;
  });
  return markup`<fieldset id="${id}" class="scopes"${v.error ? markup` aria-describedby="${id}-error"` : null}><legend>${v.legend}</legend>
${v.presets ? presetButtons(v) : null}
${fieldError(id, v.error)}
${groups}
</fieldset>`;
}

/** Scopes shown as tags, each with what it allows as its tooltip. */
export const scopeTags = (scopes: readonly string[], lang: Lang) =>
  scopes.map((s) => markup`<span class="tag" title="${scopeDescription(s, lang)}">${s}</span> `);

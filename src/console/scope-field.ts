import { knownScopes } from '../scopes.ts';
import { markup, type SafeHtml } from './html.ts';
import { fieldError } from './layout.ts';

/** The scopes a person of this account may pick: administrator scopes only for administrators. */
export function offeredScopes(isAdmin: boolean): string[] {
  return knownScopes.filter((s) => isAdmin || !s.startsWith('admin.'));
}

/**
 * A fieldset of scope checkboxes, each labelled by its code. A refused choice is reported beside
 * the whole fieldset (`${id}-error`).
 */
export function scopeFieldset(
  id: string,
  legend: string,
  scopes: readonly string[],
  selected: ReadonlySet<string>,
  error: string | undefined,
): SafeHtml {
  const boxes = scopes.map(
    (s, i) =>
      markup`<label for="${id}-${i}"><input type="checkbox" id="${id}-${i}" name="scope" value="${s}"${
        selected.has(s) ? markup` checked` : null
      }> <code>${s}</code></label>`,
  );
  return markup`<fieldset id="${id}"${error ? markup` aria-describedby="${id}-error"` : null}><legend>${legend}</legend>
${boxes}
${fieldError(id, error)}
</fieldset>`;
}

export const scopeTags = (scopes: readonly string[]) =>
  scopes.map((s) => markup`<span class="tag">${s}</span> `);

import { markup, page } from './html.ts';

export const authorizationHint =
  "Nothing was sent to the application. Return to it and start again; if this keeps happening, contact the application's maker.";

/** A page for a request that cannot be completed: what went wrong, and optionally what to do. */
export function renderErrorPage(message: string, hint?: string): string {
  return page(
    'Request failed',
    markup`<h1>This request cannot be completed</h1>
<p class="error">${message}</p>
${hint ? markup`<p class="muted">${hint}</p>` : null}`,
  );
}

import { html, page } from './html.ts';

/** The page shown when an authorization request fails and cannot be sent back to the client. */
export function renderErrorPage(message: string): string {
  return page(
    'Authorization failed',
    html`<h1>This authorization request cannot be completed</h1>
      <p class="error">${message}</p>
      <p class="muted">
        Nothing was sent to the application. Return to it and start again; if this keeps happening, contact
        the application's maker.
      </p>`,
  );
}

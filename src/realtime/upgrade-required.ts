import { HttpError } from '../http/errors.ts';
import type { App } from '../http/surface.ts';

/**
 * The WebSocket paths asked as ordinary requests (a browser's address bar, curl, an `Upgrade` other
 * than `websocket`, which endpoint.ts hands to the app): 426 with `Upgrade: websocket`, so that whoever
 * tries the URL learns what it is rather than that it does not exist (docs/api-contract.md "Errors").
 * Once the server stops, the endpoint passes every upgrade on: those are told to come back (503), as
 * the app's other paths tell them (http/app.ts).
 */
export function registerUpgradeRequired(app: App, paths: readonly string[], stopping: AbortSignal): void {
  for (const path of paths) {
    app.get(path, { schema: { hide: true } }, async (request) => {
      if (stopping.aborted && request.headers.upgrade !== undefined) throw new HttpError('BUSY');
      throw new HttpError('UPGRADE_REQUIRED', { headers: { upgrade: 'websocket' } });
    });
  }
}

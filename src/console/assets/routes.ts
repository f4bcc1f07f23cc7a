import { createHash } from 'node:crypto';
import type { App } from '../../http/surface.ts';
import { COPY_SCRIPT } from './copy-script.ts';
import { FAVICON_PNG } from './favicon.ts';
import { PRESETS_SCRIPT } from './presets-script.ts';
import { STYLESHEET } from './style.ts';

/**
 * The console's static files under `/console/assets/`, each named by a hash of its content: a
 * change gives a new name, so they are cached for a year and never go stale.
 */

export const ASSET_PREFIX = '/console/assets/';

function asset(base: string, ext: string, body: string, type: string) {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `${ASSET_PREFIX}${base}.${hash}.${ext}`, body, type };
}

export const assets = {
  style: asset('console', 'css', STYLESHEET, 'text/css; charset=utf-8'),
  copy: asset('copy', 'js', COPY_SCRIPT, 'text/javascript; charset=utf-8'),
  presets: asset('presets', 'js', PRESETS_SCRIPT, 'text/javascript; charset=utf-8'),
};

export function registerAssets(app: App): void {
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('cache-control', 'public, max-age=86400')
      .header('x-content-type-options', 'nosniff')
      .type('image/png')
      .send(FAVICON_PNG),
  );
  for (const a of Object.values(assets)) {
    app.get(a.path, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .type(a.type)
        .send(a.body),
    );
  }
}

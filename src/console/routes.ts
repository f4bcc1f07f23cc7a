import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { renderPathErrors } from '../http/path-errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { App } from '../http/surface.ts';
import { accountArea } from './account/routes.ts';
import { adminArea } from './admin/routes.ts';
import { registerAssets } from './assets/routes.ts';
import { clientsArea } from './clients/routes.ts';
import { credentialsArea } from './credentials/routes.ts';
import { liveArea, openLiveView, registerLiveAssets } from './live/routes.ts';
import { paths } from './paths.ts';
import { serviceArea } from './service/routes.ts';
import { webhooksArea } from './webhooks/routes.ts';
import { currentSession } from './signin/session-cookies.ts';
import { acceptVisits } from './visit.ts';
import { asWebScope, authOrigin, sendErrorPage, sendRedirect } from './web.ts';
import { sharedPlugins, surfacePlugin } from '../http/plugins.ts';

/** True when the client asked for a page (a browser), not for JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /text\/html|application\/xhtml\+xml/.test(accept);
}

/**
 * The console: its error pages for paths under it; its administration's uploads are capped; its
 * webhooks area acts through the process's webhook delivery.
 */
export const webConsole = surfacePlugin('namazu-console', registerConsole, [
  sharedPlugins.pathErrors,
  sharedPlugins.uploadLimit,
  sharedPlugins.webhooks,
]);

/**
 * The console (docs/console.md, docs/console-live.md): the root path, the static files, and one
 * web scope holding its areas, each an encapsulated plugin with its own gate (`visit.ts`):
 * account, credentials, clients, webhooks, service, live and admin.
 */
async function registerConsole(app: App, ctx: AppContext): Promise<void> {
  registerAssets(app);
  registerLiveAssets(app);

  // The root: a person goes to the console, a program learns where the API reference is.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (wantsHtml(request)) {
      const origin = authOrigin(ctx, request);
      const session = await currentSession(ctx, request);
      return sendRedirect(reply, origin + (session ? paths.account : paths.signin));
    }
    const urls = publicUrls(ctx.config, request);
    return reply.header('cache-control', 'no-store').send({
      service: 'Namazu',
      reference: `${urls.base}/reference`,
      openapi: `${urls.base}/openapi.json`,
      console: `${urls.auth}${paths.account}`,
    });
  });

  renderPathErrors(app, `${paths.account}/`, (reply, status, message) => {
    // The path errors' messages are worded in English only.
    sendErrorPage(reply, status, message, { messageLang: 'en' });
  });
  const live = await openLiveView(app, ctx);
  await app.register(async (scope) => {
    asWebScope(scope);
    acceptVisits(scope);
    await scope.register(accountArea, { ctx });
    await scope.register(credentialsArea, { ctx });
    await scope.register(clientsArea, { ctx });
    await scope.register(webhooksArea, { ctx });
    await scope.register(serviceArea, { ctx });
    await scope.register(liveArea, { ctx, live });
    await scope.register(adminArea, { ctx, streams: live.feed });
  });
}

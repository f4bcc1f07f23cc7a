import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyPluginOptions, RawServerDefault } from 'fastify';
import fp from 'fastify-plugin';
import type { AppPlugin, PluginOptions, Surface } from './surface.ts';

/**
 * The names of the app's shared plugins: `fastify-plugin` plugins whose hooks and decorators reach
 * every surface, registered by `buildApp` before the surfaces. A surface that needs one names it
 * in its `dependencies` (`surfacePlugin`), and Fastify refuses to start without it.
 */
export const sharedPlugins = {
  /** The `onRequest` hook of the data API's credentials; `request.principal`, `app.dpopNonces`. */
  authentication: 'namazu-authentication',
  /** The cap on requests whose body is still being received. */
  uploadLimit: 'namazu-upload-limit',
  /** `app.pathErrorRenderers`: each surface's error format for paths that reach no route. */
  pathErrors: 'namazu-path-errors',
  /** `app.localSocketClosers`: how the real-time surface closes a connection this process holds. */
  localSockets: 'namazu-local-sockets',
  /** `app.webhooks`: the process's one webhook delivery, for the webhook API and the console. */
  webhooks: 'namazu-webhooks',
} as const;

/** A plugin whose hooks and decorators are the app's, not of a scope of its own (`fastify-plugin`). */
export function sharedPlugin<Options extends FastifyPluginOptions = PluginOptions>(
  name: string,
  plugin: FastifyPluginAsync<Options, RawServerDefault, TypeBoxTypeProvider>,
): FastifyPluginAsync<Options, RawServerDefault, TypeBoxTypeProvider> {
  return fp(plugin, { name });
}

/**
 * A surface as an encapsulated Fastify plugin with a name: what it adds stays in its own scope.
 * `dependencies` names the shared plugins it needs (`sharedPlugins`), checked by Fastify when
 * the surface is registered: a surface registered without them fails at start, whatever the order.
 */
export function surfacePlugin(
  name: string,
  surface: Surface,
  dependencies: readonly string[] = [],
): AppPlugin {
  const plugin: AppPlugin = async (app, { ctx }) => {
    await surface(app, ctx);
  };
  return fp(plugin, { name, dependencies: [...dependencies], encapsulate: true });
}

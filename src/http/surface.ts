import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyPluginAsync,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { AppContext } from '../context.ts';

/** The Fastify app of one process, with the TypeBox type provider: route schemas type requests. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What a surface adds to its scope: routes, and the hooks, parsers and error handler of its own. */
export type Surface = (app: App, ctx: AppContext) => Promise<void> | void;

/** The options every plugin of the app is registered with. */
export interface PluginOptions {
  ctx: AppContext;
}

/** A plugin of the app, registered with `app.register(plugin, { ctx })`. */
export type AppPlugin = FastifyPluginAsync<PluginOptions, RawServerDefault, TypeBoxTypeProvider>;
